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

export class Collector {
  /** kind → normalizedValue → ioc (no key strings built per occurrence). */
  private readonly byKind = new Map<IocKind, Map<string, ExtractedIoc>>();
  /**
   * Indicators in creation order: each pass finds them in text order, so this is a few sorted runs
   * that the final sort merges in about one comparison per indicator (the per-kind maps' order
   * needed a real sort: ~10% of the extraction's time on the bench corpus).
   */
  private readonly order: ExtractedIoc[] = [];
  /** Indicators that received an occurrence before one they already had (rare: spans then need sorting). */
  private readonly unsorted = new Set<ExtractedIoc>();
  readonly dropped: DroppedCandidate[] = [];

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
    const existing = byValue.get(normalizedValue);
    if (existing) {
      const { spans } = existing;
      const last = spans[spans.length - 1] as Span;
      if (last.start === start && last.end === end) return;
      if (start < last.start) this.unsorted.add(existing);
      spans.push({ start, end });
      if (defanged || confidenceDelta > 0) {
        if (defanged) existing.defanged = true;
        const confidence = confidenceFor(kind, defanged, confidenceDelta);
        if (confidence > existing.confidence) existing.confidence = confidence;
      }
      return;
    }
    const confidence = confidenceFor(kind, defanged, confidenceDelta);
    const ioc: ExtractedIoc = {
      kind,
      value: this.text.slice(start, end),
      normalizedValue,
      confidence,
      spans: [{ start, end }],
      defanged,
    };
    if (subtype) ioc.subtype = subtype;
    byValue.set(normalizedValue, ioc);
    this.order.push(ioc);
  }

  drop(kind: IocKind, start: number, end: number, reason: string, category: DropCategory, normalizedValue?: string): void {
    const d: DroppedCandidate = { kind, value: this.text.slice(start, end), reason, span: { start, end }, category };
    if (normalizedValue !== undefined) d.normalizedValue = normalizedValue;
    this.dropped.push(d);
  }

  result(): ExtractResult {
    for (const ioc of this.unsorted) {
      ioc.spans.sort(byStart);
      const first = ioc.spans[0] as Span;
      ioc.value = this.text.slice(first.start, first.end);
    }
    const iocs = this.order;
    iocs.sort(byFirstSpan);
    this.dropped.sort(bySpanStart);
    return { iocs, dropped: this.dropped };
  }
}

const byStart = (a: Span, b: Span): number => a.start - b.start;
const byFirstSpan = (a: ExtractedIoc, b: ExtractedIoc): number => (a.spans[0] as Span).start - (b.spans[0] as Span).start;
const bySpanStart = (a: DroppedCandidate, b: DroppedCandidate): number => a.span.start - b.span.start;
