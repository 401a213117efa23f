import { sql } from 'kysely';
import type { Queryable } from '../../../platform/db/database.js';
import type { IntelEntry, VulnerabilityRecord } from '../entries.js';
import { storedExternalId } from '../items/items.store.js';
import type { KnownItem, StoreTarget } from '../items/ingest.store.js';
import { STORED_FORMATS } from './item-copy.fns.js';

/**
 * The vulnerability store (migrations 0154, 0159): a structured record's structured part beside
 * its item (OSV and CSAF packages with their ranges, NVD's CPE configurations, KEV's listing), by
 * (organization, source, the item's external id), upserted by that key and `modified`, one row per
 * record. Written in the sync chunk's transaction with the items, so the two never disagree after
 * a crash; the items' own copies carry what the feed reads only (item-copy.fns.ts). Which
 * formats: STORED_FORMATS.
 */

const stored = (e: IntelEntry): e is IntelEntry & { vulnerability: VulnerabilityRecord } => !!e.vulnerability && STORED_FORMATS.has(e.vulnerability.format);

/**
 * A record's key in the store: its item's external id (`vuln_id`). The record's own id for OSV,
 * NVD and KEV; for CSAF `<tracking id>/<CVE>`, as two documents of one provider may both speak of
 * a CVE (the record's id) and each is its own record (migration 0159).
 */
const keyOf = (e: IntelEntry): string => storedExternalId(e);

/**
 * The instant the store compares: the record's `modified` as its format dates it (OSV `modified`,
 * NVD `lastModified`, CSAF `current_release_date`: the entry's updatedAt; KEV the catalog's
 * release: recordModified, migration 0159).
 */
const modifiedOf = (e: IntelEntry): string | null => (e.recordModified !== undefined ? e.recordModified : e.updatedAt);

/** An ISO instant, or null for a missing or unreadable one (a bad `withdrawn` must not fail the chunk). */
function instant(v: string | null | undefined): string | null {
  if (!v) return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/**
 * Of these entries, the external ids of records the store already holds at the same `modified`
 * and whose item exists (`known`): the sync skips them before hashing and enriching anything.
 * OSV's schema moves `modified` on every change to a record, withdrawal included, as NVD's
 * `lastModified`, a CSAF document's revision date and KEV's catalog release do (modifiedOf), so an
 * equal `modified` is an unchanged record. A record without `modified` is never skipped.
 */
export async function unchangedVulnerabilities(db: Queryable, target: StoreTarget, entries: IntelEntry[], known: Map<string, KnownItem>): Promise<Set<string>> {
  const candidates = entries.filter((e) => stored(e) && instant(modifiedOf(e)) !== null && known.has(storedExternalId(e)));
  if (candidates.length === 0) return new Set();
  const { rows } = await sql<{ vulnId: string; modified: Date }>`
    SELECT vuln_id AS "vulnId", modified FROM intel_vulnerabilities
    WHERE organization_id = ${target.organizationId} AND source_id = ${target.sourceId}
      AND vuln_id = ANY(${candidates.map(keyOf)}::text[]) AND modified IS NOT NULL`.execute(db);
  const held = new Map(rows.map((r) => [r.vulnId, r.modified.getTime()]));
  const out = new Set<string>();
  for (const e of candidates) if (held.get(keyOf(e)) === Date.parse(modifiedOf(e)!)) out.add(e.externalId);
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

/**
 * Writes the stored-format records among these entries, set-based (one statement per kind): a record
 * whose `modified` did not move is left alone (no new tuple, no index entry). Returns how many
 * were written. A JSON recordset rather than COPY: a chunk is ≤ 250 records in a transaction
 * shared with the items' INSERT, where COPY would need a staging table per chunk for the ON
 * CONFLICT rule. `json_to_recordset`, not jsonb's: the document is lexed once and each record's
 * `affected` and `severity` are stored as their text (json columns, migration 0155), where
 * jsonb_to_recordset would first build the whole document as jsonb and copy every value out of
 * it (items: ingest.store.ts).
 */
export async function storeVulnerabilities(tx: Queryable, target: StoreTarget, entries: IntelEntry[], known: ReadonlyMap<string, KnownItem>, now: Date): Promise<number> {
  const byId = new Map<string, IntelEntry & { vulnerability: VulnerabilityRecord }>();
  for (const e of entries) if (stored(e)) byId.set(keyOf(e), e); // one row per key in a statement (ON CONFLICT's rule)
  if (byId.size === 0) return 0;
  const row = (e: IntelEntry & { vulnerability: VulnerabilityRecord }) => ({
    vuln_id: keyOf(e),
    format: e.vulnerability.format,
    aliases: e.vulnerability.aliases,
    severity: e.vulnerability.severity,
    database_severity: e.vulnerability.databaseSeverity,
    published: instant(e.publishedAt),
    modified: instant(modifiedOf(e)),
    withdrawn: instant(e.vulnerability.withdrawn),
    affected: e.vulnerability.affected,
    // NVD's CPE criteria and KEV's listing (migration 0159); absent for the other formats (SQL NULL).
    configurations: e.vulnerability.configurations ?? null,
    exploited: e.vulnerability.exploited ?? null,
  });
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
      published = excluded.published, modified = excluded.modified, withdrawn = excluded.withdrawn, affected = excluded.affected,
      configurations = excluded.configurations, exploited = excluded.exploited, stored_at = excluded.stored_at
    WHERE s.modified IS NULL OR excluded.modified IS NULL OR s.modified <> excluded.modified`,
    ],
  ] as const) {
    if (group.length === 0) continue;
    const { numAffectedRows } = await sql`
      INSERT INTO intel_vulnerabilities AS s (organization_id, source_id, vuln_id, format, aliases, severity, database_severity, published, modified, withdrawn, affected, configurations, exploited, stored_at)
      SELECT ${target.organizationId}::uuid, ${target.sourceId}::uuid, r.vuln_id, r.format, r.aliases, r.severity, r.database_severity, r.published, r.modified, r.withdrawn, r.affected, r.configurations, r.exploited, ${now}::timestamptz
      FROM json_to_recordset(${JSON.stringify(group.map(row))}::json) AS r(vuln_id text, format text, aliases text[], severity json, database_severity text, published timestamptz, modified timestamptz, withdrawn timestamptz, affected json, configurations json, exploited json)
      ${onConflict}`.execute(tx);
    written += Number(numAffectedRows ?? 0);
  }
  return written;
}
