import { sql } from 'kysely';
import type { Queryable } from '../../../platform/db/database.js';
import type { IntelEntry } from '../entries.js';
import type { Enrichment } from './enrichment.js';
import { itemFields, storeEntries, storedExternalId, type ItemFields, type StoreResult } from './items.store.js';
import { ENRICHMENT_DOCUMENT_COLUMNS, ENRICHMENT_SCALAR_COLUMNS, enrichmentDocuments, enrichmentScalars, lockStories, writeStoriesAndIndicators, type EnrichedItem } from './results.store.js';

/**
 * The sync's write path: parse → extract → dedupe → store in one pass. New and changed entries
 * are enriched (intel-ingest's prepareEntries, pipeline/prepare.fns.ts) BEFORE they are stored,
 * then written here in the chunk's transaction:
 * one INSERT of the rows with their enrichment, then their stories' links and their indicators.
 *
 * Why not store first and let the enrichment job update the rows: that UPDATE rewrote every new
 * row (a second heap tuple, entries in each of the table's six indexes again, the text read
 * back and detoasted for the vector) and was the largest statement of an ingest: 6.3 of
 * PostgreSQL's 12.6 s of statement time for 10,000 RSS entries (pg_stat_statements, ingest
 * bench). The enrichment job stays for what this path cannot do: an entry whose processing
 * throws is stored as is and handed to the job (which retries it and reports the error).
 */

export interface StoreTarget {
  organizationId: string;
  sourceId: string;
  /** The source's display name, copied onto its indicators. */
  sourceLabel: string;
}

export interface KnownItem {
  id: string;
  contentHash: string;
  processedAt: Date | null;
  createdAt: Date;
}

/** The source's items among these entries, by stored external id: one indexed read. */
export async function knownItems(db: Queryable, target: StoreTarget, entries: IntelEntry[]): Promise<Map<string, KnownItem>> {
  if (entries.length === 0) return new Map();
  const rows = await db
    .selectFrom('intelItems')
    .select(['id', 'externalId', 'contentHash', 'processedAt', 'createdAt'])
    .where('organizationId', '=', target.organizationId)
    .where('sourceId', '=', target.sourceId)
    .where(sql<boolean>`external_id = ANY(${entries.map(storedExternalId)}::text[])`)
    .execute();
  return new Map(rows.map((r) => [r.externalId, r]));
}

interface Enriched {
  id: string;
  fields: ItemFields;
  known: KnownItem | undefined;
  result: Enrichment;
}

/** One chunk of a sync, enriched by intel-ingest (prepareEntries) and written by {@link writePrepared}. */
export interface PreparedChunk {
  enriched: Enriched[];
  /** Entries whose processing threw: stored without enrichment, for the enrichment job. */
  unenriched: IntelEntry[];
  unchanged: number;
}

/**
 * The write half, in the caller's transaction. Returns the counts and the ids of the items
 * stored without enrichment (to queue for the enrichment job in the same transaction).
 */
export async function writePrepared(tx: Queryable, target: StoreTarget, chunk: PreparedChunk): Promise<Omit<StoreResult, 'changedIds'> & { unenrichedIds: string[] }> {
  const out = { created: 0, updated: 0, unchanged: chunk.unchanged, unenrichedIds: [] as string[] };
  if (chunk.unenriched.length) {
    const stored = await storeEntries(tx, target.organizationId, target.sourceId, chunk.unenriched);
    out.created += stored.created;
    out.updated += stored.updated;
    out.unchanged += stored.unchanged;
    out.unenrichedIds.push(...stored.changedIds);
  }
  if (chunk.enriched.length === 0) return out;

  const now = new Date();
  const asBatch = (e: Enriched, id: string, processedAt: Date | null): EnrichedItem => ({
    row: { id, organizationId: target.organizationId, title: e.fields.title, sourceLabel: target.sourceLabel, processedAt },
    result: e.result,
  });
  await lockStories(tx, chunk.enriched.map((e) => asBatch(e, e.id, null)));
  const written = await insertEnriched(tx, target, chunk.enriched, now);

  // What the INSERT reports wins: a row changed by someone else since `known` was read keeps
  // its id, and a row found identical after all is left out.
  const byExternalId = new Map(chunk.enriched.map((e) => [e.fields.externalId, e]));
  const batch: EnrichedItem[] = [];
  for (const w of written) {
    const e = byExternalId.get(w.externalId)!;
    if (w.inserted) out.created++;
    else out.updated++;
    // Only an item enriched before can hold indicators its new content dropped.
    batch.push(asBatch(e, w.id, w.inserted ? null : (e.known?.processedAt ?? now)));
  }
  out.unchanged += chunk.enriched.length - written.length;
  await writeStoriesAndIndicators(tx, batch, now);
  return out;
}

/** Rows per INSERT: bounds one JSON parameter (~5 kB per rich RSS entry) to a few MB. */
const ITEMS_PER_STATEMENT = 500;

/**
 * An item's record travels as two JSON documents zipped row by row (ROWS FROM): its text,
 * scalar and array columns read by json_to_recordset, its jsonb columns by jsonb_to_recordset.
 * One jsonb document for everything cost PostgreSQL more: jsonb's parser builds every string
 * (the text, its HTML, the summaries) into a jsonb value only for the text columns to be copied
 * out of it again, where json's lexer reads them once; and reading everything as json
 * re-parses each jsonb value on its own (raw, the largest). Split: 27 → 10 µs of backend CPU
 * per RSS record for reading the batch (docs/performance.md, ingestion 2026-11-26).
 */
const ITEM_TEXT_COLUMNS = sql.raw(
  'id uuid, external_id text, title text, url text, publisher text, published_at timestamptz, source_updated_at timestamptz, language text, ' +
    `content_text text, content_html text, tags text[], content_hash text, ${ENRICHMENT_SCALAR_COLUMNS}`,
);
const ITEM_JSONB_COLUMNS = sql.raw(`${ENRICHMENT_DOCUMENT_COLUMNS}, raw jsonb, vulnerability jsonb, structured_indicators jsonb, reference_urls jsonb`);

/**
 * One item's two records as JSON text, in the keys of ITEM_TEXT_COLUMNS and ITEM_JSONB_COLUMNS.
 * The JSON columns the entry brings (raw, structured indicators, references) are JSON text
 * already (itemFields bounds raw by its serialized size): they are spliced in as values, not
 * escaped again as strings and parsed twice.
 */
function itemRecords(e: Enriched): { text: string; jsonb: string } {
  const f = e.fields;
  const text = JSON.stringify({
    id: e.id,
    external_id: f.externalId,
    title: f.title,
    url: f.url,
    publisher: f.publisher,
    published_at: f.publishedAt,
    source_updated_at: f.sourceUpdatedAt,
    language: f.language,
    content_text: f.contentText,
    content_html: f.contentHtml,
    tags: f.tags,
    content_hash: f.contentHash,
    ...enrichmentScalars(e.result),
  });
  const enriched = JSON.stringify(enrichmentDocuments(e.result));
  const jsonb = `${enriched.slice(0, -1)},"raw":${f.raw ?? 'null'},"vulnerability":${f.vulnerability ?? 'null'},"structured_indicators":${f.structuredIndicators},"reference_urls":${f.referenceUrls}}`;
  return { text, jsonb };
}

/**
 * By (organization, source, external id): an entry the source did not have is inserted; one it
 * had with other content (content hash) is updated in place with version + 1 and status
 * `corrected` (or `retracted`); an identical one is left alone. New entries take a plain INSERT:
 * `known` was read at the start of this sync, and a source has one sync at a time
 * (intel_sync_jobs_active_idx), so nobody else inserts them meanwhile; ON CONFLICT's speculative
 * insertion would cost every new row an extra index probe and WAL record (~10% of a row's write,
 * measured on indicators). The full-text index computes the vector from title and text
 * (migration 0008).
 */
async function insertEnriched(tx: Queryable, target: StoreTarget, rows: Enriched[], now: Date) {
  const written: Array<{ id: string; externalId: string; inserted: boolean }> = [];
  for (const [mode, group] of [['insert', rows.filter((r) => !r.known)], ['upsert', rows.filter((r) => r.known)]] as const) {
    for (let i = 0; i < group.length; i += ITEMS_PER_STATEMENT) {
      const records = group.slice(i, i + ITEMS_PER_STATEMENT).map(itemRecords);
      const texts = `[${records.map((x) => x.text).join(',')}]`;
      const jsonbs = `[${records.map((x) => x.jsonb).join(',')}]`;
      const onConflict =
        mode === 'insert'
          ? sql``
          : sql`ON CONFLICT (organization_id, source_id, external_id) DO UPDATE SET
              title = excluded.title, url = excluded.url, publisher = excluded.publisher, published_at = excluded.published_at,
              source_updated_at = excluded.source_updated_at, language = excluded.language, content_text = excluded.content_text,
              content_html = excluded.content_html, structured_indicators = excluded.structured_indicators, reference_urls = excluded.reference_urls,
              tags = excluded.tags, raw = excluded.raw, vulnerability = excluded.vulnerability, content_hash = excluded.content_hash, version = i.version + 1,
              status = CASE WHEN excluded.status = 'retracted' THEN 'retracted' ELSE 'corrected' END, updated_at = excluded.updated_at,
              processed_at = excluded.processed_at, severity = excluded.severity, relevance = excluded.relevance, platforms = excluded.platforms,
              summary = excluded.summary, tldr = excluded.tldr, abstract = excluded.abstract, attack_path = excluded.attack_path,
              classification = excluded.classification, affected_products = excluded.affected_products, iocs = excluded.iocs,
              provenance = excluded.provenance, dropped_candidates = excluded.dropped_candidates, event_confidence = excluded.event_confidence,
              canonical_key = excluded.canonical_key,
              duplicate_of = CASE WHEN excluded.canonical_key IS NULL THEN NULL ELSE i.duplicate_of END
            WHERE i.content_hash <> excluded.content_hash`;
      const { rows: out } = await sql<{ id: string; externalId: string; inserted: boolean }>`
        INSERT INTO intel_items AS i (
          id, organization_id, source_id, external_id, title, url, publisher, published_at, source_updated_at, language,
          content_text, content_html, structured_indicators, reference_urls, tags, raw, vulnerability, content_hash, created_at, updated_at,
          processed_at, severity, relevance, platforms, summary, tldr, abstract, attack_path, classification, affected_products,
          iocs, provenance, dropped_candidates, event_confidence, canonical_key, status)
        SELECT
          r.id, ${target.organizationId}::uuid, ${target.sourceId}::uuid, r.external_id, r.title, r.url, r.publisher, r.published_at, r.source_updated_at, r.language,
          r.content_text, r.content_html, r.structured_indicators, r.reference_urls, r.tags, r.raw, r.vulnerability, r.content_hash, ${now}::timestamptz, ${now}::timestamptz,
          ${now}::timestamptz, r.severity, r.relevance, r.platforms, r.summary, r.tldr, r.abstract, r.attack_path, r.classification, r.affected_products,
          r.iocs, r.provenance, r.dropped_candidates, r.event_confidence, r.canonical_key,
          CASE WHEN r.retracted THEN 'retracted' ELSE 'active' END
        FROM ROWS FROM (json_to_recordset(${texts}::json) AS (${ITEM_TEXT_COLUMNS}), jsonb_to_recordset(${jsonbs}::jsonb) AS (${ITEM_JSONB_COLUMNS})) AS r
        ${onConflict}
        RETURNING i.id, i.external_id AS "externalId", (i.xmax = 0) AS inserted`.execute(tx);
      written.push(...out);
    }
  }
  return written;
}
