/** Shared types for indicator extraction (pure, no I/O). */

import type { IocKind } from '../indicator-vocabulary.js';

export type { IocKind };

export interface Span {
  start: number;
  end: number;
}

export interface ExtractedIoc {
  kind: IocKind;
  /** As found in the text (first occurrence), possibly defanged: text.slice(spans[0].start, spans[0].end). */
  value: string;
  normalizedValue: string;
  /** 0..1 */
  confidence: number;
  /** Every occurrence, exact offsets into the input (sorted by start). */
  spans: Span[];
  /** True when at least one occurrence was written in a defanged form. */
  defanged: boolean;
  /** Finer type where useful: 'aws-arn', 'aws-access-key', 'azure-subscription', 'gcp-project', 'sha1'/'sha256' for certs, 'path' for files… */
  subtype?: string;
}

/**
 * Why a candidate was not kept:
 * - invalid: syntactically wrong (bad octet, unknown TLD, wrong hash length…)
 * - reserved: valid, but a documentation / private / loopback / special-use value
 * - benign: valid and public, but well-known benign infrastructure
 * - ambiguous: most likely not an indicator at all (file name, version number, phone number, prose)
 */
export type DropCategory = 'invalid' | 'reserved' | 'benign' | 'ambiguous';

export interface DroppedCandidate {
  kind: IocKind;
  /** As found: text.slice(span.start, span.end). */
  value: string;
  reason: string;
  span: Span;
  category: DropCategory;
  /** Present when the candidate was valid enough to be normalized (reserved / benign ones). */
  normalizedValue?: string;
}

export interface ExtractOptions {
  /**
   * The text is file-centric (sandbox report, file listing, archive manifest): names whose extension is also a
   * TLD are treated as files even when defanged, and a few more extensions (.pl, .ai, .ps…) count as ambiguous.
   */
  fileContext?: boolean;
}

export interface ExtractResult {
  iocs: ExtractedIoc[];
  dropped: DroppedCandidate[];
}
