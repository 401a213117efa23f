/**
 * Version comparison and the range notation intel items carry in `affectedProducts[].versions`
 * (see intel's versions.fns.ts): `7.0.12`, `7.x`, `>=1.2 <=1.4`, `<2.3.1`, `<=2.3`, `>=2.3`.
 * Pure, no I/O.
 */

type Part = number | string;

/** "2.14.1" → [2, 14, 1]; "2.0-beta9" → [2, 0, "beta", 9]; "9.1R14" → [9, 1, "r", 14]. */
export function versionParts(version: string): Part[] {
  const parts: Part[] = [];
  for (const m of version.trim().replace(/^v/i, '').toLowerCase().matchAll(/\d+|[a-z]+/g)) {
    parts.push(/^\d/.test(m[0]) ? Number(m[0]) : m[0]);
  }
  return parts;
}

// Pre-release words sort before the release they precede (2.0-beta9 < 2.0); other letters
// (9.1R14, 1.1.1w) are patch levels that sort after it.
export const PRE_RELEASE: ReadonlySet<string> = new Set(['alpha', 'a', 'beta', 'b', 'rc', 'pre', 'preview', 'dev', 'snapshot', 'm']);
const PRE = PRE_RELEASE;

/** Compares two versions: negative, 0 or positive. Missing trailing parts count as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = versionParts(a);
  const pb = versionParts(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i];
    const y = pb[i];
    if (x === y) continue;
    if (x === undefined) return typeof y === 'string' && PRE.has(y) ? 1 : typeof y === 'number' && y === 0 ? 0 : -1;
    if (y === undefined) return typeof x === 'string' && PRE.has(x) ? -1 : typeof x === 'number' && x === 0 ? 0 : 1;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    if (typeof x === 'string' && typeof y === 'string') {
      const px = PRE.has(x);
      const py = PRE.has(y);
      if (px !== py) return px ? -1 : 1;
      return x < y ? -1 : 1;
    }
    // A number against a word: 2.0.1 vs 2.0-beta → the number is later unless the word is a patch letter.
    const word = (typeof x === 'string' ? x : y) as string;
    const numberFirst = typeof x === 'number';
    const numberLater = PRE.has(word);
    return numberFirst === numberLater ? 1 : -1;
  }
  return 0;
}

export type RangeVerdict = 'inside' | 'outside' | 'unknown';

/** One range entry against one installed version. */
export function inRange(version: string, range: string): boolean {
  const r = range.trim();
  const clauses = r.split(/\s+/).filter(Boolean);
  if (clauses.every((c) => /^(>=|<=|>|<|=)/.test(c))) {
    return clauses.every((c) => {
      const m = /^(>=|<=|>|<|=)(.+)$/.exec(c)!;
      const cmp = compareVersions(version, m[2]!);
      switch (m[1]) {
        case '>=': return cmp >= 0;
        case '<=': return cmp <= 0;
        case '>': return cmp > 0;
        case '<': return cmp < 0;
        default: return cmp === 0;
      }
    });
  }
  // A wildcard (7.x, 7.*) covers every version with that prefix; a bare version only itself.
  const wild = /^(.*?)[.][x*]$/i.exec(r);
  if (wild) {
    const prefix = versionParts(wild[1]!);
    const parts = versionParts(version);
    return prefix.every((p, i) => parts[i] === p);
  }
  return compareVersions(version, r) === 0;
}

/** Whether an installed version falls inside any of the advisory's ranges. */
export function versionVerdict(installed: string | null | undefined, ranges: readonly string[]): RangeVerdict {
  const v = installed?.trim();
  const usable = ranges.map((r) => r.trim()).filter((r) => /\d/.test(r));
  if (!v || !/\d/.test(v) || usable.length === 0) return 'unknown';
  return usable.some((r) => inRange(v, r)) ? 'inside' : 'outside';
}
