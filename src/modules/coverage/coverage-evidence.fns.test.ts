import { describe, expect, it } from 'vitest';
import { evidenceOf, matchesByTechnique } from './coverage-evidence.fns.js';

describe('coverage evidence', () => {
  it('a technique is matched when a detection naming it matched events, on paper when none did, none without a detection', () => {
    const at = new Date('2026-11-28T10:00:00Z');
    const later = new Date('2026-11-29T10:00:00Z');
    const m = matchesByTechnique(
      [{ id: 'a', techniques: ['T1059', 'T1110'] }, { id: 'b', techniques: ['T1059'] }, { id: 'c', techniques: ['T1003'] }],
      new Map([['a', { matches: 3, lastMatchedAt: at }], ['b', { matches: 2, lastMatchedAt: later }], ['c', { matches: 0, lastMatchedAt: at }]]),
    );
    expect(m.get('T1059')).toEqual({ detections: 2, events: 5, lastMatchedAt: later.toISOString() });
    expect(m.get('T1003')).toBeUndefined();
    expect(evidenceOf(2, m.get('T1059'))).toBe('matched');
    expect(evidenceOf(1, m.get('T1003'))).toBe('paper');
    expect(evidenceOf(0, undefined)).toBe('none');
  });
});
