import { loadAiSdk } from '../../platform/ai-sdk.js';
import type { Logger } from 'pino';
import type { Database } from '../../platform/db/database.js';
import { defineJob, type JobDefinition } from '../../platform/jobs/catalog.js';
import { guardedFetch, type GuardedClient } from '../../platform/outbound/index.js';
import type { SecretBox } from '../../platform/secrets.js';
import { findAgentRow } from '../agents/index.js';
import { newEvent, queueDeliveries } from '../delivery/index.js';
import { resolveModel } from '../models/index.js';
import { recordRunJudgement, runOutcome, type RunOutcome } from '../runs/index.js';
import { caseCriteria, finishIfDone } from './evaluation.flow.js';
import { findResult, readJudgeModel } from './evaluations.repo.js';
import { judgeCaseJob, judgeRunJob } from './evaluations.job-def.js';
import { alignCriteria, JUDGE_SYSTEM, JudgeAnswer, judgePrompt, scoreOf } from './judge.fns.js';
import type { CaseInputT } from './evaluations.schemas.js';

export interface JudgeDeps {
  db: Database;
  secrets: SecretBox;
  http: GuardedClient;
  logger: Logger;
}

type Graded = { ok: true; criteria: Array<{ criterion: string; met: boolean | null; explanation: string }>; score: number; explanation: string } | { ok: false; message: string };

/** One judge call: the organization's judge model grades `criteria` on the run's transcript. Throws on a model failure (the job retries). */
async function grade(deps: JudgeDeps, organizationId: string, criteria: string[], run: RunOutcome, signal: AbortSignal, extra?: string): Promise<Graded> {
  const alias = await readJudgeModel(deps.db, organizationId);
  if (!alias) return { ok: false, message: 'No judge model is set (PUT /api/evaluation-settings)' };
  const fetch = guardedFetch(deps.http, { timeoutMs: 120_000, maxResponseBytes: 4 * 1024 * 1024 });
  const model = await resolveModel({ db: deps.db, secrets: deps.secrets, fetch }, organizationId, alias);
  if (!model.ok) return { ok: false, message: `The judge model is unavailable: ${model.message}` };
  // The SDK is loaded by the first judging, not at start-up (platform/ai-sdk.ts).
  const { generateText, Output } = await loadAiSdk();
  const result = await generateText({
    model: model.model,
    system: JUDGE_SYSTEM,
    prompt: judgePrompt(criteria, run, extra),
    output: Output.object({ schema: JudgeAnswer }),
    maxRetries: 2,
    abortSignal: signal,
  });
  const answer = result.output;
  return { ok: true, criteria: alignCriteria(criteria, answer), score: scoreOf(answer.score), explanation: answer.explanation.slice(0, 2000) };
}

/** The judge's jobs: a real run's acceptance criteria, an evaluation case's criteria. */
export function createJudgeJobs(deps: JudgeDeps): JobDefinition<any>[] {
  const judgeRun = defineJob({
    ...judgeRunJob,
    run: async ({ runId, organizationId }, job) => {
      const run = await runOutcome(deps.db, organizationId, runId);
      if (!run) return;
      const agent = await findAgentRow(deps.db, organizationId, run.agentId);
      if (!agent || agent.acceptanceCriteria.length === 0) return;
      const graded = await grade(deps, organizationId, agent.acceptanceCriteria, run, job.signal);
      if (!graded.ok) {
        job.logger.warn({ runId, reason: graded.message }, 'run not graded');
        return;
      }
      await deps.db.transaction().execute(async (tx) => {
        const recorded = await recordRunJudgement(tx, organizationId, runId, { results: graded.criteria, score: graded.score, explanation: graded.explanation });
        const failed = graded.criteria.filter((c) => c.met === false); // ungraded (null) is no failure
        if (!recorded || failed.length === 0 || !agent.notifyCriteriaFailed) return;
        // The run id is the event id: receivers see one criteria_failed per run.
        const event = newEvent(
          organizationId,
          'run.criteria_failed',
          {
            // title and message: what chat and ticket destinations show (delivery's generic rendering).
            title: `${agent.name}: a run failed ${failed.length} acceptance criteri${failed.length === 1 ? 'on' : 'a'} (score ${graded.score})`,
            message: failed.map((c) => `- ${c.criterion}: ${c.explanation}`).join('\n'),
            runId,
            agentId: agent.id,
            agentName: agent.name,
            evalScore: graded.score,
            evalExplanation: graded.explanation,
            failedCriteria: failed,
          },
          runId,
        );
        await queueDeliveries(tx, event, agent.outputDestinationIds);
      });
    },
  });

  /** Records the case's grading (or why there is none) and ends the evaluation if it was the last. */
  const recordCase = async (resultId: string, criteria: unknown[]) => {
    await deps.db.transaction().execute(async (tx) => {
      const found = await findResult(tx, resultId);
      if (!found) return;
      await tx.selectFrom('evaluations').select('id').where('id', '=', found.evaluationId).forUpdate().execute();
      const updated = await tx
        .updateTable('evaluationResults')
        .set({ status: 'done', criteria: JSON.stringify(criteria), finishedAt: new Date() })
        .where('id', '=', resultId)
        .where('status', '=', 'judging')
        .executeTakeFirst();
      if (updated.numUpdatedRows > 0n) await finishIfDone(tx, found.evaluationId);
    });
  };

  const judgeCase = defineJob({
    ...judgeCaseJob,
    run: async ({ resultId }, job) => {
      const result = await findResult(deps.db, resultId);
      if (!result || result.status !== 'judging' || !result.runId) return;
      const evaluation = await deps.db.selectFrom('evaluations').select('agentSnapshot').where('id', '=', result.evaluationId).executeTakeFirst();
      const run = await runOutcome(deps.db, result.organizationId, result.runId);
      if (!evaluation || !run) return;
      const criteria = caseCriteria(result.testCase as unknown as CaseInputT, evaluation.agentSnapshot);
      const extra = result.shadow ? `The alert as the agent left it: status ${result.shadow.status}, severity ${result.shadow.severity}.` : undefined;
      const graded = await grade(deps, result.organizationId, criteria, run, job.signal, extra);
      await recordCase(resultId, graded.ok ? graded.criteria : criteria.map((criterion) => ({ criterion, met: null, explanation: graded.message })));
    },
    // The judge failed for good: the case ends ungraded rather than hold its evaluation open.
    onFailed: async ({ resultId }, reason) => {
      const result = await findResult(deps.db, resultId);
      if (!result) return;
      const evaluation = await deps.db.selectFrom('evaluations').select('agentSnapshot').where('id', '=', result.evaluationId).executeTakeFirst();
      const criteria = caseCriteria(result.testCase as unknown as CaseInputT, evaluation?.agentSnapshot ?? {});
      await recordCase(resultId, criteria.map((criterion) => ({ criterion, met: null, explanation: `The judge failed: ${reason}`.slice(0, 500) })));
    },
  });

  return [judgeRun, judgeCase];
}
