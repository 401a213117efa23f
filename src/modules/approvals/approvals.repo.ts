import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';
import type { ToolApprovalStatus, ToolApprovalsTable } from './approvals.tables.js';

/**
 * SQL over `tool_approvals`. Every state change is one guarded UPDATE (`WHERE status = <from>`),
 * so of two actors racing for one transition exactly one wins (docs/approvals.md#exactly-once).
 */
export type ApprovalRow = Selectable<ToolApprovalsTable>;

export interface NewApproval {
  id: string;
  organizationId: string;
  runId: string;
  agentId: string;
  alertId: string | null;
  toolCallId: string;
  toolName: string;
  args: unknown;
  reason: string;
  requestedAt: Date;
  expiresAt: Date;
}

export async function insertApprovals(tx: Queryable, rows: readonly NewApproval[]): Promise<ApprovalRow[]> {
  if (rows.length === 0) return [];
  return tx
    .insertInto('toolApprovals')
    .values(rows.map((r) => ({ ...r, args: JSON.stringify(r.args ?? null) })))
    .onConflict((oc) => oc.columns(['runId', 'toolCallId']).doNothing())
    .returningAll()
    .execute();
}

export async function findApprovalRow(db: Queryable, organizationId: string, id: string): Promise<ApprovalRow | undefined> {
  return db.selectFrom('toolApprovals').selectAll().where('organizationId', '=', organizationId).where('id', '=', id).executeTakeFirst();
}

/** By id alone: Slack's interaction names the request, and the organization comes from it. */
export async function findApprovalById(db: Queryable, id: string): Promise<ApprovalRow | undefined> {
  return db.selectFrom('toolApprovals').selectAll().where('id', '=', id).executeTakeFirst();
}

export interface ApprovalFilter {
  status?: ToolApprovalStatus | undefined;
  runId?: string | undefined;
  alertId?: string | undefined;
  agentId?: string | undefined;
}

export async function listApprovalRows(db: Queryable, organizationId: string, f: ApprovalFilter, limit: number, offset: number): Promise<{ rows: ApprovalRow[]; total: number }> {
  let q = db.selectFrom('toolApprovals').where('organizationId', '=', organizationId);
  if (f.status) q = q.where('status', '=', f.status);
  if (f.runId) q = q.where('runId', '=', f.runId);
  if (f.alertId) q = q.where('alertId', '=', f.alertId);
  if (f.agentId) q = q.where('agentId', '=', f.agentId);
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('requestedAt', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** pending → approved | denied, if still pending and not past its expiry; undefined when another decision (or the clock) came first. */
export async function decidePending(
  tx: Queryable,
  id: string,
  d: { status: 'approved' | 'denied'; userId: string; userName: string; via: 'console' | 'api' | 'slack'; comment: string | null },
): Promise<ApprovalRow | undefined> {
  const now = new Date();
  return tx
    .updateTable('toolApprovals')
    .set({ status: d.status, decidedAt: now, decidedByUserId: d.userId, decidedByName: d.userName, decidedVia: d.via, comment: d.comment })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('expiresAt', '>', now)
    .returningAll()
    .executeTakeFirst();
}

/** pending → expired for requests past their expiry (all, or the one `id`), returning those it expired. */
export async function expirePending(tx: Queryable, opts: { id?: string; limit?: number } = {}): Promise<ApprovalRow[]> {
  const now = new Date();
  const due = tx
    .selectFrom('toolApprovals')
    .select('id')
    .where('status', '=', 'pending')
    .where('expiresAt', '<=', now)
    .$if(opts.id !== undefined, (q) => q.where('id', '=', opts.id!))
    .orderBy('expiresAt')
    .limit(opts.limit ?? 500)
    .forUpdate()
    .skipLocked();
  return tx
    .updateTable('toolApprovals')
    .set({ status: 'expired', decidedAt: now, decidedVia: 'expiry', comment: null })
    .where('id', 'in', due)
    .where('status', '=', 'pending')
    .returningAll()
    .execute();
}

/** The run's requests still pending (the run resumes when there are none). */
export async function pendingCountOfRun(tx: Queryable, runId: string): Promise<number> {
  const r = await tx.selectFrom('toolApprovals').select((eb) => eb.fn.countAll<string>().as('n')).where('runId', '=', runId).where('status', '=', 'pending').executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function approvalsOfRunCalls(db: Queryable, runId: string, toolCallIds: readonly string[]): Promise<ApprovalRow[]> {
  if (toolCallIds.length === 0) return [];
  return db.selectFrom('toolApprovals').selectAll().where('runId', '=', runId).where('toolCallId', 'in', [...toolCallIds]).execute();
}

/** approved → executing: committed before the call, so a crash during it is seen as `executing` (→ outcome_unknown), never run again. */
export async function claimExecution(db: Queryable, id: string): Promise<boolean> {
  const r = await db.updateTable('toolApprovals').set({ status: 'executing', executedAt: new Date() }).where('id', '=', id).where('status', '=', 'approved').executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** executing → executed | failed | outcome_unknown, with what the model is given. */
export async function recordOutcome(db: Queryable, id: string, status: 'executed' | 'failed' | 'outcome_unknown', outcome: Record<string, unknown>): Promise<boolean> {
  const r = await db.updateTable('toolApprovals').set({ status, outcome: JSON.stringify(outcome) }).where('id', '=', id).where('status', '=', 'executing').executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** The run ended without them (interrupted): its pending requests are denied, naming why. */
export async function closePendingOfRun(tx: Queryable, runId: string, comment: string): Promise<number> {
  const r = await tx
    .updateTable('toolApprovals')
    .set({ status: 'denied', decidedAt: new Date(), comment })
    .where('runId', '=', runId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Decision times and counts for Insights-like summaries (approvals' own numbers). */
export async function approvalStats(db: Queryable, organizationId: string, since: Date) {
  const { rows } = await sql<{ agentId: string; toolName: string; approved: number; denied: number; expired: number; pending: number; p50Seconds: number | null; p90Seconds: number | null }>`
    SELECT agent_id, tool_name,
      count(*) FILTER (WHERE status IN ('approved', 'executing', 'executed', 'failed', 'outcome_unknown'))::int AS approved,
      count(*) FILTER (WHERE status = 'denied')::int AS denied,
      count(*) FILTER (WHERE status = 'expired')::int AS expired,
      count(*) FILTER (WHERE status = 'pending')::int AS pending,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM decided_at - requested_at)) FILTER (WHERE decided_by_user_id IS NOT NULL) AS p50_seconds,
      percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM decided_at - requested_at)) FILTER (WHERE decided_by_user_id IS NOT NULL) AS p90_seconds
    FROM tool_approvals
    WHERE organization_id = ${organizationId} AND (requested_at >= ${since} OR status = 'pending')
    GROUP BY agent_id, tool_name
    ORDER BY agent_id, tool_name`.execute(db);
  return rows;
}
