import type { AffectedPackage, VulnerabilityRecord } from '../entries.js';

/**
 * The formats the vulnerability store keeps (vulnerabilities.store.ts, migrations 0154 and 0159):
 * every structured record a connector gives. EPSS scores have their own table (items/epss.store.ts).
 */
export const STORED_FORMATS: ReadonlySet<VulnerabilityRecord['format']> = new Set(['osv', 'csaf', 'nvd', 'cisa_kev']);

/** A package as the item's own copy of a stored record names it: no ranges, no versions (the store holds them). */
export type ItemCopyPackage = Pick<AffectedPackage, 'ecosystem' | 'name' | 'purl'>;

/** The item's copy of a stored record: its structured parts left to the store. */
export type ItemCopy = Omit<VulnerabilityRecord, 'affected' | 'configurations' | 'exploited'> & { affected: ItemCopyPackage[] };

/**
 * The item's copy of a record (`intel_items.vulnerability`) when the store holds the record in
 * the same transaction: what the feed's search and the threat views read, nothing else. Kept:
 * format, id, aliases (the search vector, migration 0110; hunt's threats by CVE, threats.sync.ts),
 * withdrawn, severity, notes, and the packages by name only (ecosystem, name, purl: the search's
 * `$.affected[*].name`). Left to the store, written once there and read from there by hunt and
 * the re-enrichment job: the packages' ranges, versions, fixed and not-affected versions, CPE and
 * platform (OSV, CSAF), NVD's CPE `configurations`, KEV's `exploited` (hunt's threat views join
 * the store for it, threats.repo.ts). A record of another format is copied whole.
 */
export function itemCopyOf(v: VulnerabilityRecord): VulnerabilityRecord | ItemCopy {
  if (!STORED_FORMATS.has(v.format)) return v;
  const { configurations: _configurations, exploited: _exploited, ...rest } = v;
  return { ...rest, affected: v.affected.map((a) => ({ ecosystem: a.ecosystem, name: a.name, purl: a.purl })) };
}
