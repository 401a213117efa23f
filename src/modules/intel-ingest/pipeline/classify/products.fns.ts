/**
 * Affected products from CPE names, CVE records and advisory text. Pure, no I/O.
 *
 * Vendor and product are in CPE form: lower case, spaces as underscores, the CPE vendor id for
 * known vendors (`paloaltonetworks`, `pan-os`). `versions` holds single versions and ranges in the
 * notation of versions.fns.ts (`7.0.12`, `>=7.0.0 <=7.0.12`, `<2.3.1`, `7.x`); empty means all or
 * unknown versions. Findings for the same vendor/product merge: versions unioned, highest
 * confidence, earliest passage.
 *
 * Confidence: CPE strings given 0.95; NVD `configurations` / CVE 5 `affected` 0.9; text: vendor +
 * product + versions 0.75, product + versions 0.7, vendor + product in a vulnerability sentence 0.55,
 * standalone product in a vulnerability sentence 0.5, vendor + unlisted product + versions 0.5.
 * Text findings carry the exact passage they came from; CPE/record findings get the passage of
 * the product's first mention in the text when there is one.
 */

import { cpeCase, findingFromCpe, findingsFromConfigurations, findingsFromCve5Affected, type CpeFinding, parseVersionList, parseVersionsBefore, versionsAreFixes } from '../../../intel/index.js';
import { KNOWN_VENDORS, productId, vendorId, type KnownProduct } from './product-dictionary.js';
import { compilePhrases, findPhrases, tokenize, type PhraseIndex, type PhraseMatch, type Token } from './phrase-matcher.fns.js';
import { passageAround, splitSentences, type CharSpan, type Passage, type Sentence } from './sentences.fns.js';

export interface ProductsInput {
  text: string;
  cpes: string[];
  cveRecords?: Array<{ cve: string; configurations?: unknown; affected?: unknown }>;
  /** `text` already split (enrichment splits an item once for every classifier). */
  sentences?: readonly Sentence[];
  tokens?: readonly Token[];
}

export interface AffectedProduct {
  vendor: string;
  product: string;
  versions: string[];
  confidence: number;
  passage?: Passage;
}

type Payload = { kind: 'vendor'; vendor: string } | { kind: 'product'; vendor: string; product: KnownProduct };

let dictionaryIndex: PhraseIndex<Payload> | null = null;

function dictionary(): PhraseIndex<Payload> {
  if (dictionaryIndex) return dictionaryIndex;
  const specs = KNOWN_VENDORS.flatMap((v) => [
    ...v.names.map((name) => ({ phrase: name, caseSensitive: !/\s/.test(name), payload: { kind: 'vendor', vendor: v.id } as Payload })),
    ...v.products.flatMap((prod) =>
      prod.names.map((name) => ({ phrase: name, caseSensitive: !/\s/.test(name), payload: { kind: 'product', vendor: v.id, product: prod } as Payload })),
    ),
  ]);
  dictionaryIndex = compilePhrases(specs);
  return dictionaryIndex;
}

const AFFECTED_CONTEXT_RE =
  /\b(?:vulnerab\w*|affect\w*|flaw\w*|exploit\w*|CVE-\d{4}-\d{4,}|patch\w*|zero-day|0-day|security (?:update|advisory|fix)\w*|compromis\w*|bugs?|advisory)\b/i;
const GENERIC_WORD_RE = /\s+([A-Z][\p{L}\p{N}+-]*[\p{L}\p{N}]|[A-Z])(?![\p{L}\p{N}])/uy;
const NOT_PRODUCT_WORD_RE = /^(?:[vV]?\d.*|Versions?|Before|Prior|Through|Firmware|Software|The|And|Or|Is|Has|Was|Said|Released|Patched|Fixed)$/;

interface Found {
  vendor: string;
  product: string;
  version: string;
  confidence: number;
  passage?: Passage;
  order: number;
}

function sentenceStartBefore(sentences: readonly Sentence[], pos: number): number {
  let start = 0;
  for (const s of sentences) {
    if (s.start > pos) break;
    start = s.start;
  }
  return start;
}

function sentenceAt(sentences: readonly Sentence[], pos: number): Sentence | undefined {
  return sentences.find((s) => s.start <= pos && pos < s.end);
}

function productFor(m: PhraseMatch<Payload>, vendor: string | null): { vendor: string; product: KnownProduct } | null {
  for (const p of m.payloads) if (p.kind === 'product' && (vendor === null || p.vendor === vendor)) return { vendor: p.vendor, product: p.product };
  return null;
}

/** Products named in text (known vendors/products, or a known vendor + unlisted product + versions). */
export function productsFromText(text: string, sentences: readonly Sentence[] = splitSentences(text), tokens: readonly Token[] = tokenize(text)): Found[] {
  const matches = findPhrases(text, tokens, dictionary());
  const out: Found[] = [];
  const emit = (vendor: string, product: string, span: CharSpan, versionsAt: number, qualified: boolean, mode: KnownProduct['match'] | 'generic'): void => {
    let list = parseVersionList(text, versionsAt);
    if (list.versions.length === 0) {
      const before = parseVersionsBefore(text, sentenceStartBefore(sentences, span.start), span.start);
      if (before) list = { versions: before.versions, end: span.end };
    }
    const end = Math.max(span.end, list.end);
    // "Fixed in X", "upgrade to X", "X and later are not affected", "Fastify 5 is not affected":
    // the mention names no affected version, and says nothing about the product being affected.
    if (versionsAreFixes(text, span.start, span.end, end)) return;
    const versioned = list.versions.length > 0;
    if (!versioned) {
      if (mode === 'generic' || (!qualified && mode !== 'standalone')) return;
      const sentence = sentenceAt(sentences, span.start);
      if (!sentence || !AFFECTED_CONTEXT_RE.test(sentence.text)) return;
    } else if (!qualified && mode === 'vendor') return;
    const confidence = mode === 'generic' ? 0.5 : versioned ? (qualified ? 0.75 : 0.7) : qualified ? 0.55 : 0.5;
    const passage = passageAround(text, sentences, { start: span.start, end });
    for (const version of versioned ? list.versions : ['']) out.push({ vendor, product, version, confidence, passage, order: span.start });
  };

  for (let i = 0; i < matches.length; i += 1) {
    const m = matches[i] as PhraseMatch<Payload>;
    const vendorPayload = m.payloads.find((p) => p.kind === 'vendor');
    const next = matches[i + 1];
    if (vendorPayload && vendorPayload.kind === 'vendor') {
      const adjacent = next && /^\s{1,2}$/.test(text.slice(m.end, next.start));
      const paired = adjacent && next ? productFor(next, vendorPayload.vendor) : null;
      if (paired && next) {
        emit(paired.vendor, paired.product.id, { start: m.start, end: next.end }, next.end, true, paired.product.match);
        i += 1;
        continue;
      }
      // A standalone product that is also a vendor name (GitLab, Jenkins, CrushFTP).
      const self = productFor(m, vendorPayload.vendor);
      if (self && self.product.match === 'standalone') {
        emit(self.vendor, self.product.id, m, m.end, true, 'standalone');
        continue;
      }
      // Vendor + unlisted product words + versions ("Zyxel NAS326 firmware versions before 5.21").
      const words: string[] = [];
      let at = m.end;
      while (words.length < 4) {
        GENERIC_WORD_RE.lastIndex = at;
        const w = GENERIC_WORD_RE.exec(text);
        if (!w || NOT_PRODUCT_WORD_RE.test(w[1] ?? '')) break;
        words.push(w[1] as string);
        at += w[0].length;
      }
      if (words.length > 0) emit(vendorPayload.vendor, cpeCase(words.join(' ')), { start: m.start, end: at }, at, true, 'generic');
      continue;
    }
    const alone = productFor(m, null);
    if (alone) emit(alone.vendor, alone.product.id, m, m.end, false, alone.product.match);
  }
  return out;
}

/** Names a product may appear under in text: dictionary names for known products, else the id's words. */
function mentionNames(vendor: string, product: string): string[] {
  const known = KNOWN_VENDORS.find((v) => v.id === vendor)?.products.filter((p) => p.id === product).flatMap((p) => p.names) ?? [];
  if (known.length > 0) return known;
  const words = product.replace(/_/g, ' ').trim();
  return words.length >= 3 ? [words] : [];
}

function firstMention(text: string, sentences: readonly Sentence[], tokens: readonly Token[], vendor: string, product: string): Passage | undefined {
  const names = mentionNames(vendor, product);
  if (names.length === 0 || text === '') return undefined;
  const index = compilePhrases(names.map((n) => ({ phrase: n, caseSensitive: !/\s/.test(n) && n.length <= 4, payload: n })));
  const hit = findPhrases(text, tokens, index)[0];
  return hit ? passageAround(text, sentences, hit) : undefined;
}

export function affectedProductsFrom(input: ProductsInput): AffectedProduct[] {
  const sentences = input.sentences ?? splitSentences(input.text);
  const tokens = input.tokens ?? tokenize(input.text);
  const found: Found[] = [];
  let order = -1_000_000;
  const add = (f: CpeFinding, confidence: number): void => {
    const vendor = vendorId(f.vendor);
    found.push({ vendor, product: productId(vendor, f.product), version: f.version, confidence, order: (order += 1) });
  };
  for (const cpe of input.cpes) {
    const f = findingFromCpe(cpe);
    if (f) add(f, 0.95);
  }
  for (const r of input.cveRecords ?? []) {
    for (const f of findingsFromConfigurations(r.configurations)) add(f, 0.9);
    for (const f of findingsFromCve5Affected(r.affected ?? r.configurations)) add(f, 0.9);
  }
  found.push(...productsFromText(input.text, sentences, tokens));

  const merged = new Map<string, AffectedProduct & { order: number }>();
  for (const f of found) {
    const key = `${f.vendor}:${f.product}`;
    const prev = merged.get(key);
    if (!prev) {
      merged.set(key, { vendor: f.vendor, product: f.product, versions: f.version ? [f.version] : [], confidence: f.confidence, ...(f.passage ? { passage: f.passage } : {}), order: f.order });
      continue;
    }
    if (f.version && !prev.versions.includes(f.version)) prev.versions.push(f.version);
    prev.confidence = Math.max(prev.confidence, f.confidence);
    if (f.passage && (!prev.passage || f.passage.charSpan.start < prev.passage.charSpan.start)) prev.passage = f.passage;
  }

  return [...merged.values()]
    .sort((a, b) => b.confidence - a.confidence || a.order - b.order)
    .map(({ order: _order, ...p }) => {
      if (!p.passage) {
        const passage = firstMention(input.text, sentences, tokens, p.vendor, p.product);
        if (passage) p.passage = passage;
      }
      return p;
    });
}
