/**
 * Accumulates extracted indicators (deduplicated by kind + normalizedValue, every occurrence kept as a span) and
 * dropped candidates (one record per occurrence, with the reason).
 */
import { CATEGORY_OF_CODE, Extraction, type ExtractionColumns, KIND_OF_CODE } from './extraction.js';
import { releaseColumns, type ScanColumns, takeColumns } from './scan-columns.js';
import type { DropCategory, ExtractResult, IocKind } from './types.js';

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

/** Kinds and drop categories are stored as small codes in typed columns (extraction.ts has the code → value tables). */
const KIND_CODE = new Map(KIND_OF_CODE.map((k, i) => [k, i]));
const BASE_BY_CODE = Float64Array.from(KIND_OF_CODE, (k) => BASE_CONFIDENCE[k]);
const CATEGORY_CODE = new Map(CATEGORY_OF_CODE.map((c, i) => [c, i]));

const round2 = (x: number): number => Math.round(x * 100) / 100;
const confidenceFor = (code: number, defanged: boolean, delta: number): number => {
  const base = BASE_BY_CODE[code] as number;
  if (!defanged && delta === 0) return base;
  return round2(Math.min(0.99, Math.max(0.05, base + (defanged ? DEFANG_BONUS : 0) + delta)));
};

/**
 * While scanning, the collector keeps columns (one array per field, occurrences in one Int32Array) instead of an
 * object per indicator, span and dropped record, so the scan retains no per-occurrence objects for the garbage
 * collector to copy between generations. Numeric and flag columns are typed arrays: their memory is outside the
 * JavaScript heap, so growing them allocates nothing the young generation must collect (a quarter of the scan's
 * allocations were array growth). The `ExtractedIoc` and `DroppedCandidate` objects the API returns are built once,
 * in `result()` (docs/performance.md, "Extraction toward 100 MB/s", has the measurements).
 */
export class Collector {
  /** The working columns (scan-columns.ts): taken when the scan starts, given back when it finishes. */
  private readonly w: ScanColumns;
  // ---- dropped candidates, one entry per occurrence
  private m = 0;
  private finished: Extraction | null = null;

  constructor(
    readonly text: string,
    readonly fileContext: boolean,
  ) {
    this.w = takeColumns(text.length);
  }

  add(
    kind: IocKind,
    start: number,
    end: number,
    normalizedValue: string,
    defanged: boolean,
    confidenceDelta = 0,
    subtype?: string,
  ): void {
    const code = KIND_CODE.get(kind) as number;
    const w = this.w;
    const i = w.index.find(code, normalizedValue);
    if (i >= 0) {
      const lastStart = w.lastStarts[i] as number;
      if (lastStart === start && w.lastEnds[i] === end) return;
      if (start < lastStart) {
        w.unsorted[i] = 1;
        if (start < (w.firstStarts[i] as number)) {
          w.firstStarts[i] = start;
          w.firstEnds[i] = end;
        }
      }
      w.lastStarts[i] = start;
      w.lastEnds[i] = end;
      w.spanCounts[i] = (w.spanCounts[i] as number) + 1;
      w.occurrences.push3(i, start, end);
      if (defanged || confidenceDelta > 0) {
        if (defanged) w.defangedFlags[i] = 1;
        const confidence = confidenceFor(code, defanged, confidenceDelta);
        if (confidence > (w.confidences[i] as number)) w.confidences[i] = confidence;
      }
      return;
    }
    const n = w.index.insert(code, normalizedValue);
    w.ensureIndicator(n);
    w.subtypes[n] = subtype;
    w.confidences[n] = confidenceFor(code, defanged, confidenceDelta);
    w.defangedFlags[n] = defanged ? 1 : 0;
    w.lastStarts[n] = start;
    w.lastEnds[n] = end;
    w.firstStarts[n] = start;
    w.firstEnds[n] = end;
    w.spanCounts[n] = 1;
    w.unsorted[n] = 0;
    w.occurrences.push3(n, start, end);
  }

  drop(kind: IocKind, start: number, end: number, reason: string, category: DropCategory, normalizedValue?: string): void {
    const m = this.m++;
    const w = this.w;
    w.ensureDropped(m);
    w.dropKinds[m] = KIND_CODE.get(kind) as number;
    w.dropReasons[m] = reason;
    w.dropCategories[m] = CATEGORY_CODE.get(category) as number;
    w.dropNormalized[m] = normalizedValue;
    w.dropSpans.push2(start, end);
  }

  /**
   * The results as columns in result order: indicators by first occurrence (ties in creation order), dropped
   * candidates by start. The columns are copied in that order (a few typed arrays and two string arrays); nothing
   * per occurrence is built here. The working columns then go back for the next scan: a collector records nothing
   * after `finish` (`scanIocs` finishes last).
   */
  finish(): Extraction {
    if (this.finished) return this.finished;
    const i = this.indicatorColumns();
    const d = this.droppedColumns();
    // one object literal (one shape for every extraction's columns)
    this.finished = new Extraction(this.text, {
      size: i.size,
      kindCodes: i.kindCodes,
      normalized: i.normalized,
      confidences: i.confidences,
      defanged: i.defanged,
      subtypes: i.subtypes,
      starts: i.starts,
      ends: i.ends,
      spanCounts: i.spanCounts,
      occurrences: i.occurrences,
      occurrenceCount: i.occurrenceCount,
      unsorted: i.unsorted,
      droppedSize: d.droppedSize,
      droppedKindCodes: d.droppedKindCodes,
      droppedCategoryCodes: d.droppedCategoryCodes,
      droppedReasons: d.droppedReasons,
      droppedNormalized: d.droppedNormalized,
      droppedStarts: d.droppedStarts,
      droppedEnds: d.droppedEnds,
    });
    releaseColumns(this.w, this.m);
    return this.finished;
  }

  /** Indicators by first occurrence (ties in creation order); shared empty columns when there is none (most short texts). */
  private indicatorColumns(): IndicatorColumns {
    const w = this.w;
    const n = w.index.size;
    if (n === 0) return NO_INDICATORS;
    const order = stableOrder(n, this.text.length, w.firstStarts);
    const kindCodes = new Uint8Array(n);
    const normalized: string[] = new Array(n);
    const confidences = new Float64Array(n);
    const defanged = new Uint8Array(n);
    const subtypes: Array<string | undefined> = new Array(n);
    const starts = new Int32Array(n);
    const ends = new Int32Array(n);
    const spanCounts = new Int32Array(n);
    const unsorted = new Uint8Array(n);
    const positionOf = new Int32Array(n);
    const seeds = w.index.seeds;
    const keys = w.index.keys;
    for (let j = 0; j < n; j++) {
      const i = order[j] as number;
      positionOf[i] = j;
      kindCodes[j] = seeds[i] as number;
      normalized[j] = keys[i] as string;
      confidences[j] = w.confidences[i] as number;
      defanged[j] = w.defangedFlags[i] as number;
      subtypes[j] = w.subtypes[i];
      starts[j] = w.firstStarts[i] as number;
      ends[j] = w.firstEnds[i] as number;
      spanCounts[j] = w.spanCounts[i] as number;
      unsorted[j] = w.unsorted[i] as number;
    }
    // occurrences keep their recording order; only their indicator index becomes a position
    // (a copy: the working columns are reused by the next scan)
    const occurrenceCount = w.occurrences.n / 3;
    const occurrences = w.occurrences.a.slice(0, w.occurrences.n);
    for (let k = 0; k < occurrences.length; k += 3) occurrences[k] = positionOf[occurrences[k] as number] as number;
    return { size: n, kindCodes, normalized, confidences, defanged, subtypes, starts, ends, spanCounts, occurrences, occurrenceCount, unsorted };
  }

  /** Dropped candidates by start (ties in recording order); shared empty columns when there is none. */
  private droppedColumns(): DroppedColumns {
    const m = this.m;
    if (m === 0) return NO_DROPPED;
    const w = this.w;
    const ds = w.dropSpans.a;
    const dropStarts = new Int32Array(m);
    for (let d = 0; d < m; d++) dropStarts[d] = ds[2 * d] as number;
    const dropOrder = stableOrder(m, this.text.length, dropStarts);
    const droppedKindCodes = new Uint8Array(m);
    const droppedCategoryCodes = new Uint8Array(m);
    const droppedReasons: string[] = new Array(m);
    const droppedNormalized: Array<string | undefined> = new Array(m);
    const droppedStarts = new Int32Array(m);
    const droppedEnds = new Int32Array(m);
    for (let j = 0; j < m; j++) {
      const d = dropOrder[j] as number;
      droppedKindCodes[j] = w.dropKinds[d] as number;
      droppedCategoryCodes[j] = w.dropCategories[d] as number;
      droppedReasons[j] = w.dropReasons[d] as string;
      droppedNormalized[j] = w.dropNormalized[d];
      droppedStarts[j] = ds[2 * d] as number;
      droppedEnds[j] = ds[2 * d + 1] as number;
    }
    return { droppedSize: m, droppedKindCodes, droppedCategoryCodes, droppedReasons, droppedNormalized, droppedStarts, droppedEnds };
  }

  /** The results as objects (`finish().toResult()`). */
  result(): ExtractResult {
    return this.finish().toResult();
  }
}

type IndicatorColumns = Omit<ExtractionColumns, keyof DroppedColumns>;
type DroppedColumns = Pick<
  ExtractionColumns,
  'droppedSize' | 'droppedKindCodes' | 'droppedCategoryCodes' | 'droppedReasons' | 'droppedNormalized' | 'droppedStarts' | 'droppedEnds'
>;
/**
 * The columns of an extraction that found nothing. Shared by every such result: zero-length typed arrays cannot be
 * written, and the frozen string arrays cannot be pushed to.
 */
const NO_INDICATORS: IndicatorColumns = {
  size: 0,
  kindCodes: new Uint8Array(0),
  normalized: Object.freeze([]) as unknown as string[],
  confidences: new Float64Array(0),
  defanged: new Uint8Array(0),
  subtypes: Object.freeze([]) as unknown as string[],
  starts: new Int32Array(0),
  ends: new Int32Array(0),
  spanCounts: new Int32Array(0),
  occurrences: new Int32Array(0),
  occurrenceCount: 0,
  unsorted: new Uint8Array(0),
};
const NO_DROPPED: DroppedColumns = {
  droppedSize: 0,
  droppedKindCodes: new Uint8Array(0),
  droppedCategoryCodes: new Uint8Array(0),
  droppedReasons: Object.freeze([]) as unknown as string[],
  droppedNormalized: Object.freeze([]) as unknown as string[],
  droppedStarts: new Int32Array(0),
  droppedEnds: new Int32Array(0),
};

/**
 * Indices 0..n-1 ordered by `key` (an offset into a text of `textLength` characters), ties by index: a native
 * numeric sort of `key * n + index`, no comparator calls. Those keys are exact below 2^53; beyond (hundreds of
 * millions of records in a text near V8's length limit) a comparator sort does the same.
 */
function stableOrder(n: number, textLength: number, key: Int32Array): Float64Array {
  const keys = new Float64Array(n);
  if ((textLength + 1) * n >= Number.MAX_SAFE_INTEGER) {
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => (key[a] as number) - (key[b] as number) || a - b);
    keys.set(order);
    return keys;
  }
  for (let i = 0; i < n; i++) keys[i] = (key[i] as number) * n + i;
  keys.sort();
  for (let j = 0; j < n; j++) keys[j] = (keys[j] as number) % n;
  return keys;
}

