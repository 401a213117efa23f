/**
 * Accumulates extracted indicators (deduplicated by kind + normalizedValue, every occurrence kept as a span) and
 * dropped candidates (one record per occurrence, with the reason).
 */
import type { DropCategory, DroppedCandidate, ExtractedIoc, ExtractResult, IocKind, Span } from './types.js';

/** Default time-to-live per kind, in days (how long an indicator stays actionable without new sightings). */
export const DEFAULT_TTL_DAYS: Record<IocKind, number> = {
  ipv4: 30,
  ipv6: 30,
  domain: 90,
  url: 60,
  email: 180,
  md5: 365,
  sha1: 365,
  sha256: 365,
  sha512: 365,
  ssdeep: 365,
  filename: 180,
  'registry-key': 365,
  process: 180,
  cert: 365,
  'cloud-id': 180,
  'mobile-id': 365,
  cve: 3650,
  'attack-technique': 3650,
  btc: 365,
  eth: 365,
  xmr: 365,
  onion: 90,
  asn: 365,
};

/** Base confidence per kind before per-occurrence adjustments (defanged +0.1, weak context −…). */
export const BASE_CONFIDENCE: Record<IocKind, number> = {
  ipv4: 0.7,
  ipv6: 0.7,
  domain: 0.65,
  url: 0.8,
  email: 0.65,
  md5: 0.85,
  sha1: 0.85,
  sha256: 0.9,
  sha512: 0.9,
  ssdeep: 0.8,
  filename: 0.5,
  'registry-key': 0.7,
  process: 0.5,
  cert: 0.8,
  'cloud-id': 0.6,
  'mobile-id': 0.6,
  cve: 0.95,
  'attack-technique': 0.9,
  btc: 0.85,
  eth: 0.75,
  xmr: 0.85,
  onion: 0.9,
  asn: 0.7,
};

/** Defanging is deliberate: the author marked the value as dangerous. */
const DEFANG_BONUS = 0.1;

const round2 = (x: number): number => Math.round(x * 100) / 100;
const BASE_MAP = new Map(Object.entries(BASE_CONFIDENCE) as Array<[IocKind, number]>);
const confidenceFor = (kind: IocKind, defanged: boolean, delta: number): number => {
  const base = BASE_MAP.get(kind) as number;
  if (!defanged && delta === 0) return base;
  return round2(Math.min(0.99, Math.max(0.05, base + (defanged ? DEFANG_BONUS : 0) + delta)));
};

/** A growable Int32Array (occurrence offsets): no object per occurrence while scanning. */
class IntList {
  a = new Int32Array(1024);
  n = 0;
  push2(x: number, y: number): void {
    if (this.n + 2 > this.a.length) this.grow();
    this.a[this.n++] = x;
    this.a[this.n++] = y;
  }
  push3(x: number, y: number, z: number): void {
    if (this.n + 3 > this.a.length) this.grow();
    this.a[this.n++] = x;
    this.a[this.n++] = y;
    this.a[this.n++] = z;
  }
  private grow(): void {
    const b = new Int32Array(this.a.length * 2);
    b.set(this.a);
    this.a = b;
  }
}

/**
 * While scanning, the collector keeps columns (one array per field, occurrences in one Int32Array) instead of an
 * object per indicator, span and dropped record, so the scan retains no per-occurrence objects for the garbage
 * collector to copy between generations. The `ExtractedIoc` and `DroppedCandidate` objects the API returns are
 * built once, in `result()` (docs/performance.md, "Extraction toward 100 MB/s", has the measurements).
 */
export class Collector {
  /** kind → normalizedValue → indicator index (no key strings built per occurrence). */
  private readonly byKind = new Map<IocKind, Map<string, number>>();
  // ---- indicators, by index, in creation order (each pass finds them in text order)
  private readonly kinds: IocKind[] = [];
  private readonly normalized: string[] = [];
  private readonly subtypes: Array<string | undefined> = [];
  private readonly confidences: number[] = [];
  private readonly defangedFlags: boolean[] = [];
  /** The last occurrence recorded per indicator (a repeat of it is ignored; an earlier one means its spans need sorting). */
  private readonly lastStarts: number[] = [];
  private readonly lastEnds: number[] = [];
  /** Indicators that received an occurrence before one they already had (rare: spans then need sorting). */
  private readonly unsorted = new Set<number>();
  /** Occurrences: (indicator index, start, end) triples, in recording order. */
  private readonly occurrences = new IntList();
  // ---- dropped candidates, one entry per occurrence
  private readonly dropKinds: IocKind[] = [];
  private readonly dropReasons: string[] = [];
  private readonly dropCategories: DropCategory[] = [];
  private readonly dropNormalized: Array<string | undefined> = [];
  private readonly dropSpans = new IntList();

  constructor(
    readonly text: string,
    readonly fileContext: boolean,
  ) {}

  add(
    kind: IocKind,
    start: number,
    end: number,
    normalizedValue: string,
    defanged: boolean,
    confidenceDelta = 0,
    subtype?: string,
  ): void {
    let byValue = this.byKind.get(kind);
    if (byValue === undefined) {
      byValue = new Map();
      this.byKind.set(kind, byValue);
    }
    const i = byValue.get(normalizedValue);
    if (i !== undefined) {
      const lastStart = this.lastStarts[i] as number;
      if (lastStart === start && this.lastEnds[i] === end) return;
      if (start < lastStart) this.unsorted.add(i);
      this.lastStarts[i] = start;
      this.lastEnds[i] = end;
      this.occurrences.push3(i, start, end);
      if (defanged || confidenceDelta > 0) {
        if (defanged) this.defangedFlags[i] = true;
        const confidence = confidenceFor(kind, defanged, confidenceDelta);
        if (confidence > (this.confidences[i] as number)) this.confidences[i] = confidence;
      }
      return;
    }
    const n = this.kinds.length;
    byValue.set(normalizedValue, n);
    this.kinds.push(kind);
    this.normalized.push(normalizedValue);
    this.subtypes.push(subtype);
    this.confidences.push(confidenceFor(kind, defanged, confidenceDelta));
    this.defangedFlags.push(defanged);
    this.lastStarts.push(start);
    this.lastEnds.push(end);
    this.occurrences.push3(n, start, end);
  }

  drop(kind: IocKind, start: number, end: number, reason: string, category: DropCategory, normalizedValue?: string): void {
    this.dropKinds.push(kind);
    this.dropReasons.push(reason);
    this.dropCategories.push(category);
    this.dropNormalized.push(normalizedValue);
    this.dropSpans.push2(start, end);
  }

  result(): ExtractResult {
    const { text } = this;
    const n = this.kinds.length;
    // spans: most indicators occur once (their only span is the last one recorded); the others gather theirs
    const counts = new Int32Array(n);
    const occ = this.occurrences.a;
    const occEnd = this.occurrences.n;
    for (let k = 0; k < occEnd; k += 3) {
      const i = occ[k] as number;
      counts[i] = (counts[i] as number) + 1;
    }
    const spans: Span[][] = new Array(n);
    for (let i = 0; i < n; i++) spans[i] = counts[i] === 1 ? [{ start: this.lastStarts[i] as number, end: this.lastEnds[i] as number }] : [];
    for (let k = 0; k < occEnd; k += 3) {
      const i = occ[k] as number;
      if (counts[i] !== 1) (spans[i] as Span[]).push({ start: occ[k + 1] as number, end: occ[k + 2] as number });
    }
    for (const i of this.unsorted) (spans[i] as Span[]).sort(byStart);
    // by first occurrence, ties in creation order (what a stable sort on the first span's start gives)
    const order = stableOrder(n, text.length, (i) => ((spans[i] as Span[])[0] as Span).start);
    const iocs: ExtractedIoc[] = new Array(n);
    for (let j = 0; j < n; j++) {
      const i = order[j] as number;
      const s = spans[i] as Span[];
      const first = s[0] as Span;
      const ioc: ExtractedIoc = {
        kind: this.kinds[i] as IocKind,
        value: text.slice(first.start, first.end),
        normalizedValue: this.normalized[i] as string,
        confidence: this.confidences[i] as number,
        spans: s,
        defanged: this.defangedFlags[i] as boolean,
      };
      const subtype = this.subtypes[i];
      if (subtype) ioc.subtype = subtype;
      iocs[j] = ioc;
    }
    const m = this.dropKinds.length;
    const ds = this.dropSpans.a;
    const dropOrder = stableOrder(m, text.length, (i) => ds[2 * i] as number);
    const dropped: DroppedCandidate[] = new Array(m);
    for (let j = 0; j < m; j++) {
      const i = dropOrder[j] as number;
      const start = ds[2 * i] as number;
      const end = ds[2 * i + 1] as number;
      const d: DroppedCandidate = {
        kind: this.dropKinds[i] as IocKind,
        value: text.slice(start, end),
        reason: this.dropReasons[i] as string,
        span: { start, end },
        category: this.dropCategories[i] as DropCategory,
      };
      const normalizedValue = this.dropNormalized[i];
      if (normalizedValue !== undefined) d.normalizedValue = normalizedValue;
      dropped[j] = d;
    }
    return { iocs, dropped };
  }
}

/**
 * Indices 0..n-1 ordered by `key` (an offset into a text of `textLength` characters), ties by index: a native
 * numeric sort of `key * n + index`, no comparator calls. Those keys are exact below 2^53; beyond (hundreds of
 * millions of records in a text near V8's length limit) a comparator sort does the same.
 */
function stableOrder(n: number, textLength: number, key: (i: number) => number): Float64Array {
  const keys = new Float64Array(n);
  if ((textLength + 1) * n >= Number.MAX_SAFE_INTEGER) {
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => key(a) - key(b) || a - b);
    keys.set(order);
    return keys;
  }
  for (let i = 0; i < n; i++) keys[i] = key(i) * n + i;
  keys.sort();
  for (let j = 0; j < n; j++) keys[j] = (keys[j] as number) % n;
  return keys;
}

const byStart = (a: Span, b: Span): number => a.start - b.start;
