import type { AssertedIndicatorType } from './indicator-vocabulary.js';

/**
 * What every connector produces (intel-ingest's connectors): source-neutral entries. The sync
 * job stores each as one intel item per (source, externalId), enriched by intel-ingest's pipeline;
 * intel owns the shape because its stores write it and hunt reads the vulnerability records.
 */
export type { AssertedIndicatorType };

/** An indicator the source itself asserted (MISP `to_ids` attribute, STIX pattern). */
export interface StructuredIndicator {
  type: AssertedIndicatorType;
  value: string;
  /** 0..1, from the source when it says (STIX `confidence`/100, MISP default 0.8). */
  confidence: number;
  /** Where it came from inside the entry, e.g. `misp:attribute:<uuid>` or `stix:pattern`. */
  origin: string;
  /** For compound or patterned indicators, the original expression. */
  context?: string;
}

export interface IntelEntry {
  /** Stable id from the source: RSS guid/link, Atom id, STIX id, MISP event uuid. */
  externalId: string;
  title: string;
  url: string | null;
  publisher: string | null;
  /** ISO 8601 UTC, or null when the source gives no parseable date. */
  publishedAt: string | null;
  updatedAt: string | null;
  language: string | null;
  /** Clean plain text (HTML stripped, entities decoded, whitespace normalised). */
  contentText: string;
  /** Original HTML for display, when the source gave HTML. */
  contentHtml: string | null;
  indicators: StructuredIndicator[];
  /** Links the source marks as references, not indicators (e.g. MISP `link` with to_ids false). */
  references: string[];
  tags: string[];
  /** The source object (STIX object, MISP event, feed item) for audit and re-processing. */
  raw: unknown;
  /** Structured vulnerability data (OSV record), when the source is a vulnerability database. */
  vulnerability?: VulnerabilityRecord;
  /**
   * The instant the vulnerability store compares to skip an unchanged record, when the source
   * dates the record otherwise than `updatedAt` (KEV: the catalog's `dateReleased`, as its entries
   * carry no date of their own change). Not part of the item or its content hash: a new catalog
   * release must not make every unchanged entry an updated item.
   */
  recordModified?: string | null;
}

/**
 * Structured vulnerability data a source asserts (OSV, CSAF, NVD, CISA KEV): which packages, by
 * identity, in which version ranges. Kept in intel's vulnerability store beside the item for
 * hunt's package-accurate matching (the item's own copy, `intel_items.vulnerability`, keeps what
 * the feed's search and the threat views read: item-copy.fns.ts); the prose of the same entry
 * still goes through the pipeline like any other text.
 */
export interface VulnerabilityRecord {
  format: 'osv' | 'cisa_kev' | 'nvd' | 'csaf';
  /** The record's own id (GHSA-…, PYSEC-…, GO-…, CVE-…). */
  id: string;
  /** Other ids of the same vulnerability (CVE ↔ GHSA ↔ PYSEC). */
  aliases: string[];
  /** ISO time the record was withdrawn: the vulnerability no longer stands. */
  withdrawn: string | null;
  /** CVSS vectors (`{type: 'CVSS_V3', score: 'CVSS:3.1/…'}`) and the database's own severity word. */
  severity: Array<{ type: string; score: string }>;
  databaseSeverity: string | null;
  affected: AffectedPackage[];
  /** What of the record was not understood or is out of scope (GIT ranges), in words. */
  notes: string[];
  /** Known exploitation (CISA KEV): when it was listed, the federal due date, known ransomware use. */
  exploited?: { source: 'cisa_kev'; dateAdded: string | null; dueDate: string | null; knownRansomwareUse: boolean; vendorProject?: string | null; product?: string | null };
  /** NVD `configurations` (CPE match criteria with version bounds), read by the enrichment. */
  configurations?: unknown;
}

export interface AffectedPackage {
  /** OSV ecosystem ("npm", "PyPI", "Maven", "Go", "Debian:12"…). */
  ecosystem: string;
  name: string;
  /** The package's purl without version, when the source gave one. */
  purl: string | null;
  ranges: Array<{ type: 'SEMVER' | 'ECOSYSTEM'; events: Array<{ introduced?: string; fixed?: string; last_affected?: string; limit?: string }> }>;
  /** Versions listed one by one as affected. */
  versions: string[];
  /** CSAF products identified by CPE only: `cpe:2.3:<part>:<vendor>:<product>` (purl is null). */
  cpe?: string | null;
  /**
   * CSAF: versions the document says are fixed / not affected. When present the lists are not
   * exhaustive: a version neither affected, fixed nor covered by a fix on its line is `unknown`.
   */
  fixed?: string[];
  unaffected?: string[];
  /**
   * CSAF: the statement is about this package as a component of a platform product (a
   * relationship's `relates_to_product_reference`): it holds only where that product runs.
   */
  platform?: { name: string; purl: string | null; cpe: string | null } | null;
}
