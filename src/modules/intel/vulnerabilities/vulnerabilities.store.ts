import { sql } from 'kysely';
import type { Queryable } from '../../../platform/db/database.js';
import type { IntelEntry, VulnerabilityRecord } from '../entries.js';
import { storedExternalId } from '../items/items.store.js';
import type { KnownItem, StoreTarget } from '../items/ingest.store.js';
import { STORED_FORMATS } from './item-copy.fns.js';

/**
 * The vulnerability store (migration 0154): an OSV record's structured part beside its item, by
 * (organization, source, record id), upserted by id and `modified`, one row per record with its
 * affected packages, ranges and versions as one value (`affected`). Written in the sync chunk's
 * transaction with the items, so the two never disagree after a crash; the items' own copies
 * carry the packages' names only (item-copy.fns.ts). Which formats: STORED_FORMATS.
 */

const stored = (e: IntelEntry): e is IntelEntry & { vulnerability: VulnerabilityRecord } => !!e.vulnerability && STORED_FORMATS.has(e.vulnerability.format);

/** An ISO instant, or null for a missing or unreadable one (a bad `withdrawn` must not fail the chunk). */
function instant(v: string | null | undefined): string | null {
  if (!v) return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/**
 * Of these entries, the external ids of records the store already holds at the same `modified`
 * and whose item exists (`known`): the sync skips them before hashing and enriching anything.
 * OSV's schema moves `modified` on every change to a record, withdrawal included, so an equal
 * `modified` is an unchanged record. A record without `modified` is never skipped.
 */
export async function unchangedVulnerabilities(db: Queryable, target: StoreTarget, entries: IntelEntry[], known: Map<string, KnownItem>): Promise<Set<string>> {
  const candidates = entries.filter((e) => stored(e) && instant(e.updatedAt) !== null && known.has(storedExternalId(e)));
  if (candidates.length === 0) return new Set();
  const { rows } = await sql<{ vulnId: string; modified: Date }>`
    SELECT vuln_id AS "vulnId", modified FROM intel_vulnerabilities
    WHERE organization_id = ${target.organizationId} AND source_id = ${target.sourceId}
      AND vuln_id = ANY(${candidates.map((e) => e.vulnerability!.id)}::text[]) AND modified IS NOT NULL`.execute(db);
  const modifiedOf = new Map(rows.map((r) => [r.vulnId, r.modified.getTime()]));
  const out = new Set<string>();
  for (const e of candidates) if (modifiedOf.get(e.vulnerability!.id) === Date.parse(e.updatedAt!)) out.add(e.externalId);
  return out;
}

/**
 * Whether the store holds any record of this source: a first sync (none) asks nothing per batch,
 * a re-sync asks `settledRecordIds` for each batch before building it.
 */
export async function holdsRecordsOf(db: Queryable, target: StoreTarget): Promise<boolean> {
  const { rows } = await sql<{ held: boolean }>`
    SELECT EXISTS (SELECT 1 FROM intel_vulnerabilities WHERE organization_id = ${target.organizationId} AND source_id = ${target.sourceId}) AS held`.execute(db);
  return rows[0]?.held ?? false;
}

/**
 * Of these records (id and `modified`, read from the source before any entry is built), the
 * ids the store holds at the same `modified` whose item exists: the OSV connector skips them
 * unbuilt (ConnectorLimits.settledRecords). One statement per batch; the item is joined by its
 * external id (the record's id) so a deleted item is built and stored again.
 */
export async function settledRecordIds(db: Queryable, target: StoreTarget, records: ReadonlyArray<{ id: string; modified: string }>): Promise<Set<string>> {
  const asked = records.filter((r) => r.id.length <= 2048);
  if (asked.length === 0) return new Set();
  const { rows } = await sql<{ vulnId: string; modified: Date }>`
    SELECT v.vuln_id AS "vulnId", v.modified FROM intel_vulnerabilities v
    JOIN intel_items i ON i.organization_id = v.organization_id AND i.source_id = v.source_id AND i.external_id = v.vuln_id
    WHERE v.organization_id = ${target.organizationId} AND v.source_id = ${target.sourceId}
      AND v.vuln_id = ANY(${asked.map((r) => r.id)}::text[]) AND v.modified IS NOT NULL`.execute(db);
  const modifiedOf = new Map(rows.map((r) => [r.vulnId, r.modified.getTime()]));
  const out = new Set<string>();
  for (const r of asked) if (modifiedOf.get(r.id) === Date.parse(r.modified)) out.add(r.id);
  return out;
}

/** A PostgreSQL array literal of these strings (`{"a","b"}`), for a text[] carried as one element of an array parameter. */
function textArrayLiteral(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}

/**
 * Writes the stored-format records among these entries, set-based (one statement per kind): a record
 * whose `modified` did not move is left alone (no new tuple, no index entry). Returns how many
 * were written. The rows travel as one array parameter per column, zipped by `unnest`: each value
 * is parsed once by its own type's input (json_in lexes `affected` once), where a JSON recordset
 * lexed the whole document and then each json field again, and looked every key of every object
 * up by name: 25–37 µs of backend CPU per row against 18–25 for the arrays (20,000 rows of the
 * bench's shape in chunks of 250, three alternating rounds, docs/performance-history.md
 * 2026-11-30 item 2, branch osvpass; COPY, 17–22 µs, would need a staging table for the held
 * records' ON CONFLICT rule and a COPY client beside Kysely for no measurable difference).
 * `affected` and `severity` are json columns (migration 0155), so their text is kept as sent.
 */
export async function storeVulnerabilities(tx: Queryable, target: StoreTarget, entries: IntelEntry[], known: ReadonlyMap<string, KnownItem>, now: Date): Promise<number> {
  const byId = new Map<string, IntelEntry & { vulnerability: VulnerabilityRecord }>();
  for (const e of entries) if (stored(e)) byId.set(e.vulnerability.id, e); // one row per id in a statement (ON CONFLICT's rule)
  if (byId.size === 0) return 0;
  const all = [...byId.values()];
  // A record whose item is new in this chunk has no store row (the two are written in one
  // transaction and deleted together with their source; the item's own INSERT would have failed
  // first): a plain INSERT, without ON CONFLICT's speculative insertion (as the items', ingest.store.ts).
  const fresh = all.filter((e) => !known.has(storedExternalId(e)));
  const held = fresh.length === all.length ? [] : all.filter((e) => known.has(storedExternalId(e)));
  let written = 0;
  for (const [group, onConflict] of [
    [fresh, sql``],
    [
      held,
      sql`ON CONFLICT (organization_id, source_id, vuln_id) DO UPDATE SET
      format = excluded.format, aliases = excluded.aliases, severity = excluded.severity, database_severity = excluded.database_severity,
      published = excluded.published, modified = excluded.modified, withdrawn = excluded.withdrawn, affected = excluded.affected, stored_at = excluded.stored_at
    WHERE s.modified IS NULL OR excluded.modified IS NULL OR s.modified <> excluded.modified`,
    ],
  ] as const) {
    if (group.length === 0) continue;
    const v = group.map((e) => e.vulnerability);
    const { numAffectedRows } = await sql`
      INSERT INTO intel_vulnerabilities AS s (organization_id, source_id, vuln_id, format, aliases, severity, database_severity, published, modified, withdrawn, affected, stored_at)
      SELECT ${target.organizationId}::uuid, ${target.sourceId}::uuid, r.vuln_id, r.format, r.aliases::text[], r.severity, r.database_severity, r.published, r.modified, r.withdrawn, r.affected, ${now}::timestamptz
      FROM unnest(
        ${v.map((x) => x.id)}::text[], ${v.map((x) => x.format)}::text[], ${v.map((x) => textArrayLiteral(x.aliases))}::text[], ${v.map((x) => JSON.stringify(x.severity))}::json[],
        ${v.map((x) => x.databaseSeverity)}::text[], ${group.map((e) => instant(e.publishedAt))}::timestamptz[], ${group.map((e) => instant(e.updatedAt))}::timestamptz[],
        ${v.map((x) => instant(x.withdrawn))}::timestamptz[], ${v.map((x) => JSON.stringify(x.affected))}::json[]
      ) AS r(vuln_id, format, aliases, severity, database_severity, published, modified, withdrawn, affected)
      ${onConflict}`.execute(tx);
    written += Number(numAffectedRows ?? 0);
  }
  return written;
}
