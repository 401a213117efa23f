import { sql } from 'kysely';
import type { Database } from '../../platform/db/database.js';
import type { ExportFilters } from './objects.store.js';
import { allCollectionId } from './stix.fns.js';
import { containsPattern } from '../../platform/db/like.js';

/** One intel item with its served indicators: a STIX report, a MISP feed event. */
export interface ItemGroup {
  itemId: string;
  title: string;
  url: string | null;
  publishedAt: Date | null;
  createdAt: Date;
  /** When the item or what was extracted from it last changed. */
  changedAt: Date;
  severity: string;
  techniques: Array<{ technique: string; subTechnique?: string; techniqueName?: string }>;
  indicators: Array<{ type: string; value: string; modified: Date }>;
}

/** One (item, indicator) row: the item's fields with one of its indicators. */
type Row = Omit<ItemGroup, 'techniques' | 'indicators'> & ItemGroup['indicators'][number] & { attack: ItemGroup['techniques'] | null };

export interface GroupScope {
  sourceId?: string | undefined;
  itemId?: string | undefined;
  /** The export filters, applied to each indicator row (status and search per row). */
  filters?: ExportFilters | undefined;
}

const BATCH = 10_000;

/**
 * Items and their served (not revoked) indicators, item by item in id order, read in keyset
 * batches of indicator rows: constant memory whatever the number of items. Only indicators
 * that have a STIX object (intel_out_objects) are included, so every format serves the same set.
 */
export async function* walkItemGroups(db: Database, orgId: string, scope: GroupScope): AsyncGenerator<ItemGroup> {
  const f = scope.filters ?? {};
  let after: { itemId: string; type: string; value: string } | null = null;
  let current: ItemGroup | null = null;
  for (;;) {
    const result: { rows: Row[] } = await sql<Row>`
      SELECT i.item_id AS "itemId", i.type, i.normalized_value AS value, o.modified,
             it.title, it.url, it.published_at AS "publishedAt", it.created_at AS "createdAt",
             greatest(it.updated_at, coalesce(it.processed_at, it.updated_at)) AS "changedAt", it.severity,
             it.classification->'attack' AS attack
      FROM intel_indicators i
      JOIN intel_out_objects o ON o.organization_id = i.organization_id AND o.collection_id = ${allCollectionId(orgId)}
        AND o.type = i.type AND o.normalized_value = i.normalized_value AND NOT o.revoked
      JOIN intel_items it ON it.id = i.item_id
      WHERE i.organization_id = ${orgId}
        ${scope.sourceId ? sql`AND it.source_id = ${scope.sourceId}` : sql``}
        ${scope.itemId ? sql`AND i.item_id = ${scope.itemId}` : sql``}
        ${f.types?.length ? sql`AND i.type = ANY(${[...f.types]}::text[])` : sql``}
        ${f.search ? sql`AND i.normalized_value ILIKE ${containsPattern(f.search)}` : sql``}
        ${f.status ? sql`AND i.status = ${f.status}` : sql``}
        ${f.since ? sql`AND o.modified >= ${f.since}` : sql``}
        ${f.minConfidence !== undefined ? sql`AND o.confidence >= ${f.minConfidence}::real` : sql``}
        ${after ? sql`AND (i.item_id, i.type, i.normalized_value) > (${after.itemId}::uuid, ${after.type}, ${after.value})` : sql``}
      ORDER BY i.item_id, i.type, i.normalized_value
      LIMIT ${BATCH}`.execute(db);
    const rows = result.rows;
    for (const r of rows) {
      if (current && current.itemId !== r.itemId) {
        yield current;
        current = null;
      }
      current ??= {
        itemId: r.itemId,
        title: r.title,
        url: r.url,
        publishedAt: r.publishedAt,
        createdAt: r.createdAt,
        changedAt: r.changedAt,
        severity: r.severity,
        techniques: Array.isArray(r.attack) ? r.attack : [],
        indicators: [],
      };
      current.indicators.push({ type: r.type, value: r.value, modified: r.modified });
    }
    if (rows.length < BATCH) break;
    const last: Row = rows.at(-1)!;
    after = { itemId: last.itemId, type: last.type, value: last.value };
  }
  if (current) yield current;
}
