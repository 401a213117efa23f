import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../../platform/db/database.js';
import type { IntelEntry } from '../entries.js';
import { itemCopyOf } from '../vulnerabilities/item-copy.fns.js';

// Rows per INSERT … ON CONFLICT statement: large enough to amortise round trips, small enough
// to keep parameter counts far below PostgreSQL's 65,535 limit (18 columns × 500).
const BATCH = 500;
const MAX_RAW_BYTES = 256 * 1024;

export interface StoreResult {
  created: number;
  updated: number;
  unchanged: number;
  /** Items created or whose content changed: the pipeline processes these. */
  changedIds: string[];
}

/**
 * Stores entries idempotently: one item per (organization, source, externalId). A re-sync
 * with the same content touches nothing; changed content updates the row in place with
 * version + 1 and status `corrected`. Running it twice (a retried job) yields the same rows.
 */
export async function storeEntries(db: Queryable, organizationId: string, sourceId: string, entries: IntelEntry[]): Promise<StoreResult> {
  const unique = uniqueByExternalId(entries);
  const result: StoreResult = { created: 0, updated: 0, unchanged: 0, changedIds: [] };
  for (let i = 0; i < unique.length; i += BATCH) {
    const batch = unique.slice(i, i + BATCH);
    const now = new Date();
    const rows = batch.map((e) => ({ id: uuidv7(), organizationId, sourceId, ...itemFields(e), createdAt: now, updatedAt: now }));
    const written = await db
      .insertInto('intelItems')
      .values(rows)
      .onConflict((oc) =>
        oc
          .columns(['organizationId', 'sourceId', 'externalId'])
          .doUpdateSet((eb) => ({
            title: eb.ref('excluded.title'),
            url: eb.ref('excluded.url'),
            publisher: eb.ref('excluded.publisher'),
            publishedAt: eb.ref('excluded.publishedAt'),
            sourceUpdatedAt: eb.ref('excluded.sourceUpdatedAt'),
            language: eb.ref('excluded.language'),
            contentText: eb.ref('excluded.contentText'),
            contentHtml: eb.ref('excluded.contentHtml'),
            structuredIndicators: eb.ref('excluded.structuredIndicators'),
            referenceUrls: eb.ref('excluded.referenceUrls'),
            tags: eb.ref('excluded.tags'),
            raw: eb.ref('excluded.raw'),
            vulnerability: eb.ref('excluded.vulnerability'),
            contentHash: eb.ref('excluded.contentHash'),
            version: sql<number>`intel_items.version + 1`,
            status: sql<string>`'corrected'`,
            updatedAt: eb.ref('excluded.updatedAt'),
          }))
          .where('intelItems.contentHash', '!=', (eb) => eb.ref('excluded.contentHash')),
      )
      .returning(['id', sql<boolean>`(xmax = 0)`.as('inserted')])
      .execute();
    for (const w of written) {
      if (w.inserted) result.created++;
      else result.updated++;
      result.changedIds.push(w.id);
    }
    result.unchanged += batch.length - written.length;
  }
  return result;
}

/** The external id as stored (bounded): the key an entry is matched to its item by. */
export function storedExternalId(e: IntelEntry): string {
  return e.externalId.slice(0, 2048);
}

/**
 * An entry as an item row's own columns (bounded, NUL-free), with the hash that tells a change.
 * `recordInStore`: the caller writes the entry's structured record to the vulnerability store in
 * the same transaction (the sync, intel-ingest's sync.writes.ts), so the item's copy carries its
 * packages by name only (item-copy.fns.ts). The hash is the whole entry's either way.
 */
export function itemFields(e: IntelEntry, opts?: { recordInStore?: boolean }) {
  return {
    externalId: storedExternalId(e),
    title: stripNul(e.title).slice(0, 1000) || '(untitled)',
    url: e.url,
    publisher: e.publisher,
    publishedAt: e.publishedAt,
    sourceUpdatedAt: e.updatedAt,
    language: e.language,
    contentText: stripNul(e.contentText),
    contentHtml: e.contentHtml === null ? null : stripNul(e.contentHtml),
    structuredIndicators: JSON.stringify(e.indicators),
    referenceUrls: JSON.stringify(e.references),
    tags: e.tags,
    raw: boundedRaw(e.raw),
    vulnerability: e.vulnerability ? stripNul(JSON.stringify(opts?.recordInStore ? itemCopyOf(e.vulnerability) : e.vulnerability)) : null,
    contentHash: contentHash(e),
  };
}
export type ItemFields = ReturnType<typeof itemFields>;

/** The same externalId twice in one fetch: the last one wins (ON CONFLICT cannot touch a row twice). */
export function uniqueByExternalId(entries: IntelEntry[]): IntelEntry[] {
  return [...new Map(entries.map((e) => [e.externalId, e])).values()];
}

function contentHash(e: IntelEntry): string {
  return createHash('sha256')
    .update(JSON.stringify([e.title, e.url, e.publishedAt, e.updatedAt, e.contentText, e.indicators, e.references, e.tags, ...(e.vulnerability ? [e.vulnerability] : [])]))
    .digest('base64url');
}

/** PostgreSQL text and jsonb cannot hold NUL characters; feeds sometimes contain them. */
function stripNul(s: string): string {
  return s.includes('\u0000') ? s.replaceAll('\u0000', '') : s;
}

function boundedRaw(raw: unknown): string | null {
  if (raw === undefined) return null;
  const json = JSON.stringify(raw)?.replaceAll('\\u0000', '');
  if (json === undefined) return null;
  return json.length > MAX_RAW_BYTES ? JSON.stringify({ truncated: true, bytes: json.length }) : json;
}
