import type { AffectedPackage } from '../intel/index.js';
import { compareIn, schemeOf, type VersionScheme } from './ecosystems.fns.js';

/**
 * An installed version against a structured affected package (OSV semantics,
 * https://ossf.github.io/osv-schema/#evaluation): each range's events, sorted by the
 * ecosystem's version order, make segments [introduced, fixed) or [introduced, last_affected];
 * a `limit` caps the range; the `versions` list adds exact versions. Pure, no I/O.
 */
export type StructuredVerdict = 'affected' | 'not_affected' | 'unknown';

export interface Segment {
  introduced: string;
  fixed: string | null;
  lastAffected: string | null;
}

export interface PackageVerdict {
  verdict: StructuredVerdict;
  /** The segment the version falls in (affected), else every segment, in range notation. */
  affectedRange: string | null;
  /** The first fixed version above the installed one, when the range names it. */
  fixedVersion: string | null;
}

export function segmentsOf(pkg: AffectedPackage, scheme: VersionScheme): Segment[] {
  const out: Segment[] = [];
  for (const range of pkg.ranges) {
    const events = [...range.events].sort((a, b) => cmpEvent(scheme, a, b));
    const limit = events.find((e) => e.limit !== undefined)?.limit;
    let open: string | null = null;
    for (const e of events) {
      if (e.introduced !== undefined) open ??= e.introduced;
      else if (open !== null && (e.fixed !== undefined || e.last_affected !== undefined)) {
        out.push({ introduced: open, fixed: e.fixed ?? null, lastAffected: e.last_affected ?? null });
        open = null;
      }
    }
    if (open !== null) out.push({ introduced: open, fixed: limit ?? null, lastAffected: null });
  }
  return out;
}

function eventVersion(e: { introduced?: string; fixed?: string; last_affected?: string; limit?: string }): string {
  return e.introduced ?? e.fixed ?? e.last_affected ?? e.limit ?? '0';
}

function cmpEvent(scheme: VersionScheme, a: Parameters<typeof eventVersion>[0], b: Parameters<typeof eventVersion>[0]): number {
  const va = eventVersion(a);
  const vb = eventVersion(b);
  if (va === '0' || vb === '0') return va === vb ? 0 : va === '0' ? -1 : 1;
  return compareIn(scheme, va, vb);
}

function contains(scheme: VersionScheme, v: string, s: Segment): boolean {
  if (s.introduced !== '0' && compareIn(scheme, v, s.introduced) < 0) return false;
  if (s.fixed !== null) return compareIn(scheme, v, s.fixed) < 0;
  if (s.lastAffected !== null) return compareIn(scheme, v, s.lastAffected) <= 0;
  return true;
}

export function rangeText(s: Segment): string {
  const parts = [s.introduced !== '0' ? `>=${s.introduced}` : '', s.fixed !== null ? `<${s.fixed}` : s.lastAffected !== null ? `<=${s.lastAffected}` : ''].filter(Boolean);
  return parts.length ? parts.join(' ') : 'every version';
}

export function evaluatePackage(pkg: AffectedPackage, installed: string | null | undefined): PackageVerdict {
  const scheme = schemeOf(pkg.ecosystem);
  const segments = segmentsOf(pkg, scheme);
  const all = [...segments.map(rangeText), ...pkg.versions.map((v) => `=${v}`)];
  const summary = all.length ? all.join(', ') : null;
  const v = installed?.trim();
  const csaf = pkg.fixed !== undefined || pkg.unaffected !== undefined;
  if (!v || (!csaf && segments.length === 0 && pkg.versions.length === 0)) return { verdict: 'unknown', affectedRange: summary, fixedVersion: null };
  const hit = segments.find((s) => contains(scheme, v, s));
  if (hit) return { verdict: 'affected', affectedRange: rangeText(hit), fixedVersion: hit.fixed ?? nextFix(scheme, v, pkg.fixed ?? []) };
  const fixes = pkg.fixed ?? [];
  if (pkg.versions.some((x) => x === v || compareIn(scheme, x, v) === 0)) {
    return { verdict: 'affected', affectedRange: `=${v}`, fixedVersion: nextFix(scheme, v, fixes) };
  }
  if (pkg.fixed === undefined && pkg.unaffected === undefined) return { verdict: 'not_affected', affectedRange: summary, fixedVersion: null };
  return csafRest(scheme, v, pkg, summary);
}

/**
 * The range to cite for a version that no range contains (issue 47 §17): an advisory lists one
 * range per release line, often as separate entries of the same package (the GitHub Advisory
 * Database's `ws`: `>=2.1.0 <5.2.4`, `>=6.0.0 <6.2.3`, `>=7.0.0 <7.5.10`, `>=8.0.0 <8.17.1`).
 * "7.8.6 is outside <5.2.4" answers nothing; "outside >=7.0.0 <7.5.10" says why. The cited
 * range is the one of the version's own line: among the ranges whose major versions span the
 * version's major, the last introduced at or below it (log4j's 2.15.0: `>=2.13.0 <2.15.0`, not
 * `<2.3.1`); when no range is on its line, every range. `packages`: the entries of one package
 * in one advisory. Null when they give no range (the caller keeps its own words).
 */
export function citedRange(packages: readonly AffectedPackage[], installed: string): string | null {
  const scheme = schemeOf(packages[0]?.ecosystem ?? '');
  const segments = packages.flatMap((p) => segmentsOf(p, scheme));
  const exact = [...new Set(packages.flatMap((p) => p.versions))];
  const all = [...new Set([...segments.map(rangeText), ...exact.map((v) => `=${v}`)])];
  if (all.length === 0) return null;
  const major = majorOf(installed);
  const onLine = segments.filter((s) => {
    const from = s.introduced === '0' ? 0 : majorOf(s.introduced);
    const upper = s.fixed ?? s.lastAffected;
    const to = upper === null ? Infinity : majorOf(upper);
    return major !== null && from !== null && to !== null && from <= major && major <= to && (s.introduced === '0' || compareIn(scheme, s.introduced, installed) <= 0);
  });
  if (onLine.length === 0) return all.join(', ');
  const nearest = onLine.reduce((a, b) => (a.introduced === '0' || (b.introduced !== '0' && compareIn(scheme, b.introduced, a.introduced) > 0) ? b : a));
  return rangeText(nearest);
}

/** The major version number (after an rpm/dpkg epoch and a `v`), or null when the version does not start with one. */
function majorOf(v: string): number | null {
  const m = /^(?:\d+:)?v?(\d+)/.exec(v);
  return m ? Number(m[1]) : null;
}

/**
 * A CSAF package for a version no affected range or version names. CSAF lists products, not
 * complete ranges: a version is not affected when the document says so (fixed or
 * known_not_affected, or at/after a fix on its own line — `2.12.2` fixes `2.12.4`; with a later
 * `2.16.0` also listed, not `2.13.0`);
 * a document that gives only fixes (Red Hat's) reads like OSV's `introduced 0, fixed X` on that
 * line; outside an affected vers range is not affected; a version the document does not
 * decide otherwise (only exact affected versions listed, none of them) is `unknown`.
 */
function csafRest(scheme: VersionScheme, v: string, pkg: AffectedPackage, summary: string | null): PackageVerdict {
  const same = (x: string) => x === v || compareIn(scheme, x, v) === 0;
  const fixes = pkg.fixed ?? [];
  if (fixes.some(same) || (pkg.unaffected ?? []).some(same)) return { verdict: 'not_affected', affectedRange: summary, fixedVersion: null };
  const line = lineOf(v);
  const onLine = fixes.filter((f) => lineOf(f) === line);
  const candidates = onLine.length ? onLine : fixes.length === 1 ? fixes : [];
  // A fix below the version covers it unless a later fix on the same line says the branch it is
  // on was fixed later (2.12.2 and 2.16.0: 2.12.4 is fixed, 2.13.0 is not decided by 2.12.2).
  const below = candidates.filter((f) => compareIn(scheme, v, f) >= 0);
  const above = candidates.length - below.length;
  if (below.length && (above === 0 || below.some((f) => lineOf(f, 2) === lineOf(v, 2)))) return { verdict: 'not_affected', affectedRange: summary, fixedVersion: null };
  const fixOnly = pkg.ranges.length === 0 && pkg.versions.length === 0;
  const next = nextFix(scheme, v, candidates);
  if (fixOnly && next) return { verdict: 'affected', affectedRange: `<${next}`, fixedVersion: next };
  // A vers range is a deliberate statement of bounds: outside it is not affected, as in OSV.
  if (pkg.ranges.length) return { verdict: 'not_affected', affectedRange: summary, fixedVersion: null };
  return { verdict: 'unknown', affectedRange: summary ?? (next ? `<${next}` : null), fixedVersion: null };
}

/** The release line of a version: its first number (or two), after an rpm/dpkg epoch (`1:0.17-65` → `0`). */
function lineOf(v: string, parts = 1): string {
  const m = /^(?:\d+:)?v?(\d+)(?:\.(\d+))?/.exec(v);
  return m ? (parts === 1 ? m[1]! : `${m[1]}.${m[2] ?? ''}`) : v;
}

function nextFix(scheme: VersionScheme, v: string, fixes: readonly string[]): string | null {
  const above = fixes.filter((f) => compareIn(scheme, f, v) > 0).sort((a, b) => compareIn(scheme, a, b));
  return above[0] ?? null;
}
