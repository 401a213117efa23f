import { sql } from 'kysely';
import type { Database } from '../../platform/db/database.js';
import { allCollectionId, indicatorUuid, STIX_TYPES, type IndicatorFacts } from './stix.fns.js';
import { containsPattern } from '../../platform/db/like.js';

/**
 * The materialized STIX indicators (migration 0020): refreshed from the change queue the
 * intel_indicators triggers fill, read by the TAXII server and the MISP feed.
 */

/** Keys drained per transaction: bounded statements, and readers see progress on a large backlog. */
const REFRESH_BATCH = 5_000;

/**
 * Applies the pending changes of one organization. Serialized per organization by an advisory
 * lock; date_added comes from the database clock taken under that lock, so timestamps grow in
 * commit order and an incremental pull (`added_after`) never misses a change. When another
 * process is already refreshing, returns at once: the caller serves the committed state, and
 * the rest appears with later timestamps.
 */
export async function refreshObjects(db: Database, orgId: string): Promise<number> {
  let done = 0;
  for (;;) {
    const n = await db.transaction().execute(async (tx) => {
      const { rows: locked } = await sql<{ ok: boolean }>`SELECT pg_try_advisory_xact_lock(hashtext('rampart.intel-out'), hashtext(${orgId})) AS ok`.execute(tx);
      if (!locked[0]?.ok) return 0;
      const { rows: changes } = await sql<{ type: string; value: string }>`
        DELETE FROM intel_out_changes WHERE id IN (
          SELECT id FROM intel_out_changes WHERE organization_id = ${orgId} ORDER BY id LIMIT ${REFRESH_BATCH}
        ) RETURNING type, normalized_value AS value`.execute(tx);
      if (changes.length === 0) return 0;
      const keys = new Map<string, { type: string; value: string }>();
      for (const c of changes) if (STIX_TYPES.has(c.type)) keys.set(`${c.type}\u0000${c.value}`, { type: c.type, value: c.value });
      if (keys.size === 0) return changes.length;
      const list = [...keys.values()];
      const { rows: clock } = await sql<{ now: Date }>`SELECT date_trunc('milliseconds', clock_timestamp()) AS now`.execute(tx);
      const now = clock[0]!.now;
      await sql`
        WITH k AS (
          SELECT * FROM unnest(${list.map((k) => k.type)}::text[], ${list.map((k) => k.value)}::text[], ${list.map((k) => indicatorUuid(orgId, k.type, k.value))}::uuid[])
            AS k(type, normalized_value, stix_id)
        ),
        agg AS (
          SELECT k.type, k.normalized_value, k.stix_id,
                 CASE WHEN GROUPING(it.source_id) = 1 THEN ${allCollectionId(orgId)}::uuid ELSE it.source_id END AS collection_id,
                 min(i.created_at) AS created,
                 min(i.first_seen) AS valid_from,
                 max(i.last_seen + make_interval(days => i.ttl_days)) AS valid_until,
                 round(max(i.confidence) * 100)::smallint AS confidence,
                 array_agg(DISTINCT i.source_label ORDER BY i.source_label) AS labels
          FROM k
          JOIN intel_indicators i ON i.organization_id = ${orgId} AND i.type = k.type AND i.normalized_value = k.normalized_value
          JOIN intel_items it ON it.id = i.item_id
          GROUP BY GROUPING SETS ((k.type, k.normalized_value, k.stix_id), (k.type, k.normalized_value, k.stix_id, it.source_id))
        ),
        upserted AS (
          INSERT INTO intel_out_objects AS o (organization_id, collection_id, type, normalized_value, stix_id, created, modified, date_added, valid_from, valid_until, confidence, labels, revoked)
          SELECT ${orgId}, collection_id, type, normalized_value, stix_id, least(created, ${now}::timestamptz), ${now}, ${now}, valid_from, valid_until, confidence, labels, false FROM agg
          ON CONFLICT (organization_id, collection_id, type, normalized_value) DO UPDATE SET
            modified = excluded.modified, date_added = excluded.date_added, valid_from = excluded.valid_from,
            valid_until = excluded.valid_until, confidence = excluded.confidence, labels = excluded.labels, revoked = false
          WHERE (o.valid_from, o.valid_until, o.confidence, o.labels, o.revoked)
            IS DISTINCT FROM (excluded.valid_from, excluded.valid_until, excluded.confidence, excluded.labels, false)
          RETURNING 1
        )
        -- An indicator gone from a collection (its items deleted) is revoked there: a new version
        -- that tells consumers to drop it.
        UPDATE intel_out_objects o SET revoked = true, modified = ${now}, date_added = ${now}
        FROM k
        WHERE o.organization_id = ${orgId} AND o.stix_id = k.stix_id AND NOT o.revoked
          AND NOT EXISTS (SELECT 1 FROM agg a WHERE a.stix_id = o.stix_id AND a.collection_id = o.collection_id)`.execute(tx);
      return changes.length;
    });
    if (n === 0) return done;
    done += n;
  }
}

/** A position in a collection's date_added order: `at` is date_added as ISO text (ms, exact). */
export interface Position {
  at: string;
  seq: string;
}

/** What a block list needs: the value and the position. */
export interface ListRow extends Position {
  type: string;
  normalizedValue: string;
}

export interface ObjectRow extends ListRow {
  created: Date;
  modified: Date;
  dateAdded: Date;
  validFrom: Date;
  validUntil: Date | null;
  confidence: number;
  labels: string[];
  revoked: boolean;
}

export function factsOf(orgId: string, r: ObjectRow): IndicatorFacts {
  return { orgId, type: r.type, value: r.normalizedValue, created: r.created, modified: r.modified, validFrom: r.validFrom, validUntil: r.validUntil, confidence: r.confidence, labels: r.labels, revoked: r.revoked };
}

export interface PageQuery {
  collectionId: string;
  /** Inclusive: objects whose date_added is at or after it. */
  addedAfter?: Date | undefined;
  /** Strictly after this position (the `next` token). */
  after?: Position | undefined;
  stixIds?: string[] | undefined;
  /** Only these `modified` timestamps (match[version] with timestamps). */
  versions?: Date[] | undefined;
  /** The export filters (the /iocs ones, `since` and `minConfidence`); exports also leave revoked objects out. */
  filters?: ExportFilters | undefined;
  limit: number;
}

export interface ExportFilters {
  types?: readonly string[] | undefined;
  /** Some row of the indicator has this hunt status. */
  status?: string | undefined;
  search?: string | undefined;
  /** Changed (modified) at or after. */
  since?: Date | undefined;
  /** 0..100 */
  minConfidence?: number | undefined;
}

function filterSql(f: ExportFilters | undefined) {
  if (!f) return sql``;
  return sql`AND NOT o.revoked
      ${f.types?.length ? sql`AND o.type = ANY(${[...f.types]}::text[])` : sql``}
      ${f.search ? sql`AND o.normalized_value ILIKE ${containsPattern(f.search)}` : sql``}
      ${f.since ? sql`AND o.modified >= ${f.since}` : sql``}
      ${f.minConfidence !== undefined ? sql`AND o.confidence >= ${f.minConfidence}::real` : sql``}
      ${f.status ? sql`AND EXISTS (SELECT 1 FROM intel_indicators i WHERE i.organization_id = o.organization_id AND i.normalized_value = o.normalized_value AND i.type = o.type AND i.status = ${f.status})` : sql``}`;
}

const POSITION = sql`seq::text AS seq, to_char(date_added AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at`;
const FULL = sql`${POSITION}, type, normalized_value AS "normalizedValue", created, modified, date_added AS "dateAdded",
  valid_from AS "validFrom", valid_until AS "validUntil", confidence, labels, revoked`;
// Block lists skip the columns they do not write: parsing five timestamps per row was most of an export's CPU.
const LIST = sql`${POSITION}, type, normalized_value AS "normalizedValue"`;

function pageQuery<T>(db: Database, orgId: string, q: PageQuery, columns: typeof FULL) {
  return sql<T>`
    SELECT ${columns}
    FROM intel_out_objects o
    WHERE organization_id = ${orgId} AND collection_id = ${q.collectionId}
      ${q.addedAfter ? sql`AND date_added >= ${q.addedAfter}` : sql``}
      ${q.after ? sql`AND (o.date_added, o.seq) > (${q.after.at}::timestamptz, ${q.after.seq}::bigint)` : sql``}
      ${q.stixIds ? sql`AND stix_id = ANY(${q.stixIds}::uuid[])` : sql``}
      ${q.versions ? sql`AND modified = ANY(${q.versions}::timestamptz[])` : sql``}
      ${filterSql(q.filters)}
    -- o.seq: the bigint, not the text alias of the select list.
    ORDER BY o.date_added, o.seq
    LIMIT ${q.limit + 1}`.execute(db);
}

/** One page of a collection in date_added order; one row more than `limit` says whether more follow. */
export async function readPage(db: Database, orgId: string, q: PageQuery): Promise<ObjectRow[]> {
  return (await pageQuery<ObjectRow>(db, orgId, q, FULL)).rows;
}

/** The scheduler's pass: refresh every organization with pending changes. */
export async function refreshAllObjects(db: Database): Promise<void> {
  const { rows } = await sql<{ orgId: string }>`SELECT DISTINCT organization_id AS "orgId" FROM intel_out_changes`.execute(db);
  for (const r of rows) await refreshObjects(db, r.orgId);
}

/**
 * A collection's objects in date_added order, batch by batch (keyset): constant memory whatever
 * its size. The next batch is read while the caller writes the current one.
 */
export function walkObjects(db: Database, orgId: string, collectionId: string, filters: ExportFilters, shape: 'full'): AsyncGenerator<ObjectRow[]>;
export function walkObjects(db: Database, orgId: string, collectionId: string, filters: ExportFilters, shape: 'list'): AsyncGenerator<ListRow[]>;
export async function* walkObjects(db: Database, orgId: string, collectionId: string, filters: ExportFilters, shape: 'full' | 'list'): AsyncGenerator<ListRow[]> {
  const batch = 10_000;
  const read = (after: Position | undefined) => {
    const p = pageQuery<ListRow>(db, orgId, { collectionId, after, filters, limit: batch }, shape === 'full' ? FULL : LIST).then((r) => r.rows);
    p.catch(() => {}); // a walk abandoned by its consumer must not leave an unhandled rejection behind
    return p;
  };
  let pending = read(undefined);
  for (;;) {
    const rows = await pending;
    const shown = rows.slice(0, batch);
    const more = rows.length > batch;
    if (more) pending = read(shown.at(-1));
    if (shown.length) yield shown;
    if (!more) return;
  }
}
