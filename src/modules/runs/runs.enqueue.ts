import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../platform/db/database.js';
import type { AgentRunMode } from '../../platform/db/schema.js';
import { sql } from 'kysely';
import { addJobs } from '../../platform/jobs/enqueue.js';
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
  const values = {
    id,
    organization_id: run.organizationId,
    agent_id: run.agentId,
    // The version it runs (run-pinning.ts), read in this INSERT: no extra round trip on intake.
    agent_version: agentVersionOf(run.agentId),
    status: 'waiting',
    mode: run.mode,
    input: JSON.stringify(run.input ?? null),
    actor_user_id: run.actorUserId,
    actor_api_key_id: run.actorApiKeyId ?? null,
    trigger_id: run.triggerId ?? null,
    trigger_source: run.triggerSource ?? null,
    trigger_context: run.triggerContext ? JSON.stringify(run.triggerContext) : null,
    alert_id: run.alert?.id ?? null,
    alert_display_id: run.alert?.displayId ?? null,
    agent_snapshot: run.agentSnapshot ? JSON.stringify(run.agentSnapshot) : null,
    queued_at: now,
    updated_at: now,
  };
  // The run and its job in one statement (one round trip fewer on every intake).
  await sql`
    WITH run AS (
      INSERT INTO agent_runs (${sql.join(Object.keys(values).map((k) => sql.ref(k)))})
      VALUES (${sql.join(Object.values(values))})
      RETURNING id
    )
    SELECT job.id FROM run, ${addJobs(agentRunJob, { runId: id }, { jobKey: agentRunJobKey(id) })} AS job`.execute(tx);
  return id;
}
