import { parseVersionList } from '../intel/index.js';
import { keysMatch, normalizeName, parseCpeName, productKey } from './inventory.fns.js';
import { versionVerdict, type RangeVerdict } from './versions.fns.js';

/**
 * Advisory products against inventory software. The advisory side is the items'
 * `affectedProducts` (vendor, product, versions in intel's range notation) plus any CPE they
 * carry; the inventory side is each software entry's product key (CPE product, else its name).
 * The products the organization runs are also looked for in the item text, so an advisory
 * about software no dictionary knows still finds the asset that runs it. Pure, no I/O.
 */
export interface AdvisoryProduct {
  vendor: string;
  product: string;
  versions: string[];
  /** Where the product came from: the item's structured list, or the org's product named in its text. */
  via: 'advisory' | 'text';
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
}

export interface SoftwareMatch {
  software: InventorySoftware;
  advisory: AdvisoryProduct;
  verdict: RangeVerdict;
}

export function advisoryKey(p: { vendor: string; product: string }): string {
  const cpe = p.product.startsWith('cpe:') ? parseCpeName(p.product) : null;
  return cpe ? productKey(cpe.vendor, cpe.product) : productKey(p.vendor, p.product);
}

// One-word product keys that are ordinary words in advisory prose: never matched from text.
const GENERIC = new Set([
  'server', 'client', 'core', 'common', 'utils', 'tools', 'runtime', 'library', 'service', 'agent', 'update', 'security',
  'windows', 'linux', 'android', 'chrome', 'firmware', 'kernel', 'base', 'system', 'network', 'data', 'http', 'base files',
  'login', 'shell', 'python', 'java', 'node', 'sudo', 'file', 'files', 'mail', 'exchange', 'office', 'cloud', 'portal', 'gateway',
]);

/**
 * The org's product keys named in a text, each with the versions written right after it
 * ("Acme Widget Server before 4.2" → `<4.2`). Word n-grams (1..4) looked up in a set: linear
 * in the text whatever the inventory size.
 */
export function productsInText(text: string, orgKeys: ReadonlySet<string>): AdvisoryProduct[] {
  const words: Array<{ w: string; start: number; end: number }> = [];
  for (const m of text.matchAll(/[\p{L}\p{N}+#]+/gu)) words.push({ w: normalizeName(m[0]), start: m.index!, end: m.index! + m[0].length });
  const found = new Map<string, AdvisoryProduct>();
  for (let i = 0; i < words.length; i++) {
    let key = '';
    for (let n = 0; n < 4 && i + n < words.length; n++) {
      key = n === 0 ? words[i]!.w : `${key} ${words[i + n]!.w}`;
      if (!key || key.length < 4 || !orgKeys.has(key) || (n === 0 && GENERIC.has(key))) continue;
      const versions = parseVersionList(text, words[i + n]!.end).versions;
      const prev = found.get(key);
      if (!prev) found.set(key, { vendor: '', product: text.slice(words[i]!.start, words[i + n]!.end), versions, via: 'text' });
      else for (const v of versions) if (!prev.versions.includes(v)) prev.versions.push(v);
    }
  }
  return [...found.values()];
}

/** Which org product keys an advisory product names (exact, or word-prefix either way). */
export function keysFor(advisory: AdvisoryProduct, orgKeys: Iterable<string>): string[] {
  const key = advisoryKey(advisory);
  const out: string[] = [];
  for (const k of orgKeys) if (keysMatch(key, k)) out.push(k);
  return out;
}

/**
 * Every (software, advisory product) pair whose keys match, with the range verdict. A product
 * listed structurally wins over the same product found in the text.
 */
export function matchSoftware(advisories: readonly AdvisoryProduct[], software: readonly InventorySoftware[]): SoftwareMatch[] {
  const out: SoftwareMatch[] = [];
  const structured = advisories.filter((a) => a.via === 'advisory');
  const keysOfStructured = structured.map(advisoryKey);
  for (const s of software) {
    let best: SoftwareMatch | null = null;
    for (const a of advisories) {
      const key = advisoryKey(a);
      if (!keysMatch(key, s.productKey)) continue;
      if (a.via === 'text' && keysOfStructured.some((k) => keysMatch(k, s.productKey))) continue;
      const verdict = versionVerdict(s.version, a.versions);
      if (!best || rank(verdict) > rank(best.verdict)) best = { software: s, advisory: a, verdict };
    }
    if (best) out.push(best);
  }
  return out;
}

function rank(v: RangeVerdict): number {
  return v === 'inside' ? 2 : v === 'unknown' ? 1 : 0;
}
