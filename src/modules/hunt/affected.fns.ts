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
  if (!v || (segments.length === 0 && pkg.versions.length === 0)) return { verdict: 'unknown', affectedRange: summary, fixedVersion: null };
  const hit = segments.find((s) => contains(scheme, v, s));
  if (hit) return { verdict: 'affected', affectedRange: rangeText(hit), fixedVersion: hit.fixed };
  if (pkg.versions.some((x) => x === v || compareIn(scheme, x, v) === 0)) {
    return { verdict: 'affected', affectedRange: `=${v}`, fixedVersion: null };
  }
  return { verdict: 'not_affected', affectedRange: summary, fixedVersion: null };
}
