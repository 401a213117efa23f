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
 * The affected packages of these stored records (the vulnerability store, migration 0154), in
 * one statement for a whole batch, each record's packages in the order its `affected` lists
 * them. A record the store does not hold is absent from the answer (an item stored before the
 * store existed: the caller reads the item's own copy); a record held with no package maps to [].
 */
export async function storedPackagesOf(db: Queryable, organizationId: string, refs: readonly StoredRecordRef[]): Promise<Map<string, AffectedPackage[]>> {
  const out = new Map<string, AffectedPackage[]>();
  if (refs.length === 0) return out;
  const { rows } = await sql<{ sourceId: string; vulnId: string; affected: AffectedPackage[] }>`
    SELECT v.source_id AS "sourceId", v.vuln_id AS "vulnId", v.affected
    FROM intel_vulnerabilities v
    JOIN unnest(${refs.map((r) => r.sourceId)}::uuid[], ${refs.map((r) => r.vulnId)}::text[]) AS w(source_id, vuln_id) ON w.source_id = v.source_id AND w.vuln_id = v.vuln_id
    WHERE v.organization_id = ${organizationId}`.execute(db);
  for (const r of rows) out.set(storedRecordKey(r), r.affected);
  return out;
}
