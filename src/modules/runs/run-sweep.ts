import { sql } from 'kysely';
import type { Database } from '../../platform/db/database.js';
import { agentMaxDurationOf } from '../agents/index.js';
import { agentRunJob, agentRunJobKey } from './run.job-def.js';
import { noEvents, type EventBus } from '../../platform/events.js';
import { endAbandonedRun } from './run-state.js';
import { jobFailedMessage, overdueMessage } from './run-errors.fns.js';

/**
 * The backstop that makes every run end. The run job ends its run itself, and a job that fails
 * for good ends it through `onFailed`; but that hook cannot run while the database is away (an
 * outage can use up a run's attempts), and a worker can die in ways that leave a run `running`.
 * This pass, run by every worker's scheduler, ends a `waiting` or `running` run:
 *
 * - whose job is gone or failed for good (no attempt left, not running): nothing will ever
 *   finish it. `error` with the job's last error.
 * - still `running` longer than its time limit plus `graceMs` since its attempt started (its
 *   job's lock, or the run's last update when no worker holds it): the run job aborts at its
 *   limit, so its worker is dead or wedged. The grace is longer than a dead worker's release
 *   plus a poll, so a crashed run's retry gets its chance first.
 *
 * An interrupt requested meanwhile makes it `interrupted` instead. Safe from several processes:
 * each end is a guarded transition.
 */
export async function sweepAbandonedRuns(db: Database, opts: { graceMs: number; events?: EventBus; limit?: number }): Promise<number> {
  const graceSecs = opts.graceMs / 1000;
  const { rows } = await sql<{ id: string; failed: boolean; lastError: string | null; maxDurationMs: number }>`
    SELECT r.id,
      (j.id IS NULL OR (j.locked_at IS NULL AND j.attempts >= j.max_attempts)) AS failed,
      coalesce(j.last_error, f.last_error) AS last_error,
      coalesce((r.agent_snapshot->>'maxDurationMs')::int, ${agentMaxDurationOf('r.agent_id')}) AS max_duration_ms
    FROM agent_runs r
    LEFT JOIN graphile_worker.jobs j ON j.key = ${agentRunJobKey('')} || r.id::text
    LEFT JOIN LATERAL (
      SELECT jf.last_error FROM job_failures jf
      WHERE jf.task_identifier = ${agentRunJob.name} AND jf.payload->>'runId' = r.id::text
      ORDER BY jf.failed_at DESC LIMIT 1
    ) f ON j.id IS NULL
    WHERE r.status IN ('waiting', 'running')
      AND (
        j.id IS NULL
        OR (j.locked_at IS NULL AND j.attempts >= j.max_attempts)
        OR (r.status = 'running'
            AND coalesce(j.locked_at, r.updated_at) < now() - make_interval(secs => coalesce((r.agent_snapshot->>'maxDurationMs')::int, ${agentMaxDurationOf('r.agent_id')}) / 1000.0 + ${graceSecs}))
      )
    ORDER BY r.queued_at
    LIMIT ${opts.limit ?? 100}`.execute(db);
  let ended = 0;
  for (const r of rows) {
    const reason = r.failed ? jobFailedMessage(r.lastError) : overdueMessage(r.maxDurationMs);
    if (await endAbandonedRun(db, r.id, reason, opts.events ?? noEvents)) ended++;
  }
  return ended;
}
