import { extractIocs, INDICATOR_TYPES, normalizeIndicator, refang, type IndicatorType } from '../../intel/index.js';

const TYPES: ReadonlySet<string> = new Set(INDICATOR_TYPES);
const HASH_BY_LENGTH: Readonly<Record<number, IndicatorType>> = { 32: 'md5', 40: 'sha1', 64: 'sha256', 128: 'sha512' };

/**
 * A value a model or a person typed, as an indicator: refanged (`evil[.]com` → `evil.com`, `hxxp`
 * → `http`), its type recognised by the extractor when the whole value is exactly one indicator
 * (also one it would drop as reserved or benign: a lookup of a documentation address must still
 * find what a source asserted), and its value in the one stored form (intel's normalizeIndicator).
 * Unrecognised: the refanged, trimmed value and no type.
 */
export function parseIndicator(raw: string): { value: string; type: IndicatorType | null } {
  const value = refang(raw.trim());
  if (value === '') return { value, type: null };
  const { iocs, dropped } = extractIocs(value);
  const kind = iocs.find((i) => covers(i.spans[0], value))?.kind ?? dropped.find((d) => d.normalizedValue && covers(d.span, value))?.kind;
  if (kind && TYPES.has(kind)) return { value: normalizeIndicator(kind as IndicatorType, value), type: kind as IndicatorType };
  // A hash the extractor leaves out (too regular to be one in prose) is still looked up as a hash.
  const hash = /^[0-9a-f]+$/i.test(value) ? HASH_BY_LENGTH[value.length] : undefined;
  if (hash) return { value: normalizeIndicator(hash, value), type: hash };
  return { value, type: null };
}

function covers(span: { start: number; end: number } | undefined, text: string): boolean {
  return !!span && span.start <= 0 && span.end >= text.length;
}
