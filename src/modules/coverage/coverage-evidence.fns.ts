/**
 * Coverage that means something (issue 44, item 5): of the techniques detections cover, those
 * whose detections matched events in the window (`matched`) against those covered on paper only
 * (`paper`: no detection naming them matched anything); `none` when no detection covers them
 * (a gap, or a technique only a deprecated detection names). Pure.
 */
export const EVIDENCE_STATES = ['matched', 'paper', 'none'] as const;
export type Evidence = (typeof EVIDENCE_STATES)[number];

export interface TechniqueMatches {
  /** Detections naming the technique that matched events in the window. */
  detections: number;
  /** Events they matched. */
  events: number;
  lastMatchedAt: string | null;
}

export function matchesByTechnique(
  detections: Array<{ id: string; techniques: string[] }>,
  totals: Map<string, { matches: number; lastMatchedAt: Date }>,
): Map<string, TechniqueMatches> {
  const out = new Map<string, TechniqueMatches>();
  for (const d of detections) {
    const t = totals.get(d.id);
    if (!t || t.matches === 0) continue;
    for (const tid of d.techniques) {
      const m = out.get(tid) ?? { detections: 0, events: 0, lastMatchedAt: null };
      m.detections++;
      m.events += t.matches;
      const last = t.lastMatchedAt.toISOString();
      if (!m.lastMatchedAt || last > m.lastMatchedAt) m.lastMatchedAt = last;
      out.set(tid, m);
    }
  }
  return out;
}

export function evidenceOf(coveringDetections: number, matches: TechniqueMatches | undefined): Evidence {
  if (coveringDetections === 0) return 'none';
  return matches && matches.detections > 0 ? 'matched' : 'paper';
}
