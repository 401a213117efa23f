import type { Queryable } from '../../platform/db/database.js';
import type { RunResult } from './run-result.fns.js';

/**
 * What other modules may read of a run (runs own `agent_runs`): the evaluations module reads an
 * ended run's outcome (an evaluation case's verdict, tokens and latency; the judge's
 * transcript). The judge's grading is a write: runs.repo.ts's `recordRunJudgement`.
 */
export async function runOutcome(db: Queryable, organizationId: string, runId: string) {
  const r = await db
    .selectFrom('agentRuns')
    .select(['id', 'agentId', 'mode', 'status', 'statusMessage', 'result', 'inputTokens', 'outputTokens', 'startedAt', 'finishedAt'])
    .where('organizationId', '=', organizationId)
    .where('id', '=', runId)
    .executeTakeFirst();
  if (!r) return undefined;
  return { ...r, result: (r.result as unknown as RunResult | null) ?? null };
}
export type RunOutcome = NonNullable<Awaited<ReturnType<typeof runOutcome>>>;
