import { compareWfns, cpeDisjoint, cpeSuperset, parseWfn, plainValue, type Wfn } from './cpe-match.fns.js';
import { keysMatch, productKey } from './inventory.fns.js';
import { compareVersions, PRE_RELEASE, versionParts } from './versions.fns.js';
import type { InventorySoftware, SoftwareMatch, Verdict } from './matching.fns.js';

/**
 * An NVD CVE record's own `configurations` against inventory software (docs/hunt.md "NVD"): each
 * vulnerable cpeMatch criterion is a CPE name plus optional version bounds. Software with a CPE
 * is compared attribute by attribute (NIST IR 7696, cpe-match.fns.ts): a criterion applies when it
 * is a superset of the software's name (with the version the inventory gives), is disjoint from it
 * otherwise (edition `-` vs `fips`), and leaves the version undecided when the software's name is
 * broader than the criterion. Software without a CPE is compared by product name and version only.
 * Nothing else of the record (its description, another record's ranges) adds ranges. Pure.
 */
export interface NvdCriterion {
  criteria: string;
  wfn: Wfn;
  /** The criterion's vendor/product as an inventory product key (`apache:http_server` → `http server`). */
  key: string;
  startIncluding: string | null;
  startExcluding: string | null;
  endIncluding: string | null;
  endExcluding: string | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The vulnerable criteria of NVD `configurations` (API 2.0 `cpeMatch`/`criteria`, or the 1.1 feeds'
 * `cpe_match`/`cpe23Uri`). `vulnerable: false` criteria name the platform a product runs on: not
 * the vulnerable software, not matched (docs/hunt.md: platform conditions are not evaluated).
 */
export function nvdCriteria(configurations: unknown): NvdCriterion[] {
  const out: NvdCriterion[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (depth > 12) return;
    if (Array.isArray(v)) return v.forEach((x) => walk(x, depth + 1));
    if (!isObj(v)) return;
    const criteria = str(v.criteria) ?? str(v.cpe23Uri);
    if (criteria) {
      const wfn = v.vulnerable !== false ? parseWfn(criteria) : null;
      const vendor = wfn && plainValue(wfn.vendor);
      const product = wfn && plainValue(wfn.product);
      if (wfn && vendor && product) {
        out.push({
          criteria, wfn, key: productKey(vendor.replace(/_/g, ' '), product.replace(/_/g, ' ')),
          startIncluding: str(v.versionStartIncluding), startExcluding: str(v.versionStartExcluding),
          endIncluding: str(v.versionEndIncluding), endExcluding: str(v.versionEndExcluding),
        });
      }
      return;
    }
    for (const k of ['configurations', 'nodes', 'children', 'cpeMatch', 'cpe_match']) if (k in v) walk(v[k], depth + 1);
  };
  walk(configurations, 0);
  return out;
}

const bounded = (c: NvdCriterion) => !!(c.startIncluding || c.startExcluding || c.endIncluding || c.endExcluding);

/**
 * An exact criterion's release as vendors write it: the version with its CPE update joined
 * (`22.4` + `r2.1` → `22.4r2.1`, Ivanti's 22.4R2.1; `9.3` + `p1` → `9.3p1`), else the version.
 */
function exactRelease(c: NvdCriterion): string | null {
  const v = plainValue(c.wfn.version);
  const u = plainValue(c.wfn.update);
  if (!v) return null;
  return u ? `${v}${/^\d/.test(u) ? '-' : ''}${u}` : v;
}

/** The criterion's range as text: `>=8.5 <9.8`, `<=2.16.0`, `=2.4.49` or `=22.4r2.1` for an exact release, `every version`. */
export function criterionRange(c: NvdCriterion): string {
  const parts: string[] = [];
  if (c.startIncluding) parts.push(`>=${c.startIncluding}`);
  else if (c.startExcluding) parts.push(`>${c.startExcluding}`);
  if (c.endIncluding) parts.push(`<=${c.endIncluding}`);
  else if (c.endExcluding) parts.push(`<${c.endExcluding}`);
  if (parts.length) return parts.join(' ');
  const v = exactRelease(c);
  return v ? `=${v}` : 'every version';
}

function inBounds(version: string, c: NvdCriterion): boolean {
  if (c.startIncluding && compareVersions(version, c.startIncluding) < 0) return false;
  if (c.startExcluding && compareVersions(version, c.startExcluding) <= 0) return false;
  if (c.endIncluding && compareVersions(version, c.endIncluding) > 0) return false;
  if (c.endExcluding && compareVersions(version, c.endExcluding) >= 0) return false;
  return true;
}

type Outcome = { verdict: Verdict; criterion: NvdCriterion } | null;

/** One criterion against one software entry: null when it does not speak of that software. */
function evaluate(c: NvdCriterion, s: InventorySoftware, own: Wfn | null): Outcome {
  const version = s.version?.trim() || (own ? plainValue(own.version) : null);
  if (own) {
    // The inventory's version stands for the CPE's own when the CPE leaves it ANY.
    const target: Wfn = own.version.kind === 'any' && version ? { ...own, version: parseWfn(`cpe:2.3:a:x:x:${version.replace(/([^A-Za-z0-9_.*?-])/g, '\\$1')}`)!.version } : own;
    // A ranged criterion leaves its version ANY (NVD writes `*`): the bounds decide the version.
    const relation = compareWfns(c.wfn, target, bounded(c) ? ['version'] : []);
    if (cpeDisjoint(relation)) return c.key === s.productKey || sameProduct(c, own) ? { verdict: 'not_affected', criterion: c } : null;
    if (!cpeSuperset(relation)) return { verdict: 'unknown', criterion: c };
  } else if (!keysMatch(c.key, s.productKey)) return null;
  if (!version || !/\d/.test(version)) return { verdict: 'unknown', criterion: c };
  if (bounded(c)) return { verdict: inBounds(version, c) ? 'affected' : 'not_affected', criterion: c };
  const exact = plainValue(c.wfn.version);
  // Name-only software against an exact-version criterion: versions compared by value (2.4.49 =
  // 2.4.49.0), the criterion's update joined as vendors write it (22.4 + r2.1 = 22.4R2.1); an ANY
  // update (`9.0:*`) covers every update of that version (9.0R3).
  if (!own && exact) return { verdict: /\d/.test(exact) && nameOnlyRelease(version, c) ? 'affected' : 'not_affected', criterion: c };
  return { verdict: own || c.wfn.version.kind === 'any' ? 'affected' : 'not_affected', criterion: c };
}

function nameOnlyRelease(version: string, c: NvdCriterion): boolean {
  if (compareVersions(version, exactRelease(c)!) === 0) return true;
  if (c.wfn.update.kind !== 'any') return false;
  // `9.0R3` against `9.0:*`: the version's parts begin with the criterion's, then an update word.
  const want = versionParts(plainValue(c.wfn.version)!);
  const got = versionParts(version);
  return want.every((p, i) => got[i] === p) && typeof got[want.length] === 'string' && !PRE_RELEASE.has(got[want.length] as string);
}

/** The same vendor and product (the identity), whatever the other attributes say. */
function sameProduct(c: NvdCriterion, own: Wfn): boolean {
  return plainValue(c.wfn.vendor) === plainValue(own.vendor) && plainValue(c.wfn.product) === plainValue(own.product);
}

const RANK: Record<Verdict, number> = { affected: 0, unknown: 1, not_affected: 2 };

/**
 * Every software entry an NVD record's criteria speak of, with one verdict: affected when a
 * criterion contains it (its range is that criterion's one segment, its fix the segment's
 * `versionEndExcluding`), else unknown when one may, else not affected.
 */
export function matchNvd(advisoryId: string, criteria: readonly NvdCriterion[], software: readonly InventorySoftware[]): SoftwareMatch[] {
  const out: SoftwareMatch[] = [];
  for (const s of new Set(software)) {
    const own = s.cpe ? parseWfn(s.cpe) : null;
    let best: { verdict: Verdict; criterion: NvdCriterion } | null = null;
    const spoken: NvdCriterion[] = [];
    for (const c of criteria) {
      const o = evaluate(c, s, own);
      if (!o) continue;
      if (o.verdict !== 'not_affected' || !cpeDisjoint(compareWfns(c.wfn, own ?? c.wfn, ['version']))) spoken.push(c);
      if (!best || RANK[o.verdict] < RANK[best.verdict]) best = o;
    }
    if (!best) continue;
    const c = best.criterion;
    const affected = best.verdict === 'affected';
    // Not affected: the ranges that speak of this very name (its edition's), so the reader sees why.
    const ranges = affected ? criterionRange(c) : [...new Set((spoken.length ? spoken : [c]).map(criterionRange))].join(', ');
    out.push({
      software: s, verdict: best.verdict, product: `${plainValue(c.wfn.vendor)} ${plainValue(c.wfn.product)}`.replace(/_/g, ' '),
      affectedRange: ranges, fixedVersion: affected ? c.endExcluding : null, evidence: 'nvd', advisoryId, fromText: false,
    });
  }
  return out;
}
