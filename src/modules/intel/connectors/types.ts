/**
 * What every connector produces: source-neutral entries. The sync job stores each as one intel
 * item per (source, externalId); the pipeline (a later stage) enriches them.
 */
export type IndicatorType =
  | 'ipv4'
  | 'ipv6'
  | 'domain'
  | 'url'
  | 'email'
  | 'md5'
  | 'sha1'
  | 'sha256'
  | 'sha512'
  | 'ssdeep'
  | 'filename'
  | 'registry-key'
  | 'process'
  | 'mutex'
  | 'cert'
  | 'asn'
  | 'cve'
  | 'other';

/** An indicator the source itself asserted (MISP `to_ids` attribute, STIX pattern). */
export interface StructuredIndicator {
  type: IndicatorType;
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
}

/** A feed or API document could not be understood; the message is shown to users as lastError. */
export class ConnectorParseError extends Error {}
