/**
 * An item's enrichment as intel stores it (items/results.store.ts, items/ingest.store.ts): what
 * intel-ingest's pipeline computes for an item (its `processItem`) and hands to these stores.
 * Intel owns the shape because it owns the columns; the pipeline's result is this shape with its
 * own classification and severity types (`ProcessResult` extends `Enrichment<Classification>`).
 */
export interface IndicatorOut {
  type: string;
  value: string;
  normalizedValue: string;
  confidence: number;
  ttlDays: number;
}

export interface Enrichment<C extends object = object> {
  indicators: IndicatorOut[];
  iocs: Record<string, Array<IndicatorOut & { firstSeen: string; lastSeen: string }>>;
  dropped: Array<{ type: string; value: string; reason: string }>;
  classification: C;
  affectedProducts: Array<{ vendor: string; product: string; versions: string[]; confidence: number }>;
  passages: Array<{ text: string; sourceUrl: string; charSpan: { start: number; end: number } }>;
  severity: string;
  relevance: number;
  platforms: string[];
  summary: string;
  tldr: string;
  abstract: string;
  attackPath: string[];
  eventConfidence: number;
  canonicalKey: string | null;
  cves: string[];
  retracted: boolean;
}
