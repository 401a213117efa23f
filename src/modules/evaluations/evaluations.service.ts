import { uuidv7 } from 'uuidv7';
import type { Database, Queryable } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import type { SecretBox } from '../../platform/secrets.js';
import { writeAudit } from '../../platform/audit.js';
import { BadRequestError, ConflictError, NotFoundError, ValidationError } from '../../platform/http/errors.js';
import { iso } from '../../platform/time.js';
import { findAgentRow } from '../agents/index.js';
import { resolveModel } from '../models/index.js';
import { findDataset, listCases } from './datasets.repo.js';
import { evaluatedAgent } from './agent-version.adapter.js';
import { finishIfDone, startPendingCases } from './evaluation.flow.js';
import { changedCases, summarize } from './evaluations.fns.js';
import { findEvaluation, listEvaluations, listResults, readJudgeModel, writeJudgeModel, type EvaluationRow, type ResultRow, inCallOrder, type ToolCallRecordT } from './evaluations.repo.js';
import type { CaseInputT, CaseResultDto, DispositionT, EvaluationDto, EvaluationSummaryDto } from './evaluations.schemas.js';
import { shadowOfCase } from './shadow.fns.js';

const titleOf = (c: CaseInputT): string => c.alert?.title ?? (typeof c.input === 'string' ? c.input : JSON.stringify(c.input ?? null)).slice(0, 200);

function toCaseResult(r: ResultRow): CaseResultDto {
  const c = r.testCase as unknown as CaseInputT;
  return {
    caseId: r.caseId,
    position: r.position,
    status: r.status,
    runId: r.runId,
    title: titleOf(c),
    tags: c.tags,
    verdict: r.verdict as DispositionT | null,
    expected: c.expected,
    correct: r.correct,
    toolCalls: inCallOrder(r.recorded as ToolCallRecordT[]),
    tokens: { input: r.inputTokens, output: r.outputTokens, total: r.inputTokens + r.outputTokens },
    latencyMs: r.latencyMs,
    criteria: r.criteria as CaseResultDto['criteria'],
    error: r.error,
  };
}

const FINISHED = new Set(['done', 'error']);
const refuseFetch: typeof fetch = () => Promise.reject(new Error('not for calls'));

function toSummary(e: EvaluationRow, results: readonly ResultRow[]): EvaluationSummaryDto {
  const count = (s: string) => results.filter((r) => r.status === s).length;
  const facts = results.map((r) => ({
    finished: FINISHED.has(r.status),
    expected: (r.testCase as unknown as CaseInputT).expected.disposition ?? null,
    verdict: r.verdict as DispositionT | null,
    criteria: r.criteria as Array<{ met: boolean | null }>,
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    latencyMs: r.latencyMs,
  }));
  return {
    id: e.id,
    agentId: e.agentId,
    datasetId: e.datasetId,
    datasetName: e.datasetName,
    agentVersion: e.agentVersion,
    status: e.status,
    concurrency: e.concurrency,
    progress: { total: results.length, finished: facts.filter((f) => f.finished).length, running: count('running') + count('judging'), pending: count('pending') },
    summary: summarize(facts),
    createdAt: iso(e.createdAt)!,
    finishedAt: iso(e.finishedAt),
  };
}

/** Wrong cases first (the ones to read), then the rest, each in dataset order. */
function wrongFirst(cases: CaseResultDto[]): CaseResultDto[] {
  const rank = (c: CaseResultDto) => (c.correct === false || c.status === 'error' ? 0 : 1);
  return [...cases].sort((a, b) => rank(a) - rank(b) || a.position - b.position);
}

export function createEvaluationsService(deps: { db: Database; secrets: SecretBox }) {
  const { db } = deps;

  async function mustFind(q: Queryable, ctx: RequestContext, id: string, forUpdate = false): Promise<EvaluationRow> {
    const row = await findEvaluation(q, ctx.actor.organizationId, id, forUpdate);
    if (!row) throw new NotFoundError('Evaluation');
    return row;
  }

  async function get(ctx: RequestContext, id: string): Promise<EvaluationDto> {
    const e = await mustFind(db, ctx, id);
    const results = await listResults(db, [e.id]);
    return { ...toSummary(e, results), cases: wrongFirst(results.map(toCaseResult)) };
  }

  return {
    get,

    /** Creates the evaluation with one pending result per case and starts the first `concurrency` runs, in one transaction. */
    async start(ctx: RequestContext, agentId: string, body: { datasetId: string; version?: number | undefined; concurrency: number }): Promise<EvaluationDto> {
      const id = await db.transaction().execute(async (tx) => {
        const agent = await findAgentRow(tx, ctx.actor.organizationId, agentId);
        if (!agent) throw new NotFoundError('Agent');
        const dataset = await findDataset(tx, ctx.actor.organizationId, body.datasetId);
        if (!dataset) throw ValidationError.single('datasetId', `no dataset ${body.datasetId}`, 'unknown_reference');
        const cases = await listCases(tx, dataset.id);
        if (cases.length === 0) throw ValidationError.single('datasetId', 'the dataset has no cases', 'too_small');
        const pinned = await evaluatedAgent(tx, ctx.actor.organizationId, agentId, body.version);
        const snapshot = { acceptanceCriteria: agent.acceptanceCriteria, ...pinned.snapshot };
        const now = new Date();
        const evaluation = await tx
          .insertInto('evaluations')
          .values({
            id: uuidv7(),
            organizationId: ctx.actor.organizationId,
            agentId,
            datasetId: dataset.id,
            datasetName: dataset.name,
            agentVersion: pinned.version,
            agentSnapshot: JSON.stringify(snapshot),
            concurrency: body.concurrency,
            status: 'running',
            caseCount: cases.length,
            createdBy: ctx.actor.userId,
            createdAt: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        const rows = cases.map((c) => {
          const resultId = uuidv7();
          const testCase = { ...(c.alert ? { alert: c.alert } : { input: c.input }), expected: c.expected, tags: c.tags };
          return {
            id: resultId,
            organizationId: ctx.actor.organizationId,
            evaluationId: evaluation.id,
            caseId: c.id,
            position: c.position,
            testCase: JSON.stringify(testCase),
            status: 'pending' as const,
            shadow: c.alert ? JSON.stringify(shadowOfCase(c.alert as never, resultId, c.position, now)) : null,
          };
        });
        for (let i = 0; i < rows.length; i += 500) await tx.insertInto('evaluationResults').values(rows.slice(i, i + 500)).execute();
        await startPendingCases(tx, evaluation, evaluation.concurrency);
        await writeAudit(tx, ctx, { action: 'evaluation.start', resourceType: 'evaluation', resourceId: evaluation.id, metadata: { agentId, datasetId: dataset.id, cases: cases.length } });
        return evaluation.id;
      });
      return get(ctx, id);
    },

    async list(ctx: RequestContext, agentId: string, limit: number, offset: number) {
      if (!(await findAgentRow(db, ctx.actor.organizationId, agentId))) throw new NotFoundError('Agent');
      const { rows, total } = await listEvaluations(db, ctx.actor.organizationId, agentId, limit, offset);
      const results = await listResults(db, rows.map((r) => r.id));
      return { evaluations: rows.map((e) => toSummary(e, results.filter((r) => r.evaluationId === e.id))), totalCount: total };
    },

    /** Stops starting cases: those not started end as errors, those running finish and are recorded. */
    async cancel(ctx: RequestContext, id: string): Promise<EvaluationDto> {
      await db.transaction().execute(async (tx) => {
        const e = await mustFind(tx, ctx, id, true);
        if (e.status !== 'running') throw new ConflictError(`The evaluation is already ${e.status}`);
        await tx.updateTable('evaluations').set({ status: 'cancelled', finishedAt: new Date() }).where('id', '=', id).execute();
        await tx.updateTable('evaluationResults').set({ status: 'error', error: 'Cancelled before it ran', finishedAt: new Date() }).where('evaluationId', '=', id).where('status', '=', 'pending').execute();
        await writeAudit(tx, ctx, { action: 'evaluation.cancel', resourceType: 'evaluation', resourceId: id });
        await finishIfDone(tx, id);
      });
      return get(ctx, id);
    },

    async compare(ctx: RequestContext, aId: string, bId: string) {
      const [a, b] = await Promise.all([mustFind(db, ctx, aId), mustFind(db, ctx, bId)]);
      if (a.datasetId !== b.datasetId) throw new BadRequestError('The two evaluations are of different datasets: compare evaluations of the same dataset');
      const [ra, rb] = await Promise.all([listResults(db, [a.id]), listResults(db, [b.id])]);
      const side = (r: ResultRow) => {
        const c = r.testCase as unknown as CaseInputT;
        return { caseId: r.caseId, title: titleOf(c), expected: c.expected.disposition ?? null, runId: r.runId, verdict: r.verdict as DispositionT | null, correct: r.correct };
      };
      return { a: toSummary(a, ra), b: toSummary(b, rb), changed: changedCases(ra.map(side), rb.map(side)) };
    },

    async settings(ctx: RequestContext) {
      return { judgeModelAlias: await readJudgeModel(db, ctx.actor.organizationId) };
    },

    /** The judge model must be a configured alias (any provider). */
    async updateSettings(ctx: RequestContext, body: { judgeModelAlias: string | null }) {
      if (body.judgeModelAlias) {
        // Resolution only: the model is not called, so its fetch refuses.
        const resolved = await resolveModel({ db, secrets: deps.secrets, fetch: refuseFetch }, ctx.actor.organizationId, body.judgeModelAlias);
        if (!resolved.ok) throw ValidationError.single('judgeModelAlias', `no model alias "${body.judgeModelAlias}" is configured`, 'unknown_reference');
      }
      await db.transaction().execute(async (tx) => {
        await writeJudgeModel(tx, ctx.actor.organizationId, body.judgeModelAlias);
        await writeAudit(tx, ctx, { action: 'evaluationSettings.update', resourceType: 'evaluationSettings', metadata: { judgeModelAlias: body.judgeModelAlias } });
      });
      return { judgeModelAlias: body.judgeModelAlias };
    },
  };
}

export type EvaluationsService = ReturnType<typeof createEvaluationsService>;
