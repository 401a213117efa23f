import { type Enrichment, type Extraction, type IndicatorOut, type StructuredIndicator, type VulnerabilityRecord, type AttackCatalog, DEFAULT_TTL_DAYS, scanIocs, type IocKind, type IndicatorType, normalizeIndicator } from '../../intel/index.js';
import { classifyText } from './classify/classify-attack.fns.js';
import { tokenize } from './classify/phrase-matcher.fns.js';
import { affectedProductsFrom } from './classify/products.fns.js';
import { passageAround, splitSentences } from './classify/sentences.fns.js';
import { severityOf, type Severity } from './classify/severity.fns.js';
import { summarize } from './classify/summarize.fns.js';
import { isStructuredRecord, structuredFacts } from './structured.fns.js';

/**
 * One item in, its enrichment out: indicators (extracted and structured), classification,
 * affected products, severity, relevance, summaries, provenance and the dedupe key. Pure: the
 * job (process.jobs.ts) reads the item and writes this result.
 *
 * Every charSpan points into `contentText`: `contentText.slice(start, end) === passage.text`.
 */
export interface ProcessInput {
  title: string;
  contentText: string;
  url: string | null;
  tags: string[];
  structuredIndicators: StructuredIndicator[];
  publishedAt: Date | null;
  now: Date;
  /** NVD `configurations` the source gave (structured CPE ranges), for the affected products. */
  configurations?: unknown;
  /** The item's structured record: an OSV record or CSAF vulnerability is enriched from its fields, not its prose (structured.fns.ts). */
  vulnerability?: VulnerabilityRecord | null;
}

export type { IndicatorOut };

/** The enrichment intel stores (`Enrichment`), with the classifier's and the severity's own types. */
export interface ProcessResult extends Enrichment<ReturnType<typeof classifyText>> {
  severity: Severity;
}

/** The intel item's indicator list (the API contract's `iocs` lists) of each indicator type (plus the `emails` extension); types without a list (btc, onion, asn…) stay in /iocs only. */
const LIST_OF: Record<string, string> = {
  ipv4: 'ipv4',
  ipv6: 'ipv6',
  domain: 'domains',
  url: 'urls',
  md5: 'hashes',
  sha1: 'hashes',
  sha256: 'hashes',
  sha512: 'hashes',
  ssdeep: 'hashes',
  filename: 'files',
  'registry-key': 'registryKeys',
  process: 'processes',
  cert: 'certs',
  'cloud-id': 'cloudIds',
  'mobile-id': 'mobileIds',
  email: 'emails',
};
export const IOC_LIST_NAMES = [...new Set(Object.values(LIST_OF))];

const NOT_INDICATORS = new Set<string>(['cve', 'attack-technique']);
const KNOWN_EXPLOITED = /\b(known[- ]exploited|exploited in the wild|actively exploited|under active exploitation|zero[- ]day|0-day|CISA KEV)\b/i;

export function processItem(input: ProcessInput, catalog: AttackCatalog): ProcessResult {
  if (isStructuredRecord(input.vulnerability)) return processStructured(input, input.vulnerability);
  const text = input.contentText;
  // Split once; every classifier below reads the same sentences and tokens.
  const sentences = splitSentences(text);
  const tokens = tokenize(text);
  // Compact results (offsets and codes): only the fields stored below are read, no object per span or dropped record.
  const extracted = scanIocs(text);
  const fromTitle = scanIocs(input.title);

  // Indicators: structured ones as the source gave them (with its confidence), then extracted.
  const byKey = new Map<string, IndicatorOut>();
  const add = (ind: IndicatorOut) => {
    const key = `${ind.type}\u0000${ind.normalizedValue}`;
    const prev = byKey.get(key);
    if (!prev || prev.confidence < ind.confidence) byKey.set(key, ind);
  };
  for (const s of input.structuredIndicators) {
    if (NOT_INDICATORS.has(s.type)) continue;
    const type = s.type === 'registry-key' ? 'registry-key' : s.type;
    add({ type, value: s.value, normalizedValue: normalizeIndicator(s.type as IndicatorType, s.value), confidence: s.confidence, ttlDays: ttlOf(type) });
  }
  const passages: ProcessResult['passages'] = [];
  const sourceUrl = input.url ?? '';
  for (const x of [extracted, fromTitle]) {
    for (let j = 0; j < x.size; j++) {
      const kind = x.kind(j);
      if (NOT_INDICATORS.has(kind)) continue;
      add({ type: kind, value: x.value(j), normalizedValue: x.normalizedValue(j), confidence: x.confidence(j), ttlDays: ttlOf(kind) });
    }
  }
  for (let j = 0; j < extracted.size; j++) {
    if (NOT_INDICATORS.has(extracted.kind(j))) continue;
    const p = passageAround(text, sentences, { start: extracted.start(j), end: extracted.end(j) });
    passages.push({ text: p.text, sourceUrl, charSpan: p.charSpan });
  }

  const cves = [...new Set([
    ...valuesOfKind(extracted, 'cve'),
    ...valuesOfKind(fromTitle, 'cve'),
    ...input.structuredIndicators.filter((s) => s.type === 'cve').map((s) => s.value.toUpperCase()),
  ])].sort();
  const techniqueIds: Array<{ id: string; spans: Array<{ start: number; end: number }> }> = [];
  for (let j = 0; j < extracted.size; j++) if (extracted.kind(j) === 'attack-technique') techniqueIds.push({ id: extracted.normalizedValue(j), spans: extracted.spans(j) });
  const classification = classifyText({ title: input.title, text, tags: input.tags, cves, techniqueIds, sentences, tokens }, catalog);
  for (const p of classification.passages) passages.push({ text: p.text, sourceUrl, charSpan: p.charSpan });

  const cveRecords = input.configurations ? [{ cve: '', configurations: input.configurations }] : undefined;
  const products = affectedProductsFrom({ text, cpes: input.tags.filter((t) => t.startsWith('cpe:')), ...(cveRecords ? { cveRecords } : {}), sentences, tokens });
  for (const p of products) if (p.passage) passages.push({ text: p.passage.text, sourceUrl, charSpan: p.passage.charSpan });

  const indicators = [...byKey.values()];
  const knownExploited = KNOWN_EXPLOITED.test(`${input.title}\n${text}`) || input.tags.some((t) => /kev|exploited/i.test(t));
  const sev = severityOf({
    cvssScores: [], // severityOf reads the scores and vectors in the text itself
    knownExploited,
    text: `${input.title}\n${text}`,
    cves,
    indicatorCount: indicators.length,
    namedThreats: classification.malware.length + classification.actor.length,
    namedActors: classification.actor.length,
  });
  const summary = summarize(input.title, text, { killChain: classification.killChain, sentences });

  return {
    indicators,
    iocs: iocListsOf(indicators, input),
    dropped: droppedOf(extracted, fromTitle),
    classification,
    affectedProducts: products.map(({ vendor, product, versions, confidence }) => ({ vendor, product, versions, confidence })),
    passages: dedupePassages(passages),
    severity: sev.severity,
    relevance: relevanceOf(sev.severity, indicators.length, cves.length, classification.attack.length, knownExploited),
    platforms: classification.platforms.map((p) => p.toLowerCase()),
    ...summary,
    eventConfidence: indicators.length ? Math.max(...indicators.map((i) => i.confidence)) : classification.attack.length ? 0.5 : 0.3,
    canonicalKey: canonicalKeyOf(input.title, cves, input.url),
    cves,
    retracted: input.tags.includes('revoked'),
  };
}

/** The normalized values of the extracted indicators of one kind (CVE ids), in text order. */
function valuesOfKind(x: Extraction, kind: IocKind): string[] {
  const out: string[] = [];
  for (let j = 0; j < x.size; j++) if (x.kind(j) === kind) out.push(x.normalizedValue(j));
  return out;
}

/** The dropped candidates the item stores (type, value as written, reason): the text's, then the title's. */
function droppedOf(...extractions: Extraction[]): ProcessResult['dropped'] {
  const out: ProcessResult['dropped'] = [];
  for (const x of extractions) for (let d = 0; d < x.droppedSize; d++) out.push({ type: x.droppedKind(d), value: x.droppedValue(d), reason: x.droppedReason(d) });
  return out;
}

/**
 * A structured vulnerability record: its own fields, no prose read (structured.fns.ts). No
 * indicators are extracted from its text, no ATT&CK classification; the CVEs it names are its
 * framework mappings (the hunt's threat keys), its packages its affected products.
 */
function processStructured(input: ProcessInput, vulnerability: VulnerabilityRecord): ProcessResult {
  const facts = structuredFacts({ title: input.title, contentText: input.contentText, tags: input.tags, vulnerability });
  const indicators = input.structuredIndicators
    .filter((s) => !NOT_INDICATORS.has(s.type))
    .map((s) => ({ type: s.type, value: s.value, normalizedValue: normalizeIndicator(s.type as IndicatorType, s.value), confidence: s.confidence, ttlDays: ttlOf(s.type) }));
  return {
    indicators,
    iocs: iocListsOf(indicators, input),
    dropped: [],
    classification: { attack: [], killChain: [], malware: [], actor: [], platforms: [], mappings: facts.cves.map((id) => ({ framework: 'cve' as const, id, confidence: 1 })), passages: [] },
    affectedProducts: facts.affectedProducts,
    passages: [],
    severity: facts.severity,
    relevance: relevanceOf(facts.severity, indicators.length, facts.cves.length, 0, facts.knownExploited),
    platforms: [],
    summary: facts.summary,
    tldr: facts.tldr,
    abstract: facts.abstract,
    attackPath: [],
    eventConfidence: 1,
    canonicalKey: canonicalKeyOf(input.title, facts.cves, input.url),
    cves: facts.cves,
    retracted: input.tags.includes('revoked'),
  };
}

/**
 * The `iocs` lists of an item's indicators, each seen at the item's publication (else now). Built
 * as literals (the same keys in the same order as the spread and Object.fromEntries they
 * replace): this ran for every item, and the dictionary-mode objects of fromEntries and the
 * spread copies were 2–4% of enrichment's CPU (ingest bench profile, docs/performance.md).
 */
function iocListsOf(indicators: IndicatorOut[], input: ProcessInput): ProcessResult['iocs'] {
  const seen = (input.publishedAt ?? input.now).toISOString();
  const iocs: ProcessResult['iocs'] = emptyIocLists();
  for (const ind of indicators) {
    const list = LIST_OF[ind.type];
    if (list) iocs[list]!.push({ type: ind.type, value: ind.value, normalizedValue: ind.normalizedValue, confidence: ind.confidence, ttlDays: ind.ttlDays, firstSeen: seen, lastSeen: seen });
  }
  return iocs;
}

/** One empty list per name of IOC_LIST_NAMES, in its order (process.fns.test.ts checks they agree). */
export function emptyIocLists(): ProcessResult['iocs'] {
  return { ipv4: [], ipv6: [], domains: [], urls: [], hashes: [], files: [], registryKeys: [], processes: [], certs: [], cloudIds: [], mobileIds: [], emails: [] };
}

function ttlOf(type: string): number {
  return (DEFAULT_TTL_DAYS as Record<string, number>)[type] ?? 90;
}

/**
 * Relevance 0..100, documented in the README: severity (critical 40, high 30, medium 20, low
 * 10) + indicators present 20 + CVE named 15 + ATT&CK techniques 10 + known exploited 15.
 */
export function relevanceOf(severity: Severity, indicators: number, cves: number, techniques: number, knownExploited: boolean): number {
  const sev = { critical: 40, high: 30, medium: 20, low: 10, none: 0 }[severity];
  return Math.min(100, sev + (indicators > 0 ? 20 : 0) + (cves > 0 ? 15 : 0) + (techniques > 0 ? 10 : 0) + (knownExploited ? 15 : 0));
}

/**
 * The same story across sources: a CVE in the title (or the only CVE named), else the story's
 * URL without tracking parameters, fragment or trailing slash.
 */
export function canonicalKeyOf(title: string, cves: string[], url: string | null): string | null {
  const inTitle = /CVE-\d{4}-\d{4,}/i.exec(title)?.[0]?.toUpperCase();
  if (inTitle) return inTitle;
  if (cves.length === 1) return cves[0]!;
  if (!url) return null;
  try {
    const u = new URL(url);
    u.hash = '';
    for (const k of [...u.searchParams.keys()]) if (/^(utm_|fbclid|gclid|mc_)/i.test(k)) u.searchParams.delete(k);
    u.hostname = u.hostname.toLowerCase().replace(/^www\./, '');
    return u.toString().replace(/\/$/, '');
  } catch {
    return null;
  }
}

function dedupePassages(ps: ProcessResult['passages']): ProcessResult['passages'] {
  const seen = new Set<string>();
  return ps.filter((p) => {
    const k = `${p.charSpan.start}:${p.charSpan.end}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export type { IocKind };
