import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../../platform/db/database.js';
import type { VulnerabilityRecord } from '../entries.js';
import { MITRE_SOURCE_KEY } from '../attack/catalog.repo.js';
import type { Enrichment } from './enrichment.js';

/**
 * Writing enrichment results (intel-ingest's pipeline/process.fns.ts) for a batch of items, set-based: a handful of
 * statements whatever the batch size. Two writers share these steps:
 * - the sync (ingest.store.ts) writes new and changed items with their enrichment in the row's
 *   INSERT, then calls {@link writeStoriesAndIndicators};
 * - the enrichment job (process.jobs.ts) re-enriches stored items: {@link writeResults}.
 *
 * Each batch travels as ONE json parameter read by json_to_recordset: building a multi-row
 * VALUES list costs Node a parameter (and a query-builder node) per column per row, 13–31 per
 * row here; one JSON.stringify of the batch is a fraction of that (ingest bench).
 */

export interface ItemRow {
  id: string;
  organizationId: string;
  title: string;
  sourceLabel: string;
  /** Null on an item's first enrichment: it has no indicators yet, so none can be stale. */
  processedAt: Date | null;
}

export type EnrichedItem = { row: ItemRow; result: Enrichment };

/**
 * The enrichment columns as a recordset reads them, in two groups: scalars, text and arrays
 * ({@link enrichmentScalars}) and the JSON documents ({@link enrichmentDocuments}). The sync's
 * insert reads each group with its own reader (ingest.store.ts: json for text, jsonb for jsonb).
 */
export const ENRICHMENT_SCALAR_COLUMNS =
  'severity text, relevance integer, platforms text[], summary text, tldr text, abstract text, event_confidence real, canonical_key text, retracted boolean';
export const ENRICHMENT_DOCUMENT_COLUMNS = 'attack_path jsonb, classification jsonb, affected_products jsonb, iocs jsonb, provenance jsonb, dropped_candidates jsonb';
const ENRICHMENT_RECORD_COLUMNS = sql.raw(`${ENRICHMENT_SCALAR_COLUMNS}, ${ENRICHMENT_DOCUMENT_COLUMNS}`);

/** One item's scalar enrichment columns, keyed by column name (ENRICHMENT_SCALAR_COLUMNS). */
export function enrichmentScalars(r: Enrichment) {
  return {
    severity: r.severity,
    relevance: r.relevance,
    platforms: r.platforms,
    summary: r.summary,
    tldr: r.tldr,
    abstract: r.abstract,
    event_confidence: r.eventConfidence,
    canonical_key: r.canonicalKey,
    retracted: r.retracted,
  };
}

/** One item's JSON-document enrichment columns, keyed by column name (ENRICHMENT_DOCUMENT_COLUMNS). */
export function enrichmentDocuments(r: Enrichment) {
  return {
    attack_path: r.attackPath,
    classification: { ...r.classification, passages: undefined },
    affected_products: r.affectedProducts,
    iocs: r.iocs,
    provenance: { supportingPassages: r.passages },
    dropped_candidates: r.dropped,
  };
}

const storyKey = (b: EnrichedItem) => `${b.row.organizationId}\u001f${b.result.canonicalKey}`;

/**
 * One writer per story at a time. Linking a story's items (step 2 of
 * writeStoriesAndIndicators) reads them all; two batches writing items of the same story
 * concurrently would each miss the other's uncommitted item and could both leave theirs
 * "first". A transaction-scoped advisory lock per (organization, canonical key), taken in key
 * order (no deadlock between writers), makes the later writer wait for the earlier one's commit
 * and then see its rows. Take it before writing the batch's rows.
 */
export async function lockStories(tx: Queryable, batch: EnrichedItem[]): Promise<void> {
  const keys = [...new Set(batch.filter((b) => b.result.canonicalKey).map(storyKey))].sort();
  if (keys.length === 0) return;
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(s.k, 0)) FROM (SELECT k FROM unnest(${keys}::text[]) AS k ORDER BY k) s ORDER BY s.k`.execute(tx);
}

/**
 * Re-enriches stored items (the enrichment job): up to 6 statements whatever the batch size
 * (lock, columns, links, new and known indicators, stale ones). An item without a canonical key
 * is nobody's duplicate; one with a key keeps its link until the story is recomputed (saves
 * rewriting the row twice). Idempotent: re-running gives the same rows.
 */
export async function writeResults(tx: Queryable, batch: EnrichedItem[]): Promise<void> {
  const now = new Date();
  await lockStories(tx, batch);
  const records = batch.map(({ row, result }) => ({ id: row.id, ...enrichmentScalars(result), ...enrichmentDocuments(result) }));
  await sql`
    UPDATE intel_items i SET
      processed_at = ${now}::timestamptz, severity = v.severity, relevance = v.relevance, platforms = v.platforms, summary = v.summary,
      tldr = v.tldr, abstract = v.abstract, attack_path = v.attack_path, classification = v.classification,
      affected_products = v.affected_products, iocs = v.iocs, provenance = v.provenance, dropped_candidates = v.dropped_candidates,
      event_confidence = v.event_confidence, canonical_key = v.canonical_key,
      duplicate_of = CASE WHEN v.canonical_key IS NULL THEN NULL ELSE i.duplicate_of END,
      status = CASE WHEN v.retracted THEN 'retracted' ELSE i.status END
    FROM json_to_recordset(${JSON.stringify(records)}::json) AS v(id uuid, ${ENRICHMENT_RECORD_COLUMNS})
    WHERE i.id = v.id`.execute(tx);
  await writeStoriesAndIndicators(tx, batch, now);
}

/**
 * What enrichment derives beyond the item's own columns, once those are written: the stories'
 * duplicate links, the indicators (upserted), and the removal of indicators an item's new
 * content no longer carries. Call inside the transaction that wrote the rows, after
 * {@link lockStories}.
 */
export async function writeStoriesAndIndicators(tx: Queryable, batch: EnrichedItem[], now: Date): Promise<void> {
  await linkStories(tx, batch);
  const firstTime = new Set(batch.filter((b) => b.row.processedAt === null).map((b) => b.row.id));
  const indicators = indicatorRecords(batch);
  await writeIndicators(tx, indicators.filter((i) => firstTime.has(i.item_id)), now, 'insert');
  await writeIndicators(tx, indicators.filter((i) => !firstTime.has(i.item_id)), now, 'upsert');
  await deleteStaleIndicators(tx, batch, indicators);
}

/**
 * The first item of a story (oldest) stands; every later one points at it. Recomputed for every
 * story of the batch, after all its items are written, so the result does not depend on
 * processing order (two items of one batch sharing a key included). Rows already pointing the
 * right way are not rewritten.
 */
async function linkStories(tx: Queryable, batch: EnrichedItem[]): Promise<void> {
  const stories = [...new Map(batch.filter((b) => b.result.canonicalKey).map((b) => [storyKey(b), b])).values()];
  if (stories.length === 0) return;
  await sql`
    WITH k AS (
      SELECT * FROM unnest(${stories.map((s) => s.row.organizationId)}::uuid[], ${stories.map((s) => s.result.canonicalKey)}::text[]) AS k(organization_id, canonical_key)
    ), g AS (
      SELECT i.id, first_value(i.id) OVER (PARTITION BY i.organization_id, i.canonical_key ORDER BY i.created_at, i.id) AS first
      FROM intel_items i JOIN k ON i.organization_id = k.organization_id AND i.canonical_key = k.canonical_key
    )
    UPDATE intel_items i SET duplicate_of = NULLIF(g.first, i.id)
    FROM g WHERE i.id = g.id AND i.duplicate_of IS DISTINCT FROM NULLIF(g.first, i.id)`.execute(tx);
}

interface IndicatorRecord {
  /** Used when the row is new; an existing row keeps its id. */
  id: string;
  item_id: string;
  organization_id: string;
  type: string;
  value: string;
  normalized_value: string;
  confidence: number;
  ttl_days: number;
  intel_title: string;
  source_label: string;
}

/** Keyed as the unique index is: (item, type, normalized value cut at 4,096), once each. */
function indicatorRecords(batch: EnrichedItem[]): IndicatorRecord[] {
  const out: IndicatorRecord[] = [];
  for (const { row, result } of batch) {
    const seen = new Set<string>();
    const intelTitle = row.title.slice(0, 500);
    for (const ind of result.indicators) {
      const normalizedValue = ind.normalizedValue.slice(0, 4096);
      const key = `${ind.type}\u001f${normalizedValue}`;
      if (seen.has(key)) continue; // one statement cannot upsert the same row twice
      seen.add(key);
      out.push({ id: uuidv7(), item_id: row.id, organization_id: row.organizationId, type: ind.type, value: ind.value.slice(0, 4096), normalized_value: normalizedValue, confidence: ind.confidence, ttl_days: ind.ttlDays, intel_title: intelTitle, source_label: row.sourceLabel });
    }
  }
  return out;
}

/** Indicator rows per statement: bounds one JSON parameter (~300 B per row) to a few MB. */
const INDICATORS_PER_STATEMENT = 5_000;

/**
 * An indicator the item already had keeps its id, first sighting and hunt status (`upsert`).
 * An item enriched for the first time has no indicators yet (`insert`): a plain INSERT skips
 * ON CONFLICT's speculative insertion (an extra index probe and WAL record per row), which
 * cost ~10% of the indicators' write (20,000 rows: 585 against 648 ms). Two writers enriching
 * the same first-time item at once (two queued jobs for one item) would collide on the unique
 * index: the later one fails, is retried, and then finds the item enriched and upserts.
 */
async function writeIndicators(tx: Queryable, indicators: IndicatorRecord[], now: Date, mode: 'insert' | 'upsert'): Promise<void> {
  const onConflict =
    mode === 'upsert'
      ? sql`ON CONFLICT (item_id, type, normalized_value) DO UPDATE SET
          value = excluded.value, confidence = excluded.confidence, ttl_days = excluded.ttl_days, intel_title = excluded.intel_title, last_seen = excluded.last_seen`
      : sql``;
  for (let i = 0; i < indicators.length; i += INDICATORS_PER_STATEMENT) {
    await sql`
      INSERT INTO intel_indicators AS d (id, item_id, organization_id, type, value, normalized_value, confidence, ttl_days, intel_title, source_label, first_seen, last_seen, created_at)
      SELECT r.id, r.item_id, r.organization_id, r.type, r.value, r.normalized_value, r.confidence, r.ttl_days, r.intel_title, r.source_label, ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
      FROM json_to_recordset(${JSON.stringify(indicators.slice(i, i + INDICATORS_PER_STATEMENT))}::json)
        AS r(id uuid, item_id uuid, organization_id uuid, type text, value text, normalized_value text, confidence real, ttl_days integer, intel_title text, source_label text)
      ${onConflict}`.execute(tx);
  }
}

/** Only items enriched before can have indicators to lose: first-time items skip the statement. */
async function deleteStaleIndicators(tx: Queryable, batch: EnrichedItem[], kept: IndicatorRecord[]): Promise<void> {
  const reprocessed = batch.filter((b) => b.row.processedAt !== null);
  if (reprocessed.length === 0) return;
  await sql`
    DELETE FROM intel_indicators d
    WHERE d.item_id = ANY(${reprocessed.map((b) => b.row.id)}::uuid[])
      AND NOT EXISTS (
        SELECT 1 FROM unnest(${kept.map((i) => i.item_id)}::uuid[], ${kept.map((i) => i.type)}::text[], ${kept.map((i) => i.normalized_value)}::text[]) AS k(item_id, type, normalized_value)
        WHERE k.item_id = d.item_id AND k.type = d.type AND k.normalized_value = d.normalized_value
      )`.execute(tx);
}

/**
 * The stored items the enrichment job (intel-ingest's process.jobs.ts) enriches again, with what
 * processing reads: ATT&CK items with their raw STIX object (for the catalog), structured records
 * (OSV, CSAF) with their vulnerability, NVD's configurations.
 */
export async function itemsToEnrich(db: Queryable, itemIds: string[]) {
  return db
    .selectFrom('intelItems as i')
    .innerJoin('intelSources as s', 's.id', 'i.sourceId')
    .select(['i.id', 'i.organizationId', 'i.title', 'i.processedAt', 'i.contentText', 'i.url', 'i.tags', 'i.structuredIndicators', 'i.publishedAt', 'i.createdAt', 's.displayName as sourceLabel'])
    // Only ATT&CK items need their raw STIX object (for the catalog): the others skip the transfer and JSON.parse.
    .select(sql<unknown>`CASE WHEN s.builtin_key = ${MITRE_SOURCE_KEY} THEN i.raw END`.as('raw'))
    .select(sql<boolean>`s.builtin_key IS NOT DISTINCT FROM ${MITRE_SOURCE_KEY}`.as('isAttack'))
    // NVD's CPE configurations are in the vulnerability store (migration 0159); an item stored
    // before has them in its own copy.
    .select(sql<unknown>`COALESCE(v.configurations::jsonb, i.vulnerability->'configurations')`.as('configurations'))
    // A structured record (OSV, CSAF) is enriched from its fields (structured.fns.ts): only those items transfer it.
    // Its item's copy names its packages only: their ranges and versions come from the
    // vulnerability store (migrations 0154, 0159; json since 0155, so cast where it joins the item's
    // jsonb); an item stored before the store has its whole copy.
    .select(
      sql<VulnerabilityRecord | null>`CASE
        WHEN i.vulnerability->>'format' IN ('osv', 'csaf') AND v.affected IS NOT NULL THEN jsonb_set(i.vulnerability, '{affected}', v.affected::jsonb)
        WHEN i.vulnerability->>'format' IN ('osv', 'csaf') THEN i.vulnerability END`.as('vulnerability'),
    )
    .leftJoin('intelVulnerabilities as v', (j) => j.onRef('v.organizationId', '=', 'i.organizationId').onRef('v.sourceId', '=', 'i.sourceId').onRef('v.vulnId', '=', 'i.externalId'))
    .where('i.id', 'in', itemIds)
    .orderBy('i.id')
    .execute();
}
