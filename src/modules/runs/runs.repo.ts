import type { Selectable } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';
import type { AgentRunMode, AgentRunStatus, AgentRunsTable } from './runs.tables.js';
import type { Actor } from '../../platform/auth/actor.js';

export type RunRow = Selectable<AgentRunsTable>;

export async function findRunRow(db: Queryable, organizationId: string, agentId: string, runId: string, forUpdate = false): Promise<RunRow | undefined> {
  let q = db.selectFrom('agentRuns').selectAll().where('organizationId', '=', organizationId).where('agentId', '=', agentId).where('id', '=', runId);
  if (forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function findRunById(db: Queryable, organizationId: string, runId: string): Promise<RunRow | undefined> {
  return db.selectFrom('agentRuns').selectAll().where('organizationId', '=', organizationId).where('id', '=', runId).executeTakeFirst();
}

export interface RunFilters {
  agentId?: string | undefined;
  status?: AgentRunStatus[] | undefined;
  mode?: AgentRunMode | undefined;
  triggerId?: string | undefined;
  evalScoreBelow?: number | undefined;
}

export async function listRunRows(db: Queryable, organizationId: string, f: RunFilters, limit: number, offset: number): Promise<{ rows: RunRow[]; total: number }> {
  let q = db.selectFrom('agentRuns').where('organizationId', '=', organizationId);
  if (f.agentId) q = q.where('agentId', '=', f.agentId);
  if (f.status?.length) q = q.where('status', 'in', f.status);
  // An evaluation's runs are its own: listed only when asked for by mode.
  q = f.mode ? q.where('mode', '=', f.mode) : q.where('mode', '!=', 'evaluation');
  if (f.evalScoreBelow !== undefined) q = q.where('evalScore', '<', f.evalScoreBelow);
  if (f.triggerId) q = q.where('triggerId', '=', f.triggerId);
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('queuedAt', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/**
 * The actor a run's tools act as: the user who started the run (or created its trigger), with
 * the permissions of their role now, not when the run was queued. A deactivated or deleted
 * user gives null.
 */
export async function loadRunActor(db: Queryable, organizationId: string, userId: string, apiKeyId: string | null): Promise<Actor | null> {
  const row = await db
    .selectFrom('users as u')
    .innerJoin('roles as r', 'r.id', 'u.roleId')
    .select(['u.id', 'u.roleId', 'u.deactivatedAt', 'r.permissions'])
    .where('u.organizationId', '=', organizationId)
    .where('u.id', '=', userId)
    .executeTakeFirst();
  if (!row || row.deactivatedAt) return null;
  return { type: 'user', userId: row.id, organizationId, apiKeyId, roleId: row.roleId, permissions: new Set(row.permissions) };
}

/** A run's status (undefined: no such run), for modules that start work only when none is active. */
export async function runStatus(db: Queryable, runId: string): Promise<AgentRunStatus | undefined> {
  const row = await db.selectFrom('agentRuns').select('status').where('id', '=', runId).executeTakeFirst();
  return row?.status;
}

export interface RunJudgement {
  results: Array<{ criterion: string; met: boolean | null; explanation: string }>;
  score: number;
  explanation: string;
}

/** Records the judge's grading once: a retried judge job finds the run graded and records nothing (answers false). */
export async function recordRunJudgement(tx: Queryable, organizationId: string, runId: string, j: RunJudgement): Promise<boolean> {
  const r = await tx
    .updateTable('agentRuns')
    .set({ acceptanceCriteriaResults: JSON.stringify(j.results), evalScore: j.score, evalExplanation: j.explanation })
    .where('organizationId', '=', organizationId)
    .where('id', '=', runId)
    .where('evalScore', 'is', null)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/**
 * Whether the run job should stop for an interrupt: asked by the running job every
 * `interruptPollMs`; a run that is gone (deleted with its agent) stops too.
 */
export async function interruptRequested(db: Queryable, runId: string): Promise<boolean> {
  const r = await db.selectFrom('agentRuns').select('interruptRequestedAt').where('id', '=', runId).executeTakeFirst();
  return !r || r.interruptRequestedAt !== null;
}

/** A running run whose decided calls still include a pending one goes back to waiting for approval. */
export async function markAwaitingApproval(db: Queryable, runId: string): Promise<void> {
  await db.updateTable('agentRuns').set({ status: 'awaiting_approval', statusMessage: 'Waiting for approval', updatedAt: new Date() }).where('id', '=', runId).where('status', '=', 'running').execute();
}

/** The worker is stopping: a running run is left `waiting` for its job's retry (from its last stored transcript). */
export async function releaseRunForRetry(db: Queryable, runId: string): Promise<void> {
  await db.updateTable('agentRuns').set({ status: 'waiting', statusMessage: 'The worker stopped; the run will be retried', updatedAt: new Date() }).where('id', '=', runId).where('status', '=', 'running').execute();
}
