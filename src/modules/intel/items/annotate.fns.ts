import { scanIocs } from '../extract/extract.fns.js';

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
  // compact results: one object per occurrence shown, none in between
  const x = scanIocs(text);
  const indicators: AnnotatedText['indicators'] = [];
  for (let j = 0; j < x.size; j++) {
    const type = x.kind(j);
    if (NOT_INDICATORS.has(type)) continue;
    const normalizedValue = x.normalizedValue(j);
    const confidence = x.confidence(j);
    for (let k = 0; k < x.spanCount(j); k++) {
      const start = x.spanStart(j, k);
      const end = x.spanEnd(j, k);
      indicators.push({ type, value: text.slice(start, end), normalizedValue, confidence, start, end });
    }
  }
  indicators.sort((a, b) => a.start - b.start);
  const rejected: AnnotatedText['rejected'] = [];
  for (let d = 0; d < x.droppedSize; d++) rejected.push({ type: x.droppedKind(d), value: x.droppedValue(d), reason: x.droppedReason(d), start: x.droppedStart(d), end: x.droppedEnd(d) });
  return { text, indicators, rejected };
}
