import type { Database } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import type { EventBus } from '../../platform/events.js';
import { writeAudit } from '../../platform/audit.js';
import { AppError, NotFoundError } from '../../platform/http/errors.js';
import { findAgentRow } from '../agents/index.js';
import { findDirectoryUser } from '../users/index.js';
import { decidePending, expirePending, findApprovalRow, listApprovalRows, type ApprovalRow } from './approvals.repo.js';
import { approvalEvent, approverRefusal, toApprovalDto, type ApproverSettings } from './approvals.fns.js';
import type { ApprovalDto, ApprovalListQueryT } from './approvals.schemas.js';
import './approvals.events.js';

/** Where a decision came from, audited with it. */
export type DecisionSource = 'console' | 'api' | 'slack';

/** 409: someone (or the clock) decided first; the body says who and what. */
export class AlreadyDecidedError extends AppError {
  constructor(row: ApprovalRow) {
    super(409, `This approval request was already decided (${row.status})`, {
      status: row.status,
      decidedBy: row.decidedByUserId || row.decidedByName ? { userId: row.decidedByUserId, name: row.decidedByName } : null,
      decidedAt: row.decidedAt ? row.decidedAt.toISOString() : null,
    });
  }
}

export function createApprovalsService(deps: { db: Database; events: EventBus; baseUrl: string }) {
  const { db, events, baseUrl } = deps;

  async function mustFind(ctx: RequestContext, id: string): Promise<ApprovalRow> {
    const row = await findApprovalRow(db, ctx.actor.organizationId, id);
    if (!row) throw new NotFoundError('Approval request');
    return row;
  }

  return {
    async list(ctx: RequestContext, q: ApprovalListQueryT) {
      const { rows, total } = await listApprovalRows(db, ctx.actor.organizationId, q, q.limit, q.offset);
      return { approvals: rows.map((r) => toApprovalDto(r, baseUrl)), totalCount: total };
    },

    async get(ctx: RequestContext, id: string): Promise<ApprovalDto> {
      return toApprovalDto(await mustFind(ctx, id), baseUrl);
    },

    /**
     * Approves or denies a pending request, once: of concurrent deciders exactly one wins (a
     * guarded UPDATE); the others get 409 naming the decision. A request past its expiry is
     * expired now (409). The agent's approvalSettings may restrict who decides (403). Audited
     * with its source; `approval.decided` (runs resume the run) in the same transaction.
     */
    async decide(ctx: RequestContext, id: string, decision: 'approved' | 'denied', comment: string | null, source: DecisionSource): Promise<ApprovalDto> {
      const row = await mustFind(ctx, id);
      if (row.status !== 'pending') throw new AlreadyDecidedError(row);
      const agent = await findAgentRow(db, ctx.actor.organizationId, row.agentId);
      const refusal = approverRefusal((agent?.approvalSettings ?? {}) as ApproverSettings, ctx.actor, agent ? (agent.updatedBy ?? agent.createdBy) : null);
      if (refusal) throw new AppError(403, refusal);
      const user = await findDirectoryUser(db, ctx.actor.organizationId, ctx.actor.userId);
      const userName = user?.name?.trim() || user?.email || ctx.actor.userId;
      const decided = await db.transaction().execute(async (tx) => {
        const won = await decidePending(tx, id, { status: decision, userId: ctx.actor.userId, userName, via: source, comment: comment || null });
        if (!won) {
          // Lost the race, or the request is past its expiry and the scheduler has not seen it yet.
          const [expired] = await expirePending(tx, { id });
          if (expired) await events.emit(tx, 'approval.decided', approvalEvent(expired));
          return { lost: expired ?? (await findApprovalRow(tx, ctx.actor.organizationId, id))!, won: undefined };
        }
        await writeAudit(tx, ctx, {
          action: decision === 'approved' ? 'approval.approve' : 'approval.deny',
          resourceType: 'approval',
          resourceId: id,
          metadata: { source, runId: won.runId, agentId: won.agentId, toolName: won.toolName, ...(won.comment ? { comment: won.comment } : {}) },
        });
        await events.emit(tx, 'approval.decided', approvalEvent(won));
        return { won, lost: undefined };
      });
      if (decided.lost) throw new AlreadyDecidedError(decided.lost);
      return toApprovalDto(decided.won!, baseUrl);
    },
  };
}

export type ApprovalsService = ReturnType<typeof createApprovalsService>;
