import { extractIocs, refang } from '../../intel/index.js';

/**
 * The form an indicator is stored under, for a value a model or a person typed: refanged
 * (`evil[.]com` → `evil.com`, `hxxp` → `http`), then normalized by the extractor when it
 * recognizes exactly one indicator (also when it would drop it as reserved or benign: a lookup
 * of a documentation address must still find what a source asserted). Otherwise the refanged,
 * trimmed value, lower-cased when it is a host or hash-like token.
 */
export function normalizeIndicatorValue(raw: string): string {
  return parseIndicator(raw).value;
}

/** The normalized value and, when the extractor recognized it, its type (`domain`, `ipv4`, `sha256`…). */
export function parseIndicator(raw: string): { value: string; type: string | null } {
  const value = refang(raw.trim());
  if (value === '') return { value, type: null };
  const { iocs, dropped } = extractIocs(value);
  const whole = iocs.find((i) => covers(i.spans[0], value));
  if (whole) return { value: whole.normalizedValue, type: whole.kind };
  const droppedWhole = dropped.find((d) => d.normalizedValue && covers(d.span, value));
  if (droppedWhole?.normalizedValue) return { value: droppedWhole.normalizedValue, type: droppedWhole.kind };
  return { value: /^[A-Za-z0-9.:_-]+$/.test(value) ? value.toLowerCase() : value, type: null };
}

function covers(span: { start: number; end: number } | undefined, text: string): boolean {
  return !!span && span.start <= 0 && span.end >= text.length;
}
