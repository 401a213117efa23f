import { sql } from 'kysely';
import type { Database } from '../../platform/db/database.js';
import { enqueue } from '../../platform/jobs/enqueue.js';
import { agentMaxConcurrentRunsOf } from '../agents/index.js';
import type { RunRow } from './runs.repo.js';
import { claimRun } from './run-state.js';
import { agentRunFlag, agentRunJob, agentRunJobKey } from './run.job-def.js';

/**
 * Fair scheduling of agent runs across agents (issue 46 item 3). graphile-worker takes due jobs
 * first in, first out: 200 queued runs of a slow agent would hold every slot until they are all
 * done, and a fast agent's run would wait behind them. Each run job carries its agent's flag
 * (`agent:<id>`, runs.enqueue.ts), and before each fetch a worker skips the flags of:
 *
 * - every agent with a run ready to start that holds more slots than the agent with a ready run
 *   holding the fewest: a free slot goes to the agent with the fewest running runs (round robin
 *   while several agents wait; one agent alone still gets every slot);
 * - every agent at its own `maxConcurrentRuns`.
 *
 * "Holding a slot" is a run job locked by a worker (of any process), "ready" a run job due and
 * not locked: what graphile-worker itself sees, so a run fetched but not yet marked `running`
 * counts, and a run without a job (`awaiting_approval`, finished) does not.
 *
 * The skip list is a hint read at fetch time (kept `reuseMs`, shared by concurrent fetches): two
 * workers fetching in the same instant can both take an agent's run. The agent's own limit is
 * enforced at the run's start instead (`claimRunWithinLimit`): under a per-agent lock, a run that
 * would exceed it goes back to the queue (`deferMs` later) without using an attempt.
 */
export interface RunFairShare {
  /** The flags to skip at a fetch (JobDefinition.skipFlags of the run job). */
  skipFlags(): Promise<readonly string[]>;
}

export function createRunFairShare(db: Database, opts: { reuseMs?: number } = {}): RunFairShare {
  const reuseMs = opts.reuseMs ?? 100;
  let last: { at: number; flags: readonly string[] } | null = null;
  let inFlight: Promise<readonly string[]> | null = null;
  return {
    skipFlags() {
      if (last && Date.now() - last.at < reuseMs) return Promise.resolve(last.flags);
      inFlight ??= agentsToSkip(db)
        .then((ids) => {
          last = { at: Date.now(), flags: ids.map(agentRunFlag) };
          return last.flags;
        })
        .finally(() => {
          inFlight = null;
        });
      return inFlight;
    },
  };
}

/** The agents whose ready runs a free slot must not take now (see createRunFairShare). */
async function agentsToSkip(db: Database): Promise<string[]> {
  const { rows } = await sql<{ agentId: string }>`
    WITH jobs AS (
      SELECT r.agent_id, (j.locked_at IS NOT NULL) AS busy
      FROM agent_runs r
      JOIN graphile_worker.jobs j ON j.key = ${agentRunJobKey('')} || r.id::text
      WHERE r.status IN ('waiting', 'running')
        AND (j.locked_at IS NOT NULL OR (j.run_at <= now() AND j.attempts < j.max_attempts))
    ),
    load AS (
      SELECT agent_id, count(*) FILTER (WHERE busy) AS busy, count(*) FILTER (WHERE NOT busy) AS ready
      FROM jobs GROUP BY agent_id
    )
    SELECT l.agent_id::text AS agent_id
    FROM load l
    WHERE l.ready > 0
      AND (l.busy > (SELECT min(busy) FROM load WHERE ready > 0)
        OR l.busy >= coalesce(${agentMaxConcurrentRunsOf(sql.ref('l.agent_id'))}, 2147483647))`.execute(db);
  return rows.map((r) => r.agentId);
}

/** What the run's start found: the run claimed, nothing to run (finished or gone), or its agent at its limit. */
export type RunClaim = { kind: 'claimed'; run: RunRow } | { kind: 'gone' } | { kind: 'deferred' };

/**
 * `claimRun`, within the agent's `maxConcurrentRuns`: the count and the claim under a lock per
 * agent (transaction-scoped), so two workers starting runs of one agent at once cannot both pass
 * the last free place. An agent without a limit takes no lock. Over the limit, the run's job is
 * queued again `deferMs` later under the same key (graphile-worker gives the job running now up
 * its key, and it completes) with a fresh attempt budget: waiting for a place is not a failure.
 */
export async function claimRunWithinLimit(db: Database, runId: string, opts: { deferMs?: number } = {}): Promise<RunClaim> {
  const claimed = await db.transaction().execute(async (tx): Promise<RunClaim> => {
    const { rows } = await sql<{ agentId: string; limit: number | null }>`
      SELECT r.agent_id::text AS agent_id, ${agentMaxConcurrentRunsOf(sql.ref('r.agent_id'))} AS limit
      FROM agent_runs r WHERE r.id = ${runId} AND r.status IN ('waiting', 'running')`.execute(tx);
    const found = rows[0];
    if (!found) return { kind: 'gone' };
    if (found.limit !== null) {
      await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`rampart:agent-run-slots:${found.agentId}`}, 0))`.execute(tx);
      const { rows: busy } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM agent_runs WHERE agent_id = ${found.agentId} AND status = 'running' AND id <> ${runId}`.execute(tx);
      if ((busy[0]?.n ?? 0) >= found.limit) {
        // A crashed attempt's run (still `running`) waits as `waiting`: it holds no place while it waits.
        await tx.updateTable('agentRuns').set({ status: 'waiting', updatedAt: new Date() }).where('id', '=', runId).where('status', '=', 'running').execute();
        await enqueue(tx, agentRunJob, { runId }, { jobKey: agentRunJobKey(runId), runAt: new Date(Date.now() + (opts.deferMs ?? 1_000)), flags: [agentRunFlag(found.agentId)] });
        return { kind: 'deferred' };
      }
    }
    const run = await claimRun(tx, runId);
    return run ? { kind: 'claimed', run } : { kind: 'gone' };
  });
  return claimed;
}
