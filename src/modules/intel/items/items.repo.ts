import { sql, type ExpressionBuilder } from 'kysely';
import type { Queryable } from '../../../platform/db/database.js';
import type { DB } from '../../../platform/db/schema.js';
import type { ItemListQueryT } from './items.schemas.js';
import { searchTerms } from './search-terms.fns.js';

export const RELEVANT_THRESHOLD = 40;

const ITEM_COLUMNS = [
  'i.id', 'i.organizationId', 'i.sourceId', 'i.externalId', 'i.title', 'i.url', 'i.publisher', 'i.publishedAt', 'i.sourceUpdatedAt', 'i.language',
  'i.version', 'i.status', 'i.createdAt', 'i.updatedAt', 'i.processedAt', 'i.severity', 'i.relevance', 'i.platforms', 'i.summary', 'i.tldr',
  'i.abstract', 'i.attackPath', 'i.classification', 'i.affectedProducts', 'i.iocs', 'i.provenance', 'i.droppedCandidates', 'i.eventConfidence',
  'i.canonicalKey', 'i.duplicateOf', 'i.tags', 's.displayName as sourceName',
] as const;

function base(db: Queryable, organizationId: string) {
  return db.selectFrom('intelItems as i').innerJoin('intelSources as s', 's.id', 'i.sourceId').where('i.organizationId', '=', organizationId);
}

export type ItemRow = Awaited<ReturnType<typeof findItemRow>> & {};

export async function findItemRow(db: Queryable, organizationId: string, id: string) {
  return base(db, organizationId).select(ITEM_COLUMNS).where('i.id', '=', id).executeTakeFirst();
}

/** The stored text (read only for one item's detail: it is the widest column). */
export async function findItemText(db: Queryable, organizationId: string, id: string): Promise<string | undefined> {
  const row = await db.selectFrom('intelItems').select('contentText').where('organizationId', '=', organizationId).where('id', '=', id).executeTakeFirst();
  return row?.contentText;
}

/**
 * The text search (see searchTerms): full text over title and text (a structured record's: title,
 * ids and package names, migration 0110), with the term as given and
 * refanged, OR the items whose indicators have the term's normalized value. The indicator ids
 * come first as an array (an InitPlan over intel_indicators_org_value_idx), so the planner can
 * OR a primary-key lookup with the full-text GIN scan instead of filtering every item.
 */
function searchCondition(organizationId: string, search: string) {
  const { refanged, indicatorValues } = searchTerms(search);
  const query = refanged === search ? sql`websearch_to_tsquery('simple', ${search})` : sql`(websearch_to_tsquery('simple', ${search}) || websearch_to_tsquery('simple', ${refanged}))`;
  const text = sql<boolean>`intel_item_search(i.title, i.content_text, i.vulnerability) @@ ${query}`;
  if (indicatorValues.length === 0) return text;
  return sql<boolean>`(${text} OR i.id = ANY(ARRAY(
    SELECT item_id FROM intel_indicators WHERE organization_id = ${organizationId} AND normalized_value = ANY(${indicatorValues}::text[]))))`;
}

function applyFilters(organizationId: string, q: ItemListQueryT, sourceIds: string[] | null) {
  return (eb: ExpressionBuilder<DB & { i: DB['intelItems']; s: DB['intelSources'] }, 'i' | 's'>) => {
    const conds = [];
    if (q.severity) conds.push(eb('i.severity', '=', q.severity));
    if (q.status) conds.push(eb('i.status', '=', q.status));
    if (q.platform) conds.push(eb(sql.val(q.platform.toLowerCase()), '=', eb.fn.any('i.platforms')));
    if (sourceIds) conds.push(sourceIds.length ? eb('i.sourceId', 'in', sourceIds) : sql<boolean>`false`);
    if (q.search) conds.push(searchCondition(organizationId, q.search));
    const min = q.minRelevance ?? (q.scope === 'relevant' ? RELEVANT_THRESHOLD : undefined);
    if (min !== undefined) conds.push(eb('i.relevance', '>=', min));
    if (q.scope === 'relevant') conds.push(eb('i.duplicateOf', 'is', null));
    return eb.and(conds);
  };
}

export async function listItemRows(db: Queryable, organizationId: string, q: ItemListQueryT, sourceIds: string[] | null) {
  const filtered = base(db, organizationId).where(applyFilters(organizationId, q, sourceIds));
  const [rows, severity, sources] = await Promise.all([
    filtered
      .select(ITEM_COLUMNS)
      .orderBy(sql`coalesce(i.published_at, i.created_at)`, 'desc')
      .orderBy('i.id', 'desc')
      .limit(q.perPage)
      .offset((q.page - 1) * q.perPage)
      .execute(),
    filtered.select(['i.severity', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('i.severity').execute(),
    filtered.select(['s.id', 's.displayName as name', (eb) => eb.fn.countAll<number>().as('n')]).groupBy(['s.id', 's.displayName']).orderBy('n', 'desc').execute(),
  ]);
  const total = severity.reduce((sum, r) => sum + Number(r.n), 0);
  return { rows, total, severity, sources };
}

/** Source filter: an id or a (display) name, among the sources this organization sees. */
export async function resolveSourceFilter(db: Queryable, organizationId: string, source: string): Promise<string[]> {
  const rows = await db
    .selectFrom('intelSources')
    .select('id')
    .where((eb) => eb.or([eb('organizationId', '=', organizationId), eb('organizationId', 'is', null)]))
    .where((eb) =>
      /^[0-9a-f-]{36}$/i.test(source)
        ? eb('id', '=', source.toLowerCase())
        : eb.or([eb(eb.fn('lower', ['name']), '=', source.toLowerCase()), eb(eb.fn('lower', ['displayName']), '=', source.toLowerCase())]),
    )
    .execute();
  return rows.map((r) => r.id);
}
