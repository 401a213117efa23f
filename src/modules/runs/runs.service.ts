import type { Database } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import { closeRunApprovals } from '../approvals/index.js';
import { writeAudit } from '../../platform/audit.js';
import { ConflictError, NotFoundError, ValidationError, type ValidationIssue } from '../../platform/http/errors.js';
import { iso } from '../../platform/time.js';
import { findAgentRow, inputProblems, type AgentInputSpecT, type AgentRow } from '../agents/index.js';
import { deliveriesOfRun } from '../delivery/index.js';
import { enqueueRun } from './runs.enqueue.js';
import { findRunById, findRunRow, listRunRows, type RunRow } from './runs.repo.js';
import type { RunResult } from './run-result.fns.js';
import type { RunDetailDto, RunListQueryT, RunSummaryDto, TriggerContextT } from './runs.schemas.js';

const TERMINAL = new Set(['done', 'error', 'interrupted']);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function toSummary(r: RunRow): RunSummaryDto {
  return {
    id: r.id,
    agentId: r.agentId,
    agentVersion: r.agentVersion,
    status: r.status,
    statusMessage: r.statusMessage,
    mode: r.mode,
    triggerId: r.triggerId,
    triggerSource: r.triggerSource,
    alertId: r.alertId,
    alertDisplayId: r.alertDisplayId,
    stepCount: r.stepCount,
    usage: { inputTokens: r.inputTokens, outputTokens: r.outputTokens, totalTokens: r.inputTokens + r.outputTokens },
    attemptCount: r.attemptCount,
    queuedAt: iso(r.queuedAt),
    startedAt: iso(r.startedAt),
    finishedAt: iso(r.finishedAt),
    evalScore: r.evalScore,
  };
}

type RunDeliveryRow = Awaited<ReturnType<typeof deliveriesOfRun>>[number];

function toDetail(r: RunRow, deliveries: RunDeliveryRow[]): RunDetailDto {
  const ended = r.startedAt && r.finishedAt ? r.finishedAt.getTime() - r.startedAt.getTime() : null;
  return {
    ...toSummary(r),
    input: r.input,
    triggerContext: (r.triggerContext as TriggerContextT | null) ?? null,
    interruptRequestedAt: iso(r.interruptRequestedAt),
    durationMs: ended,
    acceptanceCriteriaResults: (r.acceptanceCriteriaResults as RunDetailDto['acceptanceCriteriaResults']) ?? null,
    evalExplanation: r.evalExplanation,
    deliveries: deliveries.map((d) => ({ ...d, createdAt: iso(d.createdAt)!, lastAttemptAt: iso(d.lastAttemptAt), nextAttemptAt: iso(d.nextAttemptAt), finishedAt: iso(d.finishedAt) })),
    result: TERMINAL.has(r.status) && r.result ? (r.result as unknown as RunResult) : null,
  };
}

/** What a run that ended before producing anything (interrupted while waiting) answers as its result. */
const NOTHING_YET: RunResult = { finalAssistantMessage: '', allToolCallsMade: [], allToolResultsReceived: [], messages: [] };

const statusView = (r: RunRow) => ({ status: r.status, ...(r.statusMessage ? { statusMessage: r.statusMessage } : {}) });

/** Named inputs the agent declares as required must be present, with the declared JSON type. */
function checkInputs(agent: AgentRow, input: unknown): void {
  const issues: ValidationIssue[] = inputProblems(agent.inputs as AgentInputSpecT[], input).map((p) => ({ path: `input.${p.name}`, message: p.message, code: p.code, location: 'body' }));
  if (issues.length) throw new ValidationError(issues);
}

export function createRunsService(deps: { db: Database }) {
  const { db } = deps;

  async function mustFindRun(ctx: RequestContext, agentId: string, runId: string): Promise<RunRow> {
    const run = await findRunRow(db, ctx.actor.organizationId, agentId, runId);
    if (!run) throw new NotFoundError('Run');
    return run;
  }

  /** Queues a run as the caller (its tools act with the caller's user's permissions). */
  async function start(ctx: RequestContext, agentId: string, input: unknown, mode: 'sync' | 'async'): Promise<string> {
    return db.transaction().execute(async (tx) => {
      const agent = await findAgentRow(tx, ctx.actor.organizationId, agentId);
      if (!agent) throw new NotFoundError('Agent');
      checkInputs(agent, input);
      const runId = await enqueueRun(tx, { organizationId: agent.organizationId, agentId, mode, input, actorUserId: ctx.actor.userId, actorApiKeyId: ctx.actor.apiKeyId });
      await writeAudit(tx, ctx, { action: 'agent.run', resourceType: 'agentRun', resourceId: runId, metadata: { agentId, mode } });
      return runId;
    });
  }

  return {
    async runAsync(ctx: RequestContext, agentId: string, input: unknown) {
      return { runId: await start(ctx, agentId, input, 'async') };
    },

    /** Queues the run and waits for it, up to `timeoutMs`; a run still going answers its status. */
    async runSync(ctx: RequestContext, agentId: string, input: unknown, timeoutMs: number) {
      const runId = await start(ctx, agentId, input, 'sync');
      const deadline = Date.now() + timeoutMs;
      for (let wait = 50; ; wait = Math.min(wait * 2, 500)) {
        const run = await mustFindRun(ctx, agentId, runId);
        if (TERMINAL.has(run.status) || Date.now() >= deadline) {
          const still = TERMINAL.has(run.status) ? {} : { statusMessage: `Still ${run.status} after ${timeoutMs} ms; poll /api/agents/${agentId}/run-async/${runId}/status` };
          return { runId, ...statusView(run), ...still, ...(TERMINAL.has(run.status) && run.result ? { result: run.result as unknown as RunResult } : {}) };
        }
        await sleep(Math.min(wait, Math.max(0, deadline - Date.now())));
      }
    },

    async status(ctx: RequestContext, agentId: string, runId: string) {
      return statusView(await mustFindRun(ctx, agentId, runId));
    },

    /** The result of any ended run: final when `done`, what it produced until it stopped otherwise. */
    async result(ctx: RequestContext, agentId: string, runId: string) {
      const run = await mustFindRun(ctx, agentId, runId);
      if (!TERMINAL.has(run.status)) {
        throw new ConflictError(`Run is ${run.status}; its result is available once it has ended (done, error or interrupted): poll /api/agents/${agentId}/run-async/${runId}/status`);
      }
      return { ...((run.result as unknown as RunResult | null) ?? NOTHING_YET), ...statusView(run) };
    },

    async get(ctx: RequestContext, runId: string): Promise<RunDetailDto> {
      const run = await findRunById(db, ctx.actor.organizationId, runId);
      if (!run) throw new NotFoundError('Run');
      return toDetail(run, await deliveriesOfRun(db, ctx.actor.organizationId, runId));
    },

    /** A waiting run stops at once; a running one at its next check (about a second). */
    async interrupt(ctx: RequestContext, agentId: string, runId: string) {
      return db.transaction().execute(async (tx) => {
        const run = await findRunRow(tx, ctx.actor.organizationId, agentId, runId, true);
        if (!run) throw new NotFoundError('Run');
        if (TERMINAL.has(run.status)) throw new ConflictError(`Run already finished (${run.status})`);
        const now = new Date();
        // A run awaiting approval holds no job: it ends now, and its pending requests are closed (denied, saying why).
        const awaiting = run.status === 'awaiting_approval';
        const waiting = run.status === 'waiting' || awaiting;
        const message = awaiting ? 'Interrupted while awaiting approval' : 'Interrupted before it started';
        await tx
          .updateTable('agentRuns')
          .set(waiting ? { status: 'interrupted', statusMessage: message, interruptRequestedAt: now, finishedAt: now, updatedAt: now } : { interruptRequestedAt: now, updatedAt: now })
          .where('id', '=', runId)
          .execute();
        if (awaiting) await closeRunApprovals(tx, runId, 'the run was interrupted');
        await writeAudit(tx, ctx, { action: 'agentRun.interrupt', resourceType: 'agentRun', resourceId: runId, metadata: { agentId } });
        return waiting
          ? { runId, status: 'interrupted' as const, statusMessage: message }
          : { runId, status: run.status, statusMessage: 'Interrupt requested; the run stops at its next check' };
      });
    },

    async list(ctx: RequestContext, q: RunListQueryT) {
      const { rows, total } = await listRunRows(db, ctx.actor.organizationId, q, q.pageSize, (q.page - 1) * q.pageSize);
      return { runs: rows.map(toSummary), totalCount: total, page: q.page, pageSize: q.pageSize, hasNext: q.page * q.pageSize < total };
    },
  };
}

export type RunsService = ReturnType<typeof createRunsService>;
