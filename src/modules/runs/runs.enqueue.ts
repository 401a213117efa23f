import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../platform/db/database.js';
import type { AgentRunMode } from './runs.tables.js';
import { sql, type RawBuilder } from 'kysely';
import { addJobsOfJson, addJobsOfRows } from '../../platform/jobs/enqueue.js';
import { prepared } from '../../platform/db/prepared.js';
import { agentVersionOf } from '../agents/index.js';
import { AGENT_RUN_FLAG_PREFIX, agentRunJob, agentRunJobKey } from './run.job-def.js';
import type { TriggerContextT } from './runs.schemas.js';

/** A run job's flags (agentRunFlag), over the `run` CTE's row: fair scheduling across agents (run-fair-share.ts). */
const runFlags = sql`ARRAY[${AGENT_RUN_FLAG_PREFIX} || run.agent_id::text]`;

export interface NewRun {
  /** A run id chosen by the caller (to reference it before the run exists); a new one by default. */
  id?: string;
  organizationId: string;
  agentId: string;
  mode: AgentRunMode;
  /** Any JSON value: the agent's input (a webhook body, a run request's `input`). */
  input: unknown;
  /** The user whose permissions the run's tools act with. */
  actorUserId: string | null;
  actorApiKeyId?: string | null;
  triggerId?: string | null;
  triggerSource?: string | null;
  /** Triggered runs: the webhook delivery the run came from (shown to the model and in GET /api/agent-runs/{runId}). */
  triggerContext?: TriggerContextT | null;
  /** The alert the run triages (routed, assigned, hunt, or the alert its trigger delivery created). */
  alert?: { id: string; displayId: string } | null;
  /** The agent to run, pinned now (an evaluation runs every case with the agent as it was started); default: pinned if it changes. */
  agentSnapshot?: Record<string, unknown> | null;
}

/**
 * Record a run (status `waiting`) and enqueue its job in the caller's transaction: the run
 * exists exactly when its job does. It records the agent's current version, which it executes
 * (run-pinning.ts). Returns the run id. The caller checks that the agent
 * belongs to the organization.
 */
export async function enqueueRun(tx: Queryable, run: NewRun): Promise<string> {
  const id = run.id ?? uuidv7();
  await insertRunAndJob.execute(tx, { ...runParams({ ...run, id }), alertId: run.alert?.id ?? null, alertDisplayId: run.alert?.displayId ?? null });
  return id;
}

/** A run's parameters of `runWithJob` (its alert apart: the caller's statement may write it). */
export function runParams(run: Omit<NewRun, 'alert'> & { id: string }): Record<RunParam, unknown> {
  return {
    id: run.id,
    organizationId: run.organizationId,
    agentId: run.agentId,
    mode: run.mode,
    input: JSON.stringify(run.input ?? null),
    actorUserId: run.actorUserId,
    actorApiKeyId: run.actorApiKeyId ?? null,
    triggerId: run.triggerId ?? null,
    triggerSource: run.triggerSource ?? null,
    triggerContext: run.triggerContext ? JSON.stringify(run.triggerContext) : null,
    agentSnapshot: run.agentSnapshot ? JSON.stringify(run.agentSnapshot) : null,
    now: new Date(),
    // The job's payload ({runId}, agentRunJob's schema: the id is a uuid, or the INSERT fails).
    job: `{"runId":${JSON.stringify(run.id)}}`,
    jobKey: agentRunJobKey(run.id),
  };
}

export type RunParam =
  | 'id' | 'organizationId' | 'agentId' | 'mode' | 'input' | 'actorUserId' | 'actorApiKeyId' | 'triggerId' | 'triggerSource'
  | 'triggerContext' | 'agentSnapshot' | 'now' | 'job' | 'jobKey';

/** Where a run written by another module's statement takes its alert from: a relation of that statement, and when to write the run. */
export interface RunAlertSource {
  from: RawBuilder<unknown>;
  where: RawBuilder<boolean>;
  alertId: RawBuilder<string>;
  alertDisplayId: RawBuilder<string>;
}

/**
 * The run INSERT and its job as two CTEs, `run` and `run_job` (one row per job queued), for a
 * prepared statement (`p`: its parameters, runParams' keys). It records the agent's version,
 * which the run executes (run-pinning.ts): read by primary key in the statement, so a version
 * changed a moment ago by another process is the one recorded (a cached copy could lag behind
 * its NOTIFY). With `alert`, the run is written from that relation's row, only when `where`
 * holds (a trigger's alert and its triage run in one statement; the `alertId` and
 * `alertDisplayId` parameters are then unused). `run_job` must be read by the statement (a
 * SELECT in WITH runs only when read); it queues the job only for a run written.
 */
export function runWithJob(p: <T = string>(k: RunParam | 'alertId' | 'alertDisplayId') => T, alert?: RunAlertSource): RawBuilder<unknown> {
  const values = {
    id: p('id'),
    organization_id: p('organizationId'),
    agent_id: p('agentId'),
    agent_version: agentVersionOf(p('agentId')),
    status: sql.lit('waiting'),
    mode: p('mode'),
    input: p('input'),
    actor_user_id: p('actorUserId'),
    actor_api_key_id: p('actorApiKeyId'),
    trigger_id: p('triggerId'),
    trigger_source: p('triggerSource'),
    trigger_context: p('triggerContext'),
    alert_id: alert ? alert.alertId : p<string | null>('alertId'),
    alert_display_id: alert ? alert.alertDisplayId : p<string | null>('alertDisplayId'),
    agent_snapshot: p('agentSnapshot'),
    queued_at: p('now'),
    updated_at: p('now'),
  };
  return sql`
    run AS (
      INSERT INTO agent_runs (${sql.join(Object.keys(values).map((k) => sql.ref(k)))})
      SELECT ${sql.join(Object.values(values))}
      ${alert ? sql`FROM ${alert.from} WHERE ${alert.where}` : sql``}
      RETURNING id, agent_id
    ),
    run_job AS (
      SELECT (SELECT j.id FROM ${addJobsOfJson(agentRunJob, p('job'), { jobKey: p('jobKey'), flags: runFlags })} AS j) AS id FROM run
    )`;
}

/** The run and its job in one statement (one round trip fewer on every intake), prepared: built once, planned by PostgreSQL once per connection. */
const insertRunAndJob = prepared('insert_run_and_job', (_db, p: <T = string>(k: RunParam | 'alertId' | 'alertDisplayId') => T) => sql<{ id: string }>`
  WITH ${runWithJob(p)}
  SELECT id::text AS id FROM run_job`);

/** A run as one element of `runsWithJobs`' rows: agent_runs' column names, JSON columns as values (not text). */
export function runRowJson(run: Omit<NewRun, 'alert'> & { id: string }, now: Date): Record<string, unknown> {
  return {
    id: run.id,
    organization_id: run.organizationId,
    agent_id: run.agentId,
    mode: run.mode,
    input: run.input ?? null,
    actor_user_id: run.actorUserId,
    actor_api_key_id: run.actorApiKeyId ?? null,
    trigger_id: run.triggerId ?? null,
    trigger_source: run.triggerSource ?? null,
    trigger_context: run.triggerContext ?? null,
    agent_snapshot: run.agentSnapshot ?? null,
    queued_at: now,
    updated_at: now,
  };
}

/**
 * Many runs and their jobs as two CTEs, `run` and `run_job`, with ONE graphile-worker `add_jobs`
 * call for all of them (group commit: `add_jobs` is the largest item of an intake statement, and
 * most of it is paid per call, not per job). `from` yields one row per run, `row` its jsonb
 * (runRowJson), `alertId`/`alertDisplayId` its alert from the caller's relation. Like
 * `runWithJob`, it records the agent's version read by primary key in the statement, and
 * `run_job` must be read by the statement. The input is read with `->` (jsonb_populate_record
 * makes a JSON null an SQL NULL; a `null` input is the JSON null).
 */
export function runsWithJobs(source: { from: RawBuilder<unknown>; row: RawBuilder<unknown>; alertId: RawBuilder<string>; alertDisplayId: RawBuilder<string> }): RawBuilder<unknown> {
  return sql`
    run AS (
      INSERT INTO agent_runs (id, organization_id, agent_id, agent_version, status, mode, input, actor_user_id, actor_api_key_id, trigger_id,
        trigger_source, trigger_context, alert_id, alert_display_id, agent_snapshot, queued_at, updated_at)
      SELECT r.id, r.organization_id, r.agent_id, ${agentVersionOf(sql.ref('r.agent_id'))}, 'waiting', r.mode, (${source.row})->'input', r.actor_user_id, r.actor_api_key_id, r.trigger_id,
        r.trigger_source, r.trigger_context, ${source.alertId}, ${source.alertDisplayId}, r.agent_snapshot, r.queued_at, r.updated_at
      FROM ${source.from}, jsonb_populate_record(NULL::agent_runs, ${source.row}) AS r
      RETURNING id, agent_id
    ),
    -- The job's payload as runParams writes it, byte for byte.
    run_job AS (
      SELECT j.id FROM ${addJobsOfRows(agentRunJob, { from: sql`run`, payload: sql`('{"runId":"' || run.id || '"}')::json`, jobKey: sql`${agentRunJobKey('')} || run.id::text`, flags: runFlags })} AS j
    )`;
}
