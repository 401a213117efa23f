import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../platform/db/database.js';
import { enqueue } from '../../platform/jobs/enqueue.js';
import { findAgentRow } from '../agents/index.js';
import { enqueueRun, runOutcome, type EndedRun } from '../runs/index.js';
import { countActive, findResultOfRun, pendingResults, readJudgeModel } from './evaluations.repo.js';
import { verdictOf } from './evaluations.fns.js';
import { judgeCaseJob, judgeRunJob } from './evaluations.job-def.js';
import type { CaseInputT, DispositionT } from './evaluations.schemas.js';

/**
 * How an evaluation moves: it starts `concurrency` cases' runs when created; each case's run
 * ending (`run.ended`, in the run's transaction) records the case and starts the next pending
 * one, so at most `concurrency` runs are ever queued and nothing polls. Each step is in the
 * transaction of the change that caused it, and `run.ended` is emitted once per run, so a
 * retried job neither records a case twice nor starts an extra run.
 */

const NO_JUDGE = 'No judge model is set (PUT /api/evaluation-settings): the criteria were not graded';

/** The criteria a case is graded on: its own, then the agent's acceptance criteria. */
export function caseCriteria(testCase: CaseInputT, agentSnapshot: Record<string, unknown>): string[] {
  const own = testCase.expected.criteria ?? [];
  const agent = Array.isArray(agentSnapshot.acceptanceCriteria) ? (agentSnapshot.acceptanceCriteria as string[]) : [];
  return [...new Set([...own, ...agent])];
}

/** Starts the runs of up to `n` pending cases of the evaluation (the caller holds its row lock). */
export async function startPendingCases(tx: Queryable, evaluation: { id: string; organizationId: string; agentId: string; agentSnapshot: Record<string, unknown>; createdBy: string | null }, n: number): Promise<void> {
  for (const r of await pendingResults(tx, evaluation.id, n)) {
    const testCase = r.testCase as unknown as CaseInputT;
    const runId = uuidv7();
    await tx.updateTable('evaluationResults').set({ status: 'running', runId }).where('id', '=', r.id).execute();
    await enqueueRun(tx, {
      id: runId,
      organizationId: evaluation.organizationId,
      agentId: evaluation.agentId,
      mode: 'evaluation',
      // As a trigger's run gets the webhook body: the alert's payload.
      input: testCase.alert ? (testCase.alert.payload ?? null) : testCase.input,
      actorUserId: evaluation.createdBy,
      agentSnapshot: evaluation.agentSnapshot,
    });
  }
}

/** Ends the evaluation when no case is left to run or grade (the caller holds its row lock). */
export async function finishIfDone(tx: Queryable, evaluationId: string): Promise<void> {
  const { unfinished } = await countActive(tx, evaluationId);
  if (unfinished > 0) return;
  await tx.updateTable('evaluations').set({ status: 'done', finishedAt: new Date() }).where('id', '=', evaluationId).where('status', '=', 'running').execute();
}

export async function recordCaseRun(tx: Queryable, run: EndedRun): Promise<void> {
  const found = await findResultOfRun(tx, run.organizationId, run.runId);
  if (!found) return;
  // The evaluation's lock orders its bookkeeping: the last two cases ending at once cannot both miss the end.
  const evaluation = await tx.selectFrom('evaluations').selectAll().where('id', '=', found.evaluationId).forUpdate().executeTakeFirst();
  const result = await findResultOfRun(tx, run.organizationId, run.runId, true);
  if (!evaluation || !result || result.status !== 'running') return;
  const outcome = await runOutcome(tx, run.organizationId, run.runId);
  const testCase = result.testCase as unknown as CaseInputT;
  const structured = outcome?.result?.structuredOutputResult ? (JSON.parse(outcome.result.structuredOutputResult) as unknown) : null;
  const verdict = run.status === 'done' ? verdictOf(result.shadow?.statusSet ?? null, structured) : null;
  const expected: DispositionT | undefined = testCase.expected.disposition;
  const latencyMs = outcome?.startedAt && outcome.finishedAt ? outcome.finishedAt.getTime() - outcome.startedAt.getTime() : null;
  const criteria = caseCriteria(testCase, evaluation.agentSnapshot);
  const judge = run.status === 'done' && criteria.length > 0 ? await readJudgeModel(tx, run.organizationId) : null;
  const status = run.status !== 'done' ? 'error' : judge ? 'judging' : 'done';
  await tx
    .updateTable('evaluationResults')
    .set({
      status,
      verdict,
      correct: expected ? verdict === expected : null,
      inputTokens: outcome?.inputTokens ?? 0,
      outputTokens: outcome?.outputTokens ?? 0,
      latencyMs,
      error: run.status === 'done' ? null : `The run ended ${run.status}${run.statusMessage ? `: ${run.statusMessage}` : ''}`,
      criteria: JSON.stringify(judge || run.status !== 'done' ? [] : criteria.map((criterion) => ({ criterion, met: null, explanation: NO_JUDGE }))),
      finishedAt: status === 'judging' ? null : new Date(),
    })
    .where('id', '=', result.id)
    .execute();
  if (judge) await enqueue(tx, judgeCaseJob, { resultId: result.id }, { jobKey: `judge-case:${result.id}` });
  if (evaluation.status === 'running') await startPendingCases(tx, evaluation, 1);
  await finishIfDone(tx, evaluation.id);
}

/** A real run whose agent has acceptance criteria is graded by the judge, when the organization has one. */
export async function queueRunJudging(tx: Queryable, run: EndedRun): Promise<void> {
  if (run.status === 'interrupted') return; // stopped by a person: nothing to grade
  const agent = await findAgentRow(tx, run.organizationId, run.agentId);
  if (!agent || agent.acceptanceCriteria.length === 0) return;
  if (!(await readJudgeModel(tx, run.organizationId))) return;
  await enqueue(tx, judgeRunJob, { runId: run.runId, organizationId: run.organizationId }, { jobKey: `judge-run:${run.runId}` });
}
