import { extractIocs } from '../extract/extract.fns.js';

/**
 * The item's text with every extracted indicator at its exact character span, and every
 * candidate extraction rejected (with why): what a reader needs to see each indicator in place.
 * Extraction is pure and deterministic, so running it again on the stored text gives the spans
 * of the indicators ingestion kept (CVEs and ATT&CK ids are classification, not indicators).
 * Offsets are UTF-16 code units, as JavaScript's `String.prototype.slice` counts them.
 */
const NOT_INDICATORS = new Set(['cve', 'attack-technique']);

export interface AnnotatedText {
  text: string;
  indicators: Array<{ type: string; value: string; normalizedValue: string; confidence: number; start: number; end: number }>;
  rejected: Array<{ type: string; value: string; reason: string; start: number; end: number }>;
}

export function annotateText(text: string): AnnotatedText {
  const { iocs, dropped } = extractIocs(text);
  const indicators = iocs
    .filter((ioc) => !NOT_INDICATORS.has(ioc.kind))
    .flatMap((ioc) =>
      ioc.spans.map((s) => ({ type: ioc.kind, value: text.slice(s.start, s.end), normalizedValue: ioc.normalizedValue, confidence: ioc.confidence, start: s.start, end: s.end })),
    )
    .sort((a, b) => a.start - b.start);
  const rejected = dropped
    .map((d) => ({ type: d.kind, value: d.value, reason: d.reason, start: d.span.start, end: d.span.end }))
    .sort((a, b) => a.start - b.start);
  return { text, indicators, rejected };
}
