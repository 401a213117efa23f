import { refang } from '../extract/extract.fns.js';

import { INDICATOR_GROUPS, INDICATOR_TYPES, type IndicatorType } from '../indicator-vocabulary.js';

export { INDICATOR_TYPES, type IndicatorType };

/**
 * Names that stand for several types (documented in docs/intel.md and the OpenAPI description).
 * A Map, not an object literal: `constructor` or `__proto__` from a query string must not
 * resolve to Object.prototype's members.
 */
export const TYPE_ALIASES: ReadonlyMap<string, readonly IndicatorType[]> = new Map(Object.entries(INDICATOR_GROUPS));

const KNOWN = new Set<string>(INDICATOR_TYPES);

/**
 * `type=ipv4,domain` or `type=ip`: the types asked for (aliases expanded, case-insensitive,
 * duplicates removed), or the names nobody knows, so the caller answers 400 instead of an
 * empty page.
 */
export function parseTypeFilter(raw: string): { types: IndicatorType[] } | { unknown: string[] } {
  const names = raw.split(',').map((p) => p.trim().toLowerCase()).filter(Boolean);
  const unknown = names.filter((n) => !KNOWN.has(n) && !TYPE_ALIASES.has(n));
  if (unknown.length > 0 || names.length === 0) return { unknown: names.length === 0 ? [raw] : unknown };
  return { types: [...new Set(names.flatMap((n) => TYPE_ALIASES.get(n) ?? [n as IndicatorType]))] };
}

/**
 * Types whose values are file-system or registry paths: a backslash before a dot there is a
 * path separator (`HKCU\Software\.NET`), not the `\.` defang form.
 */
const PATH_TYPES = new Set(['registry-key', 'filename', 'process', 'mutex']);

/** Was the value written defanged (`hxxp://`, `[.]`, `[at]`…)? The extractor's own refang decides. */
export function isDefangedValue(type: string, value: string): boolean {
  return !PATH_TYPES.has(type) && refang(value) !== value;
}
