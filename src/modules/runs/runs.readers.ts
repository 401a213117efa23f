import type { Queryable } from '../../platform/db/database.js';
import type { RunResult } from './run-result.fns.js';

/**
 * What other modules may read and record of a run (runs own `agent_runs`): the evaluations
 * module reads an ended run's outcome (an evaluation case's verdict, tokens and latency; the
 * judge's transcript) and records the judge's grading through `recordRunJudgement`.
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
