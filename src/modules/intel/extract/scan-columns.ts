/**
 * The collector's working columns, kept between scans. Allocating them was most of a short text's extraction (a
 * title, a search term: some fifteen typed arrays for a few indicators), and a long text's columns were grown by
 * doubling, each growth a fresh zeroed allocation and a copy, on every scan. A scan is synchronous and the
 * `Extraction` it returns holds copies, so when a scan finishes its columns go back here for the next one; a scan
 * that starts while none is spare (a nested or abandoned scan) gets columns of its own.
 */
import { grown, KeyedIndex } from './keyed-index.js';

/**
 * Columns that grew beyond this many indicators, dropped candidates or (four times as many) occurrence offsets are
 * let go rather than kept: what a process holds between scans stays under ~7 MB.
 */
const KEEP_MAX = 1 << 16;

/** A growable Int32Array (occurrence offsets): no object per occurrence while scanning. */
export class IntList {
  a: Int32Array;
  n = 0;
  constructor(size: number) {
    this.a = new Int32Array(size);
  }
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
 * Indicator columns by index (creation order) and dropped-candidate columns by recording order. Entries past the
 * current counts hold stale numbers: every field of an entry is written when the entry is created.
 */
export class ScanColumns {
  /** (kind code, normalizedValue) → indicator index; its `seeds` and `keys` are the kind and value columns. */
  readonly index: KeyedIndex;
  readonly subtypes: Array<string | undefined> = [];
  confidences: Float64Array;
  defangedFlags: Uint8Array;
  /** The last occurrence recorded per indicator (a repeat of it is ignored; an earlier one means its spans need sorting). */
  lastStarts: Int32Array;
  lastEnds: Int32Array;
  /** The first occurrence per indicator (the smallest start; the earliest recorded among equal starts) and the count. */
  firstStarts: Int32Array;
  firstEnds: Int32Array;
  spanCounts: Int32Array;
  /** Indicators that received an occurrence before one they already had (rare: spans then need sorting). */
  unsorted: Uint8Array;
  /** Occurrences: (indicator index, start, end) triples, in recording order. */
  readonly occurrences: IntList;
  dropKinds: Uint8Array;
  readonly dropReasons: string[] = [];
  dropCategories: Uint8Array;
  readonly dropNormalized: Array<string | undefined> = [];
  readonly dropSpans: IntList;

  constructor(n: number) {
    this.index = new KeyedIndex(n);
    this.confidences = new Float64Array(n);
    this.defangedFlags = new Uint8Array(n);
    this.lastStarts = new Int32Array(n);
    this.lastEnds = new Int32Array(n);
    this.firstStarts = new Int32Array(n);
    this.firstEnds = new Int32Array(n);
    this.spanCounts = new Int32Array(n);
    this.unsorted = new Uint8Array(n);
    this.occurrences = new IntList(4 * n);
    this.dropKinds = new Uint8Array(n);
    this.dropCategories = new Uint8Array(n);
    this.dropSpans = new IntList(4 * n);
  }

  /** Room for indicator `n` (the next index): the typed indicator columns double when full. */
  ensureIndicator(n: number): void {
    if (n < this.confidences.length) return;
    this.confidences = grown(this.confidences);
    this.defangedFlags = grown(this.defangedFlags);
    this.lastStarts = grown(this.lastStarts);
    this.lastEnds = grown(this.lastEnds);
    this.firstStarts = grown(this.firstStarts);
    this.firstEnds = grown(this.firstEnds);
    this.spanCounts = grown(this.spanCounts);
    this.unsorted = grown(this.unsorted);
  }

  /** Room for dropped candidate `m`. */
  ensureDropped(m: number): void {
    if (m < this.dropKinds.length) return;
    this.dropKinds = grown(this.dropKinds);
    this.dropCategories = grown(this.dropCategories);
  }

  /**
   * Empty for the next scan, in time proportional to what this one recorded. The string columns let go of their
   * strings (a value can be a slice that keeps its whole source text alive).
   */
  reset(dropped: number): void {
    const n = this.index.size;
    this.index.clear();
    this.subtypes.fill(undefined, 0, n);
    this.dropReasons.fill('', 0, dropped);
    this.dropNormalized.fill(undefined, 0, dropped);
    this.occurrences.n = 0;
    this.dropSpans.n = 0;
  }
}

let spare: ScanColumns | null = null;

/** Columns for a scan of a text of `length` characters: the spare ones, or new ones sized for the text. */
export function takeColumns(length: number): ScanColumns {
  const s = spare;
  if (s) {
    spare = null;
    return s;
  }
  return new ScanColumns(initialCapacity(length));
}

/** The indicator capacity of the columns kept for the next scan, or null when none are kept (for the tests). */
export function spareCapacity(): number | null {
  return spare ? spare.confidences.length : null;
}

/** Give a finished scan's columns back (`dropped`: how many dropped candidates it recorded). */
export function releaseColumns(columns: ScanColumns, dropped: number): void {
  if (columns.confidences.length > KEEP_MAX || columns.dropKinds.length > KEEP_MAX || columns.occurrences.a.length > 4 * KEEP_MAX) return;
  columns.reset(dropped);
  spare = columns;
}

/**
 * Columns' first capacity for a text of `length` characters: a power of two from 8 to 256, about one indicator
 * per 64 characters (the bench corpus holds one per ~250; indicator lists are denser, and columns double as needed).
 */
function initialCapacity(length: number): number {
  let n = 8;
  while (n < 256 && n * 64 < length) n *= 2;
  return n;
}
