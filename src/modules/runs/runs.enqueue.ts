import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../platform/db/database.js';
import type { AgentRunMode } from '../../platform/db/schema.js';
import { sql } from 'kysely';
import { addJobsOfJson } from '../../platform/jobs/enqueue.js';
import { prepared } from '../../platform/db/prepared.js';
import { agentVersionOf } from '../agents/index.js';
import { agentRunJob, agentRunJobKey } from './run.job-def.js';
import type { TriggerContextT } from './runs.schemas.js';

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
  const now = new Date();
  await insertRunAndJob.execute(tx, {
    id,
    organizationId: run.organizationId,
    agentId: run.agentId,
    mode: run.mode,
    input: JSON.stringify(run.input ?? null),
    actorUserId: run.actorUserId,
    actorApiKeyId: run.actorApiKeyId ?? null,
    triggerId: run.triggerId ?? null,
    triggerSource: run.triggerSource ?? null,
    triggerContext: run.triggerContext ? JSON.stringify(run.triggerContext) : null,
    alertId: run.alert?.id ?? null,
    alertDisplayId: run.alert?.displayId ?? null,
    agentSnapshot: run.agentSnapshot ? JSON.stringify(run.agentSnapshot) : null,
    now,
    // The job's payload ({runId}, agentRunJob's schema: the id is a uuid, or the INSERT fails).
    job: `{"runId":${JSON.stringify(id)}}`,
    jobKey: agentRunJobKey(id),
  });
  return id;
}

/**
 * The run and its job in one statement (one round trip fewer on every intake), prepared: built
 * once, planned by PostgreSQL once per connection. It records the agent's version, which the run
 * executes (run-pinning.ts): read by primary key in the statement, so a version changed a moment
 * ago by another process is the one recorded (a cached copy could lag behind its NOTIFY).
 */
const insertRunAndJob = prepared('insert_run_and_job', (_db, p: (k: RunParam) => string) => {
  const values = {
    id: p('id'),
    organization_id: p('organizationId'),
    agent_id: p('agentId'),
    agent_version: agentVersionOf(p('agentId')),
    status: 'waiting',
    mode: p('mode'),
    input: p('input'),
    actor_user_id: p('actorUserId'),
    actor_api_key_id: p('actorApiKeyId'),
    trigger_id: p('triggerId'),
    trigger_source: p('triggerSource'),
    trigger_context: p('triggerContext'),
    alert_id: p('alertId'),
    alert_display_id: p('alertDisplayId'),
    agent_snapshot: p('agentSnapshot'),
    queued_at: p('now'),
    updated_at: p('now'),
  };
  return sql<{ id: string }>`
    WITH run AS (
      INSERT INTO agent_runs (${sql.join(Object.keys(values).map((k) => sql.ref(k)))})
      VALUES (${sql.join(Object.values(values))})
      RETURNING id
    )
    SELECT job.id::text AS id FROM run, ${addJobsOfJson(agentRunJob, p('job'), { jobKey: p('jobKey') })} AS job`;
});

type RunParam =
  | 'id' | 'organizationId' | 'agentId' | 'mode' | 'input' | 'actorUserId' | 'actorApiKeyId' | 'triggerId' | 'triggerSource'
  | 'triggerContext' | 'alertId' | 'alertDisplayId' | 'agentSnapshot' | 'now' | 'job' | 'jobKey';
