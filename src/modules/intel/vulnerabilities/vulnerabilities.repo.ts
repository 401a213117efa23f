import { sql } from 'kysely';
import type { Queryable } from '../../../platform/db/database.js';
import type { AffectedPackage } from '../entries.js';

/** A stored record as its item names it: the item's source and external id (the record's OSV `id`). */
export interface StoredRecordRef {
  sourceId: string;
  vulnId: string;
}

/** The key of a record in `storedPackagesOf`'s answer. */
export const storedRecordKey = (r: StoredRecordRef): string => `${r.sourceId}\u0000${r.vulnId}`;

/**
 * The affected packages of these stored records (the vulnerability store, migrations 0154 and
 * 0155), in one statement for a whole batch, each record's packages in the order its `affected`
 * lists them. Hunt asks only for the records whose packages an asset runs (most records of an
 * export name packages no asset has). A record the store does not hold is absent from the answer (an item stored before the
 * store existed: the caller reads the item's own copy); a record held with no package maps to [].
 * Asked in the primary key's shape (organization, then sources and ids as arrays): a join on
 * `unnest` of the (source, id) pairs cost 40–78 ms per batch of 500 at 20,000 records, this shape
 * 6 ms (pg_stat_statements, docs/performance-history.md, 2026-11-30). A pair not asked for but
 * matched by the arrays (an id asked under another source) is left out.
 */
export async function storedPackagesOf(db: Queryable, organizationId: string, refs: readonly StoredRecordRef[]): Promise<Map<string, AffectedPackage[]>> {
  const out = new Map<string, AffectedPackage[]>();
  if (refs.length === 0) return out;
  const wanted = new Set(refs.map(storedRecordKey));
  const { rows } = await sql<{ sourceId: string; vulnId: string; affected: AffectedPackage[] }>`
    SELECT source_id AS "sourceId", vuln_id AS "vulnId", affected
    FROM intel_vulnerabilities
    WHERE organization_id = ${organizationId}
      AND source_id = ANY(${[...new Set(refs.map((r) => r.sourceId))]}::uuid[])
      AND vuln_id = ANY(${[...new Set(refs.map((r) => r.vulnId))]}::text[])`.execute(db);
  for (const r of rows) {
    const key = storedRecordKey(r);
    if (wanted.has(key)) out.set(key, r.affected);
  }
  return out;
}
