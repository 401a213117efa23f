import type { Database } from '../../../platform/db/database.js';
import type { RequestContext } from '../../../platform/context.js';
import { writeAudit } from '../../../platform/audit.js';
import { NotFoundError } from '../../../platform/http/errors.js';
import { iso } from '../../../platform/time.js';
import { applyIndicatorCheck } from './checks.store.js';
import { ROW_COLUMNS, toRow } from './ioc-row.fns.js';

export interface IocCheckInput {
  outcome: 'found' | 'clean' | 'unknown';
  evidence?: string | undefined;
  checkedAt?: string | undefined;
}

/**
 * POST /iocs/{id}/checks (IocsService.recordCheck): records a check of the indicator's value,
 * audited, in one transaction (checks.store.ts says how a value's status follows its checks).
 */
export async function recordIocCheck(db: Database, ctx: RequestContext, id: string, input: IocCheckInput) {
  const orgId = ctx.actor.organizationId;
  return db.transaction().execute(async (tx) => {
    const ioc = await tx.selectFrom('intelIndicators').select(['type', 'normalizedValue']).where('organizationId', '=', orgId).where('id', '=', id).executeTakeFirst();
    if (!ioc) throw new NotFoundError('Indicator');
    const checkedAt = input.checkedAt ? new Date(input.checkedAt) : new Date();
    const checkId = await applyIndicatorCheck(tx, orgId, { id, ...ioc }, { outcome: input.outcome, evidence: input.evidence ?? null, checkedAt, createdBy: ctx.actor.userId });
    await writeAudit(tx, ctx, { action: 'ioc.check', resourceType: 'indicator', resourceId: id, metadata: { outcome: input.outcome } });
    const row = await tx.selectFrom('intelIndicators').select(ROW_COLUMNS).where('id', '=', id).executeTakeFirstOrThrow();
    return { id: checkId, indicatorId: id, outcome: input.outcome, evidence: input.evidence ?? null, checkedAt: iso(checkedAt), ioc: toRow(row) };
  });
}
