import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { Database, Queryable } from '../../../platform/db/database.js';
import type { RequestContext } from '../../../platform/context.js';
import { writeAudit } from '../../../platform/audit.js';
import { NotFoundError } from '../../../platform/http/errors.js';
import { iso } from '../../../platform/time.js';
import type { IocListQueryT } from './iocs.schemas.js';

const ROW_COLUMNS = ['id', 'value', 'type', 'itemId', 'intelTitle', 'sourceLabel', 'status', 'lastCheckedAt'] as const;

function toRow(r: { id: string; value: string; type: string; itemId: string; intelTitle: string; sourceLabel: string; status: 'found' | 'clean' | 'unchecked' | 'unknown'; lastCheckedAt: Date | null }) {
  return { id: r.id, value: r.value, type: r.type, intelItemId: r.itemId, intelTitle: r.intelTitle, sourceLabel: r.sourceLabel, status: r.status, lastCheckedAt: iso(r.lastCheckedAt) };
}

/** Escape LIKE wildcards so a search for "a_b%" means exactly that. */
function likePattern(s: string): string {
  return `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The flattened indicator list. Each indicator row carries its current status (the latest
 * check's outcome), so filtering and counting are plain indexed queries: at 1,000,000 rows the
 * status/type index and the trigram index on normalized_value keep it fast.
 */
export function createIocsService(deps: { db: Database }) {
  const { db } = deps;

  function filtered(q: Queryable, orgId: string, query: IocListQueryT) {
    let b = q.selectFrom('intelIndicators').where('organizationId', '=', orgId);
    if (query.type) b = b.where('type', '=', query.type.toLowerCase());
    if (query.search) b = b.where(sql<boolean>`normalized_value ILIKE ${likePattern(query.search)}`);
    return b;
  }

  return {
    async list(ctx: RequestContext, query: IocListQueryT) {
      const orgId = ctx.actor.organizationId;
      const withStatus = query.status ? filtered(db, orgId, query).where('status', '=', query.status) : filtered(db, orgId, query);
      const [rows, counts, types] = await Promise.all([
        withStatus
          .select(ROW_COLUMNS)
          .orderBy('createdAt', 'desc')
          .orderBy('id', 'desc')
          .limit(query.perPage)
          .offset((query.page - 1) * query.perPage)
          .execute(),
        filtered(db, orgId, query).select(['status', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('status').execute(),
        // Distinct types through a loose index scan would be faster still; a GROUP BY on the
        // (organization_id, status, type) index is enough at this scale.
        db.selectFrom('intelIndicators').select('type').distinct().where('organizationId', '=', orgId).orderBy('type').execute(),
      ]);
      const statusCounts = { found: 0, clean: 0, unchecked: 0, unknown: 0 };
      for (const c of counts) statusCounts[c.status] = Number(c.n);
      const total = query.status ? statusCounts[query.status] : Object.values(statusCounts).reduce((a, b) => a + b, 0);
      return {
        rows: rows.map(toRow),
        total,
        page: query.page,
        perPage: query.perPage,
        hasNext: query.page * query.perPage < total,
        statusCounts,
        availableTypes: types.map((t) => t.type),
      };
    },

    /** Records a check; the indicator's status becomes the outcome of its most recent check. */
    async recordCheck(ctx: RequestContext, id: string, input: { outcome: 'found' | 'clean' | 'unknown'; evidence?: string | undefined; checkedAt?: string | undefined }) {
      const orgId = ctx.actor.organizationId;
      return db.transaction().execute(async (tx) => {
        const ioc = await tx.selectFrom('intelIndicators').select(['id', 'lastCheckedAt']).where('organizationId', '=', orgId).where('id', '=', id).forUpdate().executeTakeFirst();
        if (!ioc) throw new NotFoundError('Indicator');
        const checkedAt = input.checkedAt ? new Date(input.checkedAt) : new Date();
        const checkId = uuidv7();
        await tx
          .insertInto('intelIndicatorChecks')
          .values({ id: checkId, organizationId: orgId, indicatorId: id, outcome: input.outcome, evidence: input.evidence ?? null, checkedAt, createdBy: ctx.actor.userId, createdAt: new Date() })
          .execute();
        // A late report of an older check does not override a newer one.
        if (!ioc.lastCheckedAt || ioc.lastCheckedAt.getTime() <= checkedAt.getTime()) {
          await tx.updateTable('intelIndicators').set({ status: input.outcome, lastCheckedAt: checkedAt }).where('id', '=', id).execute();
        }
        await writeAudit(tx, ctx, { action: 'ioc.check', resourceType: 'indicator', resourceId: id, metadata: { outcome: input.outcome } });
        const row = await tx.selectFrom('intelIndicators').select(ROW_COLUMNS).where('id', '=', id).executeTakeFirstOrThrow();
        return { id: checkId, indicatorId: id, outcome: input.outcome, evidence: input.evidence ?? null, checkedAt: iso(checkedAt), ioc: toRow(row) };
      });
    },
  };
}

export type IocsService = ReturnType<typeof createIocsService>;
