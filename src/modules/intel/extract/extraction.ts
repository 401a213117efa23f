/**
 * An extraction's results as columns: what `scanIocs` returns. Indicators and dropped candidates are positions
 * (0…size−1, in the order `extractIocs` lists them) into typed arrays of offsets and small integer codes; a string
 * is read only for what is asked (`value(j)` slices the text then), and objects are built only by `ioc(j)`,
 * `spans(j)`, `droppedCandidate(d)` and `toResult()`. A caller that stores a few fields of each indicator (the
 * ingestion pipeline) builds its own rows straight from the columns, without the per-indicator, per-span and
 * per-dropped-record objects of `ExtractResult` in between (docs/extraction.md, "Compact results").
 */
import type { DropCategory, DroppedCandidate, ExtractedIoc, ExtractResult, IocKind, Span } from './types.js';

/** The columns an `Extraction` is built from (Collector.finish), indicators and dropped candidates in result order. */
export interface ExtractionColumns {
  size: number;
  kindCodes: Uint8Array;
  normalized: string[];
  confidences: Float64Array;
  defanged: Uint8Array;
  subtypes: Array<string | undefined>;
  /** The first occurrence of each indicator (its smallest start; the first one recorded among equal starts). */
  starts: Int32Array;
  ends: Int32Array;
  /** Each indicator's number of occurrences. */
  spanCounts: Int32Array;
  /** Occurrences as (position, start, end) triples in recording order, `occurrenceCount` triples long. */
  occurrences: Int32Array;
  occurrenceCount: number;
  /** Whether a position's occurrences were recorded out of order (rare: its spans are then sorted by start). */
  unsorted: Uint8Array;
  droppedSize: number;
  droppedKindCodes: Uint8Array;
  droppedCategoryCodes: Uint8Array;
  droppedReasons: string[];
  droppedNormalized: Array<string | undefined>;
  droppedStarts: Int32Array;
  droppedEnds: Int32Array;
}

/** Kind codes: the index of a kind in this list (the order of the collector's confidence table). */
export const KIND_OF_CODE: readonly IocKind[] = [
  'ipv4', 'ipv6', 'domain', 'url', 'email', 'md5', 'sha1', 'sha256', 'sha512', 'ssdeep', 'filename', 'registry-key', 'process',
  'cert', 'cloud-id', 'mobile-id', 'cve', 'attack-technique', 'btc', 'eth', 'xmr', 'onion', 'asn',
];
export const CATEGORY_OF_CODE: readonly DropCategory[] = ['invalid', 'reserved', 'benign', 'ambiguous'];

export class Extraction {
  /** Number of indicators. */
  readonly size: number;
  /** Number of dropped candidates. */
  readonly droppedSize: number;
  private readonly c: ExtractionColumns;
  /** Every indicator's spans, by position: offsets into `spanData` (start, end pairs), built on first use. */
  private spanOffsets: Int32Array | null = null;
  private spanData: Int32Array | null = null;

  constructor(
    readonly text: string,
    columns: ExtractionColumns,
  ) {
    this.c = columns;
    this.size = columns.size;
    this.droppedSize = columns.droppedSize;
  }

  // ---- indicators, by position j (0…size−1, ordered by first occurrence)

  kind(j: number): IocKind {
    return KIND_OF_CODE[this.c.kindCodes[j] as number] as IocKind;
  }
  /** The kind as its code, an index into KIND_OF_CODE. */
  kindCode(j: number): number {
    return this.c.kindCodes[j] as number;
  }
  normalizedValue(j: number): string {
    return this.c.normalized[j] as string;
  }
  confidence(j: number): number {
    return this.c.confidences[j] as number;
  }
  defanged(j: number): boolean {
    return this.c.defanged[j] === 1;
  }
  subtype(j: number): string | undefined {
    return this.c.subtypes[j];
  }
  /** Start and end of the first occurrence. */
  start(j: number): number {
    return this.c.starts[j] as number;
  }
  end(j: number): number {
    return this.c.ends[j] as number;
  }
  /** The first occurrence as written (a slice of the text, made now). */
  value(j: number): string {
    return this.text.slice(this.c.starts[j], this.c.ends[j]);
  }
  spanCount(j: number): number {
    return this.c.spanCounts[j] as number;
  }
  /** Start and end of occurrence k (0…spanCount(j)−1, by start) of indicator j. */
  spanStart(j: number, k: number): number {
    if ((this.c.spanCounts[j] as number) === 1) return this.c.starts[j] as number;
    this.buildSpans();
    return (this.spanData as Int32Array)[2 * ((this.spanOffsets as Int32Array)[j] as number) + 2 * k] as number;
  }
  spanEnd(j: number, k: number): number {
    if ((this.c.spanCounts[j] as number) === 1) return this.c.ends[j] as number;
    this.buildSpans();
    return (this.spanData as Int32Array)[2 * ((this.spanOffsets as Int32Array)[j] as number) + 2 * k + 1] as number;
  }
  /** Every occurrence of indicator j as span objects, sorted by start (equal starts in recording order). */
  spans(j: number): Span[] {
    const n = this.c.spanCounts[j] as number;
    if (n === 1) return [{ start: this.c.starts[j] as number, end: this.c.ends[j] as number }];
    this.buildSpans();
    const data = this.spanData as Int32Array;
    const from = 2 * ((this.spanOffsets as Int32Array)[j] as number);
    const out: Span[] = new Array(n);
    for (let k = 0; k < n; k++) out[k] = { start: data[from + 2 * k] as number, end: data[from + 2 * k + 1] as number };
    return out;
  }
  /** Indicator j as the object `extractIocs` returns. */
  ioc(j: number): ExtractedIoc {
    const c = this.c;
    const ioc: ExtractedIoc = {
      kind: KIND_OF_CODE[c.kindCodes[j] as number] as IocKind,
      value: this.text.slice(c.starts[j], c.ends[j]),
      normalizedValue: c.normalized[j] as string,
      confidence: c.confidences[j] as number,
      spans: this.spans(j),
      defanged: c.defanged[j] === 1,
    };
    const subtype = c.subtypes[j];
    if (subtype) ioc.subtype = subtype;
    return ioc;
  }

  // ---- dropped candidates, by position d (0…droppedSize−1, ordered by start)

  droppedKind(d: number): IocKind {
    return KIND_OF_CODE[this.c.droppedKindCodes[d] as number] as IocKind;
  }
  droppedReason(d: number): string {
    return this.c.droppedReasons[d] as string;
  }
  droppedCategory(d: number): DropCategory {
    return CATEGORY_OF_CODE[this.c.droppedCategoryCodes[d] as number] as DropCategory;
  }
  /** Present when the candidate was valid enough to be normalized (reserved, benign, ambiguous ones). */
  droppedNormalizedValue(d: number): string | undefined {
    return this.c.droppedNormalized[d];
  }
  droppedStart(d: number): number {
    return this.c.droppedStarts[d] as number;
  }
  droppedEnd(d: number): number {
    return this.c.droppedEnds[d] as number;
  }
  /** The candidate as written (a slice of the text, made now). */
  droppedValue(d: number): string {
    return this.text.slice(this.c.droppedStarts[d], this.c.droppedEnds[d]);
  }
  /** Dropped candidate d as the object `extractIocs` returns. */
  droppedCandidate(d: number): DroppedCandidate {
    const c = this.c;
    const start = c.droppedStarts[d] as number;
    const end = c.droppedEnds[d] as number;
    const out: DroppedCandidate = {
      kind: KIND_OF_CODE[c.droppedKindCodes[d] as number] as IocKind,
      value: this.text.slice(start, end),
      reason: c.droppedReasons[d] as string,
      span: { start, end },
      category: CATEGORY_OF_CODE[c.droppedCategoryCodes[d] as number] as DropCategory,
    };
    const normalizedValue = c.droppedNormalized[d];
    if (normalizedValue !== undefined) out.normalizedValue = normalizedValue;
    return out;
  }

  /** Every indicator and dropped candidate as objects: what `extractIocs` returns. */
  toResult(): ExtractResult {
    const iocs: ExtractedIoc[] = new Array(this.size);
    for (let j = 0; j < this.size; j++) iocs[j] = this.ioc(j);
    const dropped: DroppedCandidate[] = new Array(this.droppedSize);
    for (let d = 0; d < this.droppedSize; d++) dropped[d] = this.droppedCandidate(d);
    return { iocs, dropped };
  }

  /**
   * The spans of every indicator with more than one occurrence, grouped by position (counting sort of the
   * occurrence triples), each group sorted by start where its occurrences arrived out of order. Built once, on the
   * first read of such an indicator's spans; single-occurrence indicators (most) read their first span's columns.
   */
  private buildSpans(): void {
    if (this.spanData) return;
    const { size, spanCounts, occurrences, occurrenceCount, unsorted } = this.c;
    const offsets = new Int32Array(size + 1);
    for (let j = 0; j < size; j++) offsets[j + 1] = (offsets[j] as number) + (spanCounts[j] as number);
    const data = new Int32Array(2 * (offsets[size] as number));
    const fill = offsets.slice(0, size);
    for (let k = 0; k < 3 * occurrenceCount; k += 3) {
      const j = occurrences[k] as number;
      const at = 2 * (fill[j] as number);
      fill[j] = (fill[j] as number) + 1;
      data[at] = occurrences[k + 1] as number;
      data[at + 1] = occurrences[k + 2] as number;
    }
    for (let j = 0; j < size; j++) if (unsorted[j] === 1) sortPairsByStart(data, offsets[j] as number, offsets[j + 1] as number);
    this.spanOffsets = offsets;
    this.spanData = data;
  }
}

/**
 * Stable sort by start of the (start, end) pairs from..to−1 of `data`: insertion sort for the few pairs a group
 * usually holds, a (stable) comparator sort of the pairs for a long one.
 */
function sortPairsByStart(data: Int32Array, from: number, to: number): void {
  if (to - from > 32) {
    const pairs: Array<[number, number]> = [];
    for (let i = from; i < to; i++) pairs.push([data[2 * i] as number, data[2 * i + 1] as number]);
    pairs.sort((a, b) => a[0] - b[0]);
    for (let i = from; i < to; i++) {
      const [s, e] = pairs[i - from] as [number, number];
      data[2 * i] = s;
      data[2 * i + 1] = e;
    }
    return;
  }
  for (let i = from + 1; i < to; i++) {
    const s = data[2 * i] as number;
    const e = data[2 * i + 1] as number;
    let k = i - 1;
    while (k >= from && (data[2 * k] as number) > s) {
      data[2 * k + 2] = data[2 * k] as number;
      data[2 * k + 3] = data[2 * k + 1] as number;
      k--;
    }
    data[2 * k + 2] = s;
    data[2 * k + 3] = e;
  }
}
