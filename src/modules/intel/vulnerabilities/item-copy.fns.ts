import type { AffectedPackage, VulnerabilityRecord } from '../entries.js';

/**
 * The formats the vulnerability store keeps (vulnerabilities.store.ts). OSV: the records hunt
 * matches by package. CSAF, NVD, KEV and EPSS keep their current paths (EPSS its own table).
 */
export const STORED_FORMATS: ReadonlySet<VulnerabilityRecord['format']> = new Set(['osv']);

/** A package as the item's own copy of a stored record names it: no ranges, no versions (the store holds them). */
export type ItemCopyPackage = Pick<AffectedPackage, 'ecosystem' | 'name' | 'purl'>;

/**
 * The item's copy of a record (`intel_items.vulnerability`) when the store holds the record in
 * the same transaction: its packages by name only (ecosystem, name, purl), which is what the
 * feed's search reads (`$.affected[*].name`, migration 0110); their ranges and versions are
 * written once, to the store (migration 0154), and read from there by hunt and the re-enrichment
 * job. A record of another format is copied whole, as before.
 */
export function itemCopyOf(v: VulnerabilityRecord): VulnerabilityRecord | (Omit<VulnerabilityRecord, 'affected'> & { affected: ItemCopyPackage[] }) {
  if (!STORED_FORMATS.has(v.format)) return v;
  return { ...v, affected: v.affected.map((a) => ({ ecosystem: a.ecosystem, name: a.name, purl: a.purl })) };
}
