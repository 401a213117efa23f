import { sql } from 'kysely';
import type { Database, Queryable } from '../../platform/db/database.js';
import type { AgentRunMode, AgentRunStatus } from './runs.tables.js';
import { agentNameOf, type PinnedAgent } from '../agents/index.js';
import type { EventBus, EventSpec } from '../../platform/events.js';
import type { RunResult } from './run-result.fns.js';
import type { RunRow } from './runs.repo.js';
import type { RunTranscript } from './run-approvals.js';
import { requestApprovals, type ApprovalNeeded } from '../approvals/index.js';
import { DEFAULT_APPROVAL_SETTINGS } from '../agents/index.js';

/** Run state transitions, each a single guarded UPDATE so concurrent actors cannot clobber them. */

/** A run interrupted while it waited ends here without starting. Returns whether it did. */
export async function markInterruptedBeforeStart(db: Database, runId: string): Promise<boolean> {
  const now = new Date();
  const r = await db
    .updateTable('agentRuns')
    .set({ status: 'interrupted', statusMessage: 'Interrupted before it started', finishedAt: now, updatedAt: now })
    .where('id', '=', runId)
    .where('status', '=', 'waiting')
    .where('interruptRequestedAt', 'is not', null)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** `waiting` (or `running` again after a crashed attempt) → `running`; undefined when finished. */
export async function claimRun(db: Database, runId: string): Promise<RunRow | undefined> {
  const now = new Date();
  return db
    .updateTable('agentRuns')
    .set((eb) => ({
      status: 'running',
      statusMessage: null,
      startedAt: eb.fn.coalesce('startedAt', sql<Date>`${now}`),
      attemptCount: eb('attemptCount', '+', 1),
      updatedAt: now,
    }))
    .where('id', '=', runId)
    .where('status', 'in', ['waiting', 'running'])
    .returningAll()
    .executeTakeFirst();
}

interface StepLike {
  usage: { inputTokens?: number | undefined; outputTokens?: number | undefined };
}

function usageOf(steps: readonly StepLike[]): { inputTokens: number; outputTokens: number } {
  let inputTokens = 0;
  let outputTokens = 0;
  for (const s of steps) {
    inputTokens += s.usage.inputTokens ?? 0;
    outputTokens += s.usage.outputTokens ?? 0;
  }
  return { inputTokens, outputTokens };
}

/** Step count and token usage so far, visible in the run listing while the run works. */
export async function recordProgress(db: Database, runId: string, steps: readonly StepLike[]): Promise<void> {
  await db
    .updateTable('agentRuns')
    .set({ stepCount: steps.length, ...usageOf(steps), updatedAt: new Date() })
    .where('id', '=', runId)
    .where('status', '=', 'running')
    .execute();
}

/**
 * Records the outcome. When the run is `done`, its output is queued for each of the agent's
 * destinations through the `run.output` event (delivery's subscriber: row and job in this transaction; one delivery
 * per destination and run: a retried completion never queues twice) and a triggered run marks its trigger's last success, in the same transaction.
 */
export interface EndedRun {
  runId: string;
  organizationId: string;
  agentId: string;
  agentName: string;
  /** The trigger that started it (its `lastRunSucceededAt` is the triggers module's, on `run.ended`). */
  triggerId: string | null;
  /** `evaluation`: a sandboxed run of an evaluation (no output event; the evaluations module records it). */
  mode: AgentRunMode;
  status: AgentRunStatus;
  statusMessage: string | null;
  finalAssistantMessage: string;
}

declare module '../../platform/events.js' {
  interface DomainEvents {
    /**
     * A run ended (any status), in the transaction that recorded its end. A subscriber may answer
     * what the run's output event says beside the run (the alerts module: the alert it triaged
     * and its verdict).
     */
    'run.ended': EventSpec<EndedRun, Record<string, unknown>>;
  }
}

export async function finishRun(
  db: Database,
  run: RunRow,
  agent: PinnedAgent,
  events: EventBus,
  outcome: { status: AgentRunStatus; statusMessage: string | null; result: RunResult; steps: readonly StepLike[] },
): Promise<void> {
  const now = new Date();
  await db.transaction().execute(async (tx) => {
    const updated = await tx
      .updateTable('agentRuns')
      .set({
        status: outcome.status,
        statusMessage: outcome.statusMessage,
        result: JSON.stringify(outcome.result),
        stepCount: outcome.steps.length,
        ...usageOf(outcome.steps),
        finishedAt: now,
        updatedAt: now,
      })
      .where('id', '=', run.id)
      .where('status', '=', 'running')
      .returning('id')
      .executeTakeFirst();
    if (!updated) return;
    const about = await events.emit(tx, 'run.ended', {
      runId: run.id,
      organizationId: run.organizationId,
      agentId: agent.id,
      agentName: agent.name,
      triggerId: run.triggerId,
      mode: run.mode,
      status: outcome.status,
      statusMessage: outcome.statusMessage,
      finalAssistantMessage: outcome.result.finalAssistantMessage,
    });
    // An evaluation's run delivers nothing: its output is the evaluation's to record.
    if (outcome.status !== 'done' || run.mode === 'evaluation') return;
    if (agent.outputDestinationIds.length) {
      // The run id is the event id: the idempotency id receivers see for this run's output.
      const data = {
        runId: run.id,
        agentId: agent.id,
        agentName: agent.name,
        finishedAt: now.toISOString(),
        finalAssistantMessage: outcome.result.finalAssistantMessage,
        // An object, as receivers read it (the run result keeps the JSON string the API spec's "Other resources" gives it).
        ...(outcome.result.structuredOutputResult !== undefined ? { structuredOutputResult: JSON.parse(outcome.result.structuredOutputResult) as unknown } : {}),
        ...about,
      };
      const event = { id: run.id, type: 'agent_run.completed', occurredAt: now.toISOString(), organizationId: run.organizationId, data };
      await events.emit(tx, 'run.output', { event, destinationIds: agent.outputDestinationIds, runId: run.id });
    }
  });
}

/**
 * Ends a run whose job can no longer finish it (the job failed for good, or vanished, or the
 * run is far past its time limit): `error` with `reason`, or `interrupted` when an interrupt
 * was requested meanwhile. Guarded like every transition: a run that ended by itself is left
 * alone. Returns whether it ended the run.
 */
export async function endAbandonedRun(db: Database, runId: string, reason: string, events: EventBus): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const run = await tx
      .selectFrom('agentRuns as r')
      .select(['r.id', 'r.organizationId', 'r.agentId', 'r.triggerId', 'r.mode', 'r.interruptRequestedAt'])
      .select(agentNameOf('r.agentId').as('agentName'))
      .where('r.id', '=', runId)
      .where('r.status', 'in', ['waiting', 'running'])
      .forUpdate('r')
      .executeTakeFirst();
    if (!run) return false;
    const now = new Date();
    const status: AgentRunStatus = run.interruptRequestedAt ? 'interrupted' : 'error';
    const statusMessage = run.interruptRequestedAt ? `Interrupted on request (${reason})` : reason;
    await tx.updateTable('agentRuns').set({ status, statusMessage, finishedAt: now, updatedAt: now }).where('id', '=', runId).execute();
    await events.emit(tx, 'run.ended', { runId, organizationId: run.organizationId, agentId: run.agentId, agentName: run.agentName ?? '', triggerId: run.triggerId, mode: run.mode, status, statusMessage, finalAssistantMessage: '' });
    return true;
  });
}

/**
 * `running` → `awaiting_approval`: stores the transcript the run resumes from and records its
 * approval requests (approvals' front door: the requests, the alert timeline's event and the
 * messages to the agent's destinations), in one transaction. The job then ends: the run holds no
 * worker slot, job lock, connection or model context while it waits.
 */
export async function awaitApproval(
  db: Database,
  run: RunRow,
  agent: PinnedAgent,
  events: EventBus,
  w: { transcript: RunTranscript; calls: ApprovalNeeded[]; baseUrl: string },
): Promise<void> {
  const settings = { ...DEFAULT_APPROVAL_SETTINGS, ...(agent.approvalSettings as Partial<typeof DEFAULT_APPROVAL_SETTINGS> | undefined) };
  const tools = [...new Set(w.calls.map((c) => c.toolName))].join(', ');
  await db.transaction().execute(async (tx) => {
    const updated = await tx
      .updateTable('agentRuns')
      .set({
        status: 'awaiting_approval',
        statusMessage: `Waiting for a person to approve ${tools}`,
        transcript: JSON.stringify(w.transcript),
        stepCount: w.transcript.steps.length,
        ...usageOf(w.transcript.steps),
        updatedAt: new Date(),
      })
      .where('id', '=', run.id)
      .where('status', '=', 'running')
      .returning('id')
      .executeTakeFirst();
    if (!updated) return;
    await requestApprovals(
      tx,
      events,
      { organizationId: run.organizationId, runId: run.id, agentId: agent.id, agentName: agent.name, alertId: run.alertId, expiresAfterSeconds: settings.expiresAfterSeconds, destinationIds: agent.outputDestinationIds },
      w.calls,
      w.baseUrl,
    );
  });
}
