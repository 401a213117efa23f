/**
 * Classification of an intel item against ATT&CK: techniques, kill chain, actors, malware,
 * platforms and framework mappings, each technique pointing at an exact supporting passage.
 * Pure, no I/O; the catalog comes from the database (attack-catalog.fns.ts).
 *
 * Sources of evidence and their confidence (0..1, max over mentions; +0.05 when a technique is both
 * named and cited by id or an actor/malware is mentioned 3+ times; capped at 0.95):
 * - technique ids in the text (T1059, T1059.001, T1059/001) or given with spans: 0.9;
 *   in the title, in tags or given without spans: 0.85; an id the (non-empty) catalog does not
 *   know (revoked, mistyped): 0.15 lower;
 * - technique names (catalog only; rules in attack-matchers.fns.ts): 0.4–0.75;
 * - actors/malware from tags 0.9, names 0.85, aliases 0.6–0.75 (tools 0.1 lower).
 * Each attack entry's `evidenceRef` is the `ref` of the passage around its first mention in the
 * text. A technique asserted only by the title, tags or span-less ids is anchored to the first
 * text mention of its parent/sub-techniques or of its catalog name; failing that it has no passage
 * and an empty evidenceRef.
 */

import { sortTactics, TECHNIQUE_ID_RE, type AttackCatalog, type CatalogGroup, type CatalogSoftware } from '../../../intel/index.js';
import { attackMatcher, type AttackPayload } from './attack-matchers.fns.js';
import { signalsFromTags } from './classify-tags.fns.js';
import { compilePhrases, findPhrases, tokenize, type Token } from './phrase-matcher.fns.js';
import { platformOfTechnique, platformsFromText, sortPlatforms, type Platform } from './platforms.fns.js';
import { passageAround, passageRef, splitSentences, type CharSpan, type Passage, type Sentence } from './sentences.fns.js';

export interface ClassifyInput {
  title: string;
  /** The item's text; every charSpan refers to it. */
  text: string;
  tags: string[];
  cves: string[];
  /** Technique ids found upstream, with their spans in `text` (may be empty). */
  techniqueIds: Array<{ id: string; spans: CharSpan[] }>;
  /** `text` already split (enrichment splits an item once for every classifier). */
  sentences?: readonly Sentence[];
  tokens?: readonly Token[];
}

export interface AttackEntry {
  /** Parent technique id, e.g. T1059. */
  technique: string;
  /** Full sub-technique id (T1059.001), or '' for a technique. */
  subTechnique: string;
  /** Catalog name ("Command and Scripting Interpreter: PowerShell" for sub-techniques), '' when unknown. */
  techniqueName: string;
  /** `ref` of the supporting passage, '' when there is no evidence in the text. */
  evidenceRef: string;
  confidence: number;
}

export interface NamedThreat {
  name: string;
  confidence: number;
  aliases: string[];
}

export interface FrameworkMapping {
  framework: 'mitre-attack' | 'cve';
  id: string;
  confidence: number;
}

export interface ClassifiedPassage extends Passage {
  ref: string;
}

export interface Classification {
  attack: AttackEntry[];
  /** Tactic shortnames (`initial-access`, …) of the techniques found, in ATT&CK order. */
  killChain: string[];
  malware: NamedThreat[];
  actor: NamedThreat[];
  platforms: Platform[];
  mappings: FrameworkMapping[];
  passages: ClassifiedPassage[];
}

const TEXT_ID_CONFIDENCE = 0.9;
const OTHER_ID_CONFIDENCE = 0.85;
const UNKNOWN_ID_PENALTY = 0.15;
const TAG_NAMED_CONFIDENCE = 0.9;
const MAX_CONFIDENCE = 0.95;
/** Technique ids in prose: T1059, T1059.001, and the URL form T1059/001. */
const TECHNIQUE_IN_TEXT_RE = /(?<![\p{L}\p{N}])T(\d{4})(?:[./](\d{3}))?(?![\p{N}])/gu;
const CVE_RE = /^CVE-\d{4}-\d{4,}$/i;

interface Evidence {
  /** Earliest span in the text; null when only seen outside it. */
  first: CharSpan | null;
  confidence: number;
  mentions: number;
  kinds: Set<'id' | 'name'>;
  /** Position for ordering: text offset, -1 for the title, +Infinity for tags. */
  order: number;
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

function note(map: Map<string, Evidence>, key: string, confidence: number, span: CharSpan | null, order: number, kind: 'id' | 'name'): void {
  const e = map.get(key) ?? { first: null, confidence: 0, mentions: 0, kinds: new Set(), order: Number.POSITIVE_INFINITY };
  e.confidence = Math.max(e.confidence, confidence);
  e.mentions += 1;
  e.kinds.add(kind);
  e.order = Math.min(e.order, order);
  if (span && (!e.first || span.start < e.first.start)) e.first = span;
  map.set(key, e);
}

function normaliseTechniqueId(raw: string): string | null {
  const id = raw.trim().toUpperCase().replace('/', '.');
  return TECHNIQUE_ID_RE.test(id) ? id : null;
}

function validSpan(text: string, s: CharSpan): boolean {
  return Number.isInteger(s.start) && Number.isInteger(s.end) && s.start >= 0 && s.start < s.end && s.end <= text.length;
}

function techniqueName(catalog: AttackCatalog, id: string): string {
  const own = catalog.techniques.get(id);
  const dot = id.indexOf('.');
  if (dot < 0) return own?.name ?? '';
  const parent = catalog.techniques.get(id.slice(0, dot));
  if (own && parent) return `${parent.name}: ${own.name}`;
  return own?.name ?? '';
}

function finalConfidence(e: Evidence, bonus: boolean): number {
  return round2(Math.min(MAX_CONFIDENCE, e.confidence + (bonus ? 0.05 : 0)));
}

/**
 * Evidence in the text for a technique seen only in the title, tags or span-less ids: the first
 * text mention of its parent or of one of its sub-techniques, else its catalog name anywhere in the
 * text (whatever the name-matching rules), else null.
 */
function anchorFor(id: string, techniques: ReadonlyMap<string, Evidence>, text: string, tokens: readonly Token[], catalog: AttackCatalog): CharSpan | null {
  const parent = id.split('.')[0] as string;
  let best: CharSpan | null = null;
  for (const [other, e] of techniques) {
    if (other === id || !e.first) continue;
    const related = other === parent || (id === parent && other.startsWith(`${id}.`));
    if (related && (!best || e.first.start < best.start)) best = e.first;
  }
  if (best) return best;
  const name = catalog.techniques.get(id)?.name;
  if (!name) return null;
  const hit = findPhrases(text, tokens, compilePhrases([{ phrase: name, caseSensitive: false, payload: id }]))[0];
  return hit ? { start: hit.start, end: hit.end } : null;
}

const EMPTY_NAMES = { groupByName: new Map<string, number>(), softwareByName: new Map<string, number>() };
const namesIndexes = new WeakMap<AttackCatalog, typeof EMPTY_NAMES>();

/**
 * Group and software indexes by lower-cased name and alias, for names given in tags. Built once
 * per catalog: with the full ATT&CK catalog (shipped with Rampart) building them for every item
 * cost more than the rest of its classification.
 */
function namesIndex(catalog: AttackCatalog): typeof EMPTY_NAMES {
  let index = namesIndexes.get(catalog);
  if (!index) {
    index = { groupByName: new Map(), softwareByName: new Map() };
    catalog.groups.forEach((g, i) => g.aliases.concat(g.name).forEach((a) => index!.groupByName.set(a.toLowerCase(), i)));
    catalog.software.forEach((s, i) => s.aliases.concat(s.name).forEach((a) => index!.softwareByName.set(a.toLowerCase(), i)));
    namesIndexes.set(catalog, index);
  }
  return index;
}

export function classifyText(input: ClassifyInput, catalog: AttackCatalog): Classification {
  const { text, title } = input;
  const sentences = input.sentences ?? splitSentences(text);
  const techniques = new Map<string, Evidence>();
  const groups = new Map<string, Evidence>();
  const software = new Map<string, Evidence>();
  const extraNamed = new Map<string, { kind: 'actor' | 'malware' | 'tool'; evidence: Evidence; name: string }>();

  // Technique ids: given, in the text, in the title.
  for (const given of input.techniqueIds) {
    const id = normaliseTechniqueId(given.id);
    if (!id) continue;
    const spans = given.spans.filter((s) => validSpan(text, s));
    if (spans.length === 0) note(techniques, id, OTHER_ID_CONFIDENCE, null, Number.POSITIVE_INFINITY, 'id');
    for (const s of spans) note(techniques, id, TEXT_ID_CONFIDENCE, { start: s.start, end: s.end }, s.start, 'id');
  }
  for (const m of text.matchAll(TECHNIQUE_IN_TEXT_RE)) {
    const id = `T${m[1] ?? ''}${m[2] ? `.${m[2]}` : ''}`;
    note(techniques, id, TEXT_ID_CONFIDENCE, { start: m.index, end: m.index + m[0].length }, m.index, 'id');
  }
  for (const m of title.matchAll(TECHNIQUE_IN_TEXT_RE)) note(techniques, `T${m[1] ?? ''}${m[2] ? `.${m[2]}` : ''}`, OTHER_ID_CONFIDENCE, null, -1, 'id');

  // Names and aliases from the catalog, in the text and the title.
  const matcher = attackMatcher(catalog);
  const record = (p: AttackPayload, span: CharSpan | null, order: number): void => {
    if (p.kind === 'technique') note(techniques, p.id, p.confidence, span, order, 'name');
    else note(p.kind === 'group' ? groups : software, String(p.index), p.confidence, span, order, 'name');
  };
  const textTokens = input.tokens ?? tokenize(text);
  if (matcher.size > 0) {
    for (const m of findPhrases(text, textTokens, matcher)) for (const p of m.payloads) record(p, { start: m.start, end: m.end }, m.start);
    for (const m of findPhrases(title, tokenize(title), matcher)) for (const p of m.payloads) record(p, null, -1);
  }

  // Tags.
  const tagSignals = signalsFromTags(input.tags);
  const { groupByName, softwareByName } = tagSignals.named.length ? namesIndex(catalog) : EMPTY_NAMES;
  for (const t of tagSignals.techniques) note(techniques, t.id, OTHER_ID_CONFIDENCE, null, Number.POSITIVE_INFINITY, 'id');
  for (const n of tagSignals.named) {
    const isActor = n.kind === 'actor';
    const list: ReadonlyArray<CatalogGroup | CatalogSoftware> = isActor ? catalog.groups : catalog.software;
    let index = n.id ? list.findIndex((x) => x.id === n.id) : -1;
    if (index < 0 && n.name) index = (isActor ? groupByName : softwareByName).get(n.name.toLowerCase()) ?? -1;
    if (index >= 0) note(isActor ? groups : software, String(index), TAG_NAMED_CONFIDENCE, null, Number.POSITIVE_INFINITY, 'id');
    else if (n.name) {
      const key = `${isActor ? 'actor' : 'malware'}:${n.name.toLowerCase()}`;
      const prev = extraNamed.get(key);
      const evidence = prev?.evidence ?? { first: null, confidence: 0, mentions: 0, kinds: new Set(), order: Number.POSITIVE_INFINITY };
      evidence.confidence = TAG_NAMED_CONFIDENCE;
      evidence.mentions += 1;
      extraNamed.set(key, { kind: n.kind, evidence, name: prev?.name ?? n.name });
    }
  }

  // Attack entries with passages.
  const passages = new Map<string, ClassifiedPassage>();
  const attack: AttackEntry[] = [];
  const tactics: string[] = [];
  const platforms = platformsFromText(`${title}\n${text}`);
  const mappings: FrameworkMapping[] = [];
  const catalogKnown = catalog.techniques.size > 0;
  const orderedTechniques = [...techniques.entries()].sort((a, b) => a[1].order - b[1].order || a[0].localeCompare(b[0]));
  for (const [id, e] of orderedTechniques) {
    const dot = id.indexOf('.');
    const known = catalog.techniques.get(id) ?? (dot > 0 ? catalog.techniques.get(id.slice(0, dot)) : undefined);
    let evidenceRef = '';
    const anchor = e.first ?? anchorFor(id, techniques, text, textTokens, catalog);
    if (anchor) {
      const p = passageAround(text, sentences, anchor);
      evidenceRef = passageRef(p.charSpan);
      if (!passages.has(evidenceRef)) passages.set(evidenceRef, { ...p, ref: evidenceRef });
    }
    const penalty = catalogKnown && !catalog.techniques.has(id) ? UNKNOWN_ID_PENALTY : 0;
    const confidence = round2(Math.max(0.05, finalConfidence(e, e.kinds.size > 1) - penalty));
    attack.push({ technique: dot > 0 ? id.slice(0, dot) : id, subTechnique: dot > 0 ? id : '', techniqueName: techniqueName(catalog, id), evidenceRef, confidence });
    mappings.push({ framework: 'mitre-attack', id, confidence });
    if (known) {
      tactics.push(...known.tactics);
      const only = platformOfTechnique(known.platforms);
      if (only) platforms.add(only);
    }
  }

  const named = <T extends CatalogGroup | CatalogSoftware>(map: Map<string, Evidence>, list: readonly T[], keep: (x: T) => boolean): NamedThreat[] =>
    [...map.entries()]
      .map(([key, e]) => ({ item: list[Number(key)], e }))
      .filter((x): x is { item: T; e: Evidence } => x.item !== undefined && keep(x.item))
      .sort((a, b) => a.e.order - b.e.order)
      .map(({ item, e }) => {
        const confidence = finalConfidence(e, e.mentions >= 3);
        mappings.push({ framework: 'mitre-attack', id: item.id, confidence });
        return { name: item.name, confidence, aliases: item.aliases.filter((a) => a.toLowerCase() !== item.name.toLowerCase()) };
      });
  const actor = named(groups, catalog.groups, () => true);
  const malware = named(software, catalog.software, () => true);
  for (const [key, x] of extraNamed) {
    const entry = { name: x.name, confidence: round2(x.evidence.confidence), aliases: [] };
    const target = key.startsWith('actor:') ? actor : malware;
    if (!target.some((t) => t.name.toLowerCase() === x.name.toLowerCase())) target.push(entry);
  }

  for (const cve of new Set(input.cves.map((c) => c.trim().toUpperCase()))) {
    if (CVE_RE.test(cve)) mappings.push({ framework: 'cve', id: cve, confidence: 1 });
  }

  return {
    attack,
    killChain: sortTactics(tactics),
    malware,
    actor,
    platforms: sortPlatforms(platforms),
    mappings,
    passages: [...passages.values()].sort((a, b) => a.charSpan.start - b.charSpan.start),
  };
}
