import { describe, expect, it } from 'vitest';
import { rate, windowDays } from './insights.fns.js';

describe('windowDays', () => {
  it('ends with today (UTC) and starts at the first day\'s midnight', () => {
    const { from, days } = windowDays('7d', new Date('2026-11-25T23:30:00-05:00'));
    expect(days).toEqual(['2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23', '2026-11-24', '2026-11-25', '2026-11-26']);
    expect(from.toISOString()).toBe('2026-11-20T00:00:00.000Z');
    expect(windowDays('90d', new Date('2026-03-01T00:00:00Z')).days).toHaveLength(90);
  });
});

describe('rate', () => {
  it('is null without a whole, rounded to three places otherwise', () => {
    expect(rate(0, 0)).toBeNull();
    expect(rate(1, 3)).toBe(0.333);
  });
});
