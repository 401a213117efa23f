import { describe, expect, it } from 'vitest';
import { backoffMs, DEFAULT_POLICY, isPermanentStatus, nextAttemptDelay, nominalSchedule } from './retry.fns.js';

describe('retry policy', () => {
  it('spreads 8 attempts over about an hour', () => {
    const s = nominalSchedule();
    expect(s).toHaveLength(7);
    expect(s[0]).toBe(30_000);
    expect(s.at(-1)).toBe(63.5 * 60_000);
  });

  it('jitters each wait by ±10 %', () => {
    expect(backoffMs(1, DEFAULT_POLICY, () => 0)).toBe(27_000);
    expect(backoffMs(1, DEFAULT_POLICY, () => 1)).toBe(33_000);
    expect(backoffMs(3, DEFAULT_POLICY, () => 0.5)).toBe(120_000);
  });

  it('honours Retry-After (seconds or a date), bounded', () => {
    expect(nextAttemptDelay(1, '7')).toBe(7_000);
    expect(nextAttemptDelay(1, '0')).toBe(1_000);
    expect(nextAttemptDelay(1, '999999')).toBe(3_600_000);
    expect(nextAttemptDelay(1, new Date(Date.now() + 60_000).toUTCString())).toBeGreaterThan(50_000);
  });

  it('gives up after the last attempt', () => {
    expect(nextAttemptDelay(8, undefined)).toBeNull();
    expect(nextAttemptDelay(7, undefined, DEFAULT_POLICY, () => 0.5)).toBe(32 * 60_000);
  });

  it('treats 4xx other than 408/429 as permanent', () => {
    for (const s of [400, 401, 403, 404, 410, 413, 422]) expect(isPermanentStatus(s)).toBe(true);
    for (const s of [408, 429, 500, 502, 503, 504, 200]) expect(isPermanentStatus(s)).toBe(false);
  });
});
