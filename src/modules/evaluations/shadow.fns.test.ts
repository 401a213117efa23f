import { describe, expect, it } from 'vitest';
import { shadowContext, shadowOfCase } from './shadow.fns.js';

describe('the shadow alert', () => {
  it('counts its first occurrence, as a real alert does (duplicateCount starts at 1)', () => {
    const shadow = shadowOfCase({ title: 'GuardDuty SSH brute force', severity: 'high', payload: {}, timeline: [] } as never, '00000000-0000-7000-8000-000000000001', 3, new Date('2026-11-29T00:00:00Z'));
    expect(shadowContext(shadow).duplicateCount).toBe(1);
  });
});
