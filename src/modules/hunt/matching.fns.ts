import { parseVersionList, type AffectedPackage } from '../intel/index.js';
import { citedRange, evaluatePackage, type StructuredVerdict } from './affected.fns.js';
import { cpeKey, osvPackageKey, purlKey, purlVersion } from './identity.fns.js';
import { keysMatch, normalizeName, parseCpeName, productKey } from './inventory.fns.js';
import { inRange, versionParts, versionVerdict, type RangeVerdict } from './versions.fns.js';
import { fixCoverage, fixesInText, onlyPackagesIn, PLAIN_VERSION, proseContext } from './prose.fns.js';

/**
 * Advisories against inventory software, in order of evidence (docs/hunt.md "Evidence"):
 * 1. structured data (OSV records: package identity + ranges by the ecosystem's version rules)
 *    for software that has a purl — exact identity, never a name prefix;
 * 2. NVD records' CPE configurations (vendor/product + version bounds), as the item's product list;
 * 3. prose, only for software no structured record speaks about: the products the intel
 *    pipeline's dictionary found in the item (`affectedProducts`, CPE names included) and the
 *    organization's own product names written as products in the text. Prose never decides
 *    `affected` without a version range it really states.
 * Every match carries the machine-readable fields of `GET /api/threats/{id}` `matches`. Pure.
 */
export type Verdict = StructuredVerdict;
export type Evidence = 'osv' | 'csaf' | 'nvd' | 'advisory-text' | 'kev';

export interface AdvisoryProduct {
  vendor: string;
  product: string;
  versions: string[];
  /** Where the product came from: the item's product list, or the org's product named in its text. */
  via: 'advisory' | 'text';
  /** Versions the text gives as fixes ("fixed in 7.31.0 and 6.21.1", "upgrade to 4.29.1"). */
  fixed?: string[];
  /** The packages the text says are the only affected ones ("Only the log4j-core package is …"). */
  onlyPackages?: string[];
}

/** An intel item's structured vulnerability data, as hunt reads it. */
export interface StructuredAdvisory {
  advisoryId: string;
  evidence: 'osv' | 'csaf';
  packages: AffectedPackage[];
}

export interface InventorySoftware {
  assetId: string;
  identifier: string;
  kind: string;
  platform: string | null;
  internetFacing: boolean;
  criticality: string;
  vendor: string;
  product: string;
  version: string | null;
  productKey: string;
  purl: string | null;
  cpe: string | null;
}

export interface SoftwareMatch {
  software: InventorySoftware;
  verdict: Verdict;
  /** The product as the advisory names it (package name, or vendor + product). */
  product: string;
  affectedRange: string | null;
  fixedVersion: string | null;
  evidence: Evidence;
  advisoryId: string;
  /** Prose only: the org's product was found in the text (not in the item's product list). */
  fromText: boolean;
}

export function advisoryKey(p: { vendor: string; product: string }): string {
  const cpe = p.product.startsWith('cpe:') ? parseCpeName(p.product) : null;
  return cpe ? productKey(cpe.vendor, cpe.product) : productKey(p.vendor, p.product);
}

/** The identity a software entry is matched on structurally: its purl key, else its CPE's vendor:product. */
export function softwareIdentity(s: Pick<InventorySoftware, 'purl' | 'cpe' | 'productKey'>): string {
  return purlKey(s.purl) ?? (cpeKey(s.cpe) ? `cpe:${cpeKey(s.cpe)}` : `name:${s.productKey}`);
}

/** The package keys a structured advisory names (for the inventory read). */
export function packageKeysOf(advisories: readonly StructuredAdvisory[]): string[] {
  const keys = new Set<string>(platformKeysOf(advisories).purls);
  for (const a of advisories) for (const p of a.packages) {
    const k = purlKey(p.purl) ?? (p.cpe ? null : osvPackageKey(p.ecosystem, p.name));
    if (k) keys.add(k);
  }
  return [...keys];
}

/**
 * The inventory product keys of the packages a structured advisory identifies by CPE only
 * (CSAF products with a CPE helper): `cpe:2.3:a:openbsd:openssh` → `openssh`.
 */
export function cpeProductKeysOf(advisories: readonly StructuredAdvisory[]): string[] {
  const keys = new Set<string>();
  for (const a of advisories) for (const p of a.packages) {
    const c = !p.purl && p.cpe ? parseCpeName(p.cpe) : null;
    if (c) keys.add(productKey(c.vendor, c.product));
  }
  return [...keys];
}

/** A structured package's identity key: its purl, its OSV (ecosystem, name), or `cpe:<vendor>:<product>`. */
function structuredKey(p: AffectedPackage): string | null {
  if (!p.purl && p.cpe) return cpeKey(p.cpe) ? `cpe:${cpeKey(p.cpe)}` : null;
  return purlKey(p.purl) ?? osvPackageKey(p.ecosystem, p.name);
}

export function matchStructured(advisories: readonly StructuredAdvisory[], software: readonly InventorySoftware[]): SoftwareMatch[] {
  // Most threats of a page name no package any asset runs: nothing to key (a purl parse per package) nor match.
  if (software.length === 0) return [];
  const byKey = new Map<string, InventorySoftware[]>();
  const put = (k: string, s: InventorySoftware) => byKey.set(k, [...(byKey.get(k) ?? []), s]);
  const cpeProducts = new Map(advisories.flatMap((a) => a.packages).flatMap((p) => {
    const c = !p.purl && p.cpe ? parseCpeName(p.cpe) : null;
    return c ? [[productKey(c.vendor, c.product), `cpe:${cpeKey(p.cpe)}`] as const] : [];
  }));
  for (const s of new Set(software)) {
    const k = purlKey(s.purl);
    if (k) put(k, s);
    // Software by CPE: its own CPE's vendor:product, else (no purl) its product name exactly.
    else if (cpeKey(s.cpe)) put(`cpe:${cpeKey(s.cpe)}`, s);
    else if (cpeProducts.has(s.productKey)) put(cpeProducts.get(s.productKey)!, s);
  }
  const out: SoftwareMatch[] = [];
  for (const a of advisories) {
    const keys = a.packages.map(structuredKey);
    // The entries of one package in this advisory (one per release line in GitHub's records): a
    // not-affected version cites its line's range among them all. Grouped on the first such
    // verdict only: most advisories a batch reads match no software at all.
    let entries: Map<string, AffectedPackage[]> | null = null;
    const entriesOf = (key: string, p: AffectedPackage): AffectedPackage[] => {
      if (!entries) {
        entries = new Map();
        for (let i = 0; i < a.packages.length; i++) {
          const q = a.packages[i]!;
          const entry = keys[i] ? `${keys[i]}\u0000${q.platform?.name ?? ''}` : null;
          if (entry) entries.set(entry, [...(entries.get(entry) ?? []), q]);
        }
      }
      return entries.get(`${key}\u0000${p.platform?.name ?? ''}`)!;
    };
    for (let i = 0; i < a.packages.length; i++) {
      const p = a.packages[i]!;
      const key = keys[i];
      for (const s of (key && byKey.get(key)) || []) {
        const version = s.version ?? purlVersion(s.purl);
        const evaluated = evaluatePackage(p, version);
        const cited = evaluated.verdict === 'not_affected' && version ? citedRange(entriesOf(key!, p), version) : null;
        const r = cited ? { ...evaluated, affectedRange: cited } : evaluated;
        // A CSAF component statement holds on an asset that runs its platform product; elsewhere it decides nothing.
        const scoped = !p.platform || runsPlatform(s, p.platform, software);
        const verdict = scoped ? r.verdict : 'unknown';
        const product = p.platform ? `${p.name} (as a component of ${p.platform.name})` : p.name;
        out.push({ software: s, verdict, product, affectedRange: r.affectedRange, fixedVersion: scoped ? r.fixedVersion : null, evidence: a.evidence, advisoryId: a.advisoryId, fromText: false });
      }
    }
  }
  return out;
}

/**
 * Whether the asset of a software entry runs a CSAF platform product: software on the same asset
 * with the platform's purl identity, or its CPE vendor:product, or the asset's platform (or a
 * software name) naming the product (`Stackable HBase 24.3.0` ~ product key `stackable hbase`).
 */
export function runsPlatform(s: InventorySoftware, platform: NonNullable<AffectedPackage['platform']>, software: readonly InventorySoftware[]): boolean {
  const purl = platform.purl ? purlKey(platform.purl) : null;
  const cpe = platform.cpe ? cpeKey(platform.cpe) : null;
  const name = normalizeName(platform.name.replace(/\s+v?\d[\w.+-]*$/, ''));
  const names = (x: InventorySoftware) => !!name && (keysMatch(name, x.productKey) || keysMatch(name, normalizeName(`${x.vendor} ${x.product}`)));
  if (s.platform && name && keysMatch(name, normalizeName(s.platform))) return true;
  return software.some((x) => x.assetId === s.assetId && x !== s && ((!!purl && purlKey(x.purl) === purl) || (!!cpe && cpeKey(x.cpe) === cpe) || names(x)));
}

/** The identities a CSAF platform product is read by: its purl key, its CPE's inventory product key, its name's. */
export function platformKeysOf(advisories: readonly StructuredAdvisory[]): { purls: string[]; productKeys: string[] } {
  const purls = new Set<string>();
  const productKeys = new Set<string>();
  for (const a of advisories) for (const p of a.packages) {
    if (!p.platform) continue;
    const k = purlKey(p.platform.purl);
    if (k) purls.add(k);
    const c = p.platform.cpe ? parseCpeName(p.platform.cpe) : null;
    if (c) productKeys.add(productKey(c.vendor, c.product));
    const n = normalizeName(p.platform.name.replace(/\s+v?\d[\w.+-]*$/, ''));
    if (n) productKeys.add(n);
  }
  return { purls: [...purls], productKeys: [...productKeys] };
}

// One-word product keys that are ordinary words in advisory prose: never matched from text.
const GENERIC = new Set([
  'server', 'client', 'core', 'common', 'utils', 'tools', 'runtime', 'library', 'service', 'agent', 'update', 'security',
  'windows', 'linux', 'android', 'chrome', 'firmware', 'kernel', 'base', 'system', 'network', 'data', 'http', 'base files',
  'login', 'shell', 'python', 'java', 'node', 'sudo', 'file', 'files', 'mail', 'exchange', 'office', 'cloud', 'portal', 'gateway',
]);

/**
 * The org's product keys named in a text as products, each with the affected versions written
 * right after it ("Acme Widget Server before 4.2" → `<4.2`). Word n-grams (1..4) looked up in a
 * set: linear in the text whatever the inventory size. A name that is also a common word or an
 * HTTP header name (`forwarded`, `content-type`, `cookie` in "cookie header") is not a product
 * (prose.fns.ts); versions written as fixes or in a negated sentence are not affected versions.
 */
export function productsInText(text: string, orgKeys: ReadonlySet<string>, packageOnlyKeys: ReadonlySet<string> = new Set()): AdvisoryProduct[] {
  const words: Array<{ w: string; start: number; end: number }> = [];
  for (const m of text.matchAll(/[\p{L}\p{N}+#]+/gu)) words.push({ w: normalizeName(m[0]), start: m.index!, end: m.index! + m[0].length });
  const found = new Map<string, AdvisoryProduct>();
  for (let i = 0; i < words.length; i++) {
    let key = '';
    for (let n = 0; n < 4 && i + n < words.length; n++) {
      key = n === 0 ? words[i]!.w : `${key} ${words[i + n]!.w}`;
      if (!key || key.length < 4 || !orgKeys.has(key) || (n === 0 && GENERIC.has(key))) continue;
      const start = words[i]!.start;
      const end = words[i + n]!.end;
      const ctx = proseContext(text, start, end, packageOnlyKeys.has(key));
      if (!ctx.namedAsProduct) continue;
      const parsed = parseVersionList(text, end);
      const isFix = !ctx.negated && (ctx.fixContext || ctx.fixAfter(parsed.end));
      const versions = ctx.negated || isFix ? [] : parsed.versions;
      const fixed = isFix ? parsed.versions.filter((v) => PLAIN_VERSION.test(v)) : [];
      const prev = found.get(key);
      if (!prev) found.set(key, { vendor: '', product: text.slice(start, end), versions, via: 'text', fixed });
      else {
        for (const v of versions) if (!prev.versions.includes(v)) prev.versions.push(v);
        for (const v of fixed) if (!prev.fixed!.includes(v)) prev.fixed!.push(v);
      }
    }
  }
  return [...found.values()];
}

/**
 * What the hunt reads of a prose item: the products intel's enrichment listed (`listed`) and the
 * organization's own names written in the text as products. When they are all one product
 * family (`log4j` ~ `log4j core`), the fixes the text names without a product ("Fixed in 7.31.0
 * and 6.21.1", "backports … in versions 2.3.1, 2.12.2") and its "only the X package is affected"
 * apply to each of them.
 */
export function proseProducts(text: string, listed: readonly AdvisoryProduct[], orgKeys: ReadonlySet<string>, packageOnlyKeys: ReadonlySet<string> = new Set()): AdvisoryProduct[] {
  const all = [...listed, ...productsInText(text, orgKeys, packageOnlyKeys)];
  const keys = all.map(advisoryKey).sort((a, b) => a.length - b.length);
  if (keys.length === 0 || !keys.every((k) => keysMatch(keys[0]!, k))) return all;
  const fixes = fixesInText(text);
  const only = onlyPackagesIn(text, normalizeName);
  return all.map((p) => ({ ...p, fixed: [...new Set([...(p.fixed ?? []), ...fixes])], ...(only.length ? { onlyPackages: only } : {}) }));
}

/** Which org product keys an advisory product names (exact, or word-prefix either way). */
export function keysFor(advisory: AdvisoryProduct, orgKeys: Iterable<string>): string[] {
  const key = advisoryKey(advisory);
  const out: string[] = [];
  for (const k of orgKeys) if (keysMatch(key, k)) out.push(k);
  return out;
}

function displayName(a: AdvisoryProduct): string {
  const v = a.vendor.trim();
  return v && !a.product.toLowerCase().startsWith(v.toLowerCase()) ? `${v} ${a.product}` : a.product;
}

/**
 * Prose: every (software, advisory product) pair whose keys match, with the range verdict. A
 * package with a purl matches only its exact name (`undici-types` is not `undici`); other
 * software also by word prefix ("fortios" ~ "fortios ssl vpn"). A product of the item's list
 * wins over the same product found in the text.
 */
export function matchProse(advisories: readonly AdvisoryProduct[], software: readonly InventorySoftware[], advisoryId: string, evidence: Evidence = 'advisory-text'): SoftwareMatch[] {
  const out: SoftwareMatch[] = [];
  for (const s of software) {
    let best: SoftwareMatch | null = null;
    for (const a of advisories) {
      const key = advisoryKey(a);
      const same = s.purl ? key === packageName(s) || vendorAnchored(a, s, key) : keysMatch(key, s.productKey);
      if (!same) continue;
      if (a.via === 'text' && advisories.some((l) => l.via === 'advisory' && (s.purl ? advisoryKey(l) === packageName(s) || vendorAnchored(l, s, advisoryKey(l)) : keysMatch(advisoryKey(l), s.productKey)))) continue;
      // "Only the `log4j-core` package is affected": the product's other packages are not.
      if (s.purl && a.onlyPackages?.length && !a.onlyPackages.includes(artifactName(s))) continue;
      const v = proseRangeVerdict(s.version, a.versions, a.fixed);
      // A fix the text names on the installed version's line outranks a wider range ("before
      // 7.31.0 … fixed in 7.31.0 and 6.21.1": 6.29.1 is fixed; backports 2.3.1, 2.12.2: 2.12.4 is).
      const cover = s.version ? fixCoverage(s.version, a.fixed ?? []) : { fixed: false, next: null };
      const verdict: Verdict = v === 'inside' && !cover.fixed ? 'affected' : v === 'outside' || (v === 'inside' && cover.fixed) ? 'not_affected' : 'unknown';
      const fixedVersion = verdict === 'affected' ? cover.next : null;
      const m: SoftwareMatch = { software: s, verdict, product: displayName(a), affectedRange: a.versions.length ? a.versions.join(', ') : null, fixedVersion, evidence, advisoryId, fromText: a.via === 'text' };
      if (!best || RANK[verdict] < RANK[best.verdict]) best = m;
    }
    if (best) out.push(best);
  }
  return out;
}

/**
 * A package whose artifact name extends the advisory's product and whose namespace names the
 * advisory's vendor: Apache Log4j ~ `pkg:maven/org.apache.logging.log4j/log4j-core`. Only for
 * the item's product list (dictionary or CPE, with a vendor), never for a bare name in prose:
 * `undici` is not `undici-types`, `fastify` is not `@fastify/static`.
 */
function vendorAnchored(a: AdvisoryProduct, s: InventorySoftware, key: string): boolean {
  if (a.via !== 'advisory' || !a.vendor.trim()) return false;
  const k = purlKey(s.purl);
  const namespace = k ? normalizeName(k.slice(k.indexOf('/') + 1, Math.max(k.indexOf('/') + 1, k.lastIndexOf('/')))) : '';
  const vendor = normalizeName(a.vendor);
  return !!namespace && ` ${namespace} `.includes(` ${vendor} `) && keysMatch(key, s.productKey);
}

/** A package's artifact (last path part) as prose would write it: `org.apache…/log4j-core` → "log4j core". */
function artifactName(s: InventorySoftware): string {
  const key = purlKey(s.purl);
  return key ? normalizeName(key.slice(key.lastIndexOf('/') + 1)) : s.productKey;
}

/** A package's whole name as prose would write it: `@types/semver` → "types semver", never "semver". */
function packageName(s: InventorySoftware): string {
  const key = purlKey(s.purl);
  return key ? normalizeName(key.slice(key.indexOf('/') + 1)) : s.productKey;
}

/**
 * A prose range against an installed version. An inclusive upper bound alone ("through
 * 7.30.x", "up to and including 7.30.2", NVD's `<=`) names the last affected release of one
 * line, and says nothing of older lines that vendors fixed on their own branches. So when the
 * installed version is on another major line than the bound, that range cannot decide it
 * (`unknown`, not `affected`), unless the text names a fix on that line. "Before X" (`<X`) is
 * read as written, as are ranges with a lower bound, wildcards and exact versions.
 */
export function proseRangeVerdict(installed: string | null, ranges: readonly string[], fixes: readonly string[] = []): RangeVerdict {
  const v = versionVerdict(installed, ranges);
  if (v !== 'inside' || !installed) return v;
  const line = versionParts(installed)[0];
  // A fix the text names on the installed line ("… fixed in 7.31.0 and 6.21.1") says the line was affected.
  if (fixes.some((f) => versionParts(f)[0] === line)) return v;
  const decides = (r: string) => {
    if (!inRange(installed, r)) return false;
    const clauses = r.trim().split(/\s+/);
    const throughOnly = clauses.every((c) => c.startsWith('<='));
    return !throughOnly || clauses.every((c) => versionParts(c.slice(2))[0] === line);
  };
  return ranges.some(decides) ? 'inside' : 'unknown';
}

const RANK: Record<Verdict, number> = { affected: 0, unknown: 1, not_affected: 2 };

/**
 * Evidence precedence: structured package ranges, then NVD's CPE ranges, then prose, then KEV's
 * versionless vendor/product (a range the text states decides over KEV's `unknown`).
 */
const EVIDENCE_RANK: Record<Evidence, number> = { osv: 0, csaf: 1, nvd: 2, 'advisory-text': 3, kev: 4 };

/**
 * One match per (asset, package identity, version): for each asset's software only the best
 * evidence present counts (software an OSV record speaks about takes no prose match at all), then
 * the worst verdict. Sorted deterministically: verdict, asset, product, version, advisory.
 */
export function combineMatches(structured: readonly SoftwareMatch[], prose: readonly SoftwareMatch[]): SoftwareMatch[] {
  const all = [...structured, ...prose];
  const bestEvidence = new Map<string, number>();
  // Each match's identity once (a purl parse each): combining a page of new threats reads ~50,000.
  const ids = new Map(all.map((m) => [m, `${m.software.assetId}\u0000${softwareIdentity(m.software)}`]));
  const idOf = (m: SoftwareMatch) => ids.get(m)!;
  for (const m of all) bestEvidence.set(idOf(m), Math.min(bestEvidence.get(idOf(m)) ?? 9, EVIDENCE_RANK[m.evidence]));
  const best = new Map<string, SoftwareMatch>();
  for (const m of all) {
    if (EVIDENCE_RANK[m.evidence] !== bestEvidence.get(idOf(m))) continue;
    const k = `${idOf(m)}\u0000${m.software.version ?? ''}`;
    const prev = best.get(k);
    if (!prev || RANK[m.verdict] < RANK[prev.verdict] || (RANK[m.verdict] === RANK[prev.verdict] && m.advisoryId < prev.advisoryId)) best.set(k, m);
  }
  return [...best.values()].sort(compareMatches);
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function compareMatches(a: SoftwareMatch, b: SoftwareMatch): number {
  return RANK[a.verdict] - RANK[b.verdict] || cmp(a.software.identifier, b.software.identifier) || cmp(a.product, b.product)
    || cmp(a.software.version ?? '', b.software.version ?? '') || cmp(a.advisoryId, b.advisoryId) || cmp(a.software.assetId, b.software.assetId);
}

/** The `matches` element of the threat view. */
export function matchDto(m: SoftwareMatch) {
  return {
    assetId: m.software.assetId,
    assetIdentifier: m.software.identifier,
    product: m.product,
    version: m.software.version,
    purl: m.software.purl,
    cpe: m.software.cpe,
    verdict: m.verdict,
    affectedRange: m.affectedRange,
    fixedVersion: m.fixedVersion,
    evidence: m.evidence,
    advisoryId: m.advisoryId,
  };
}
