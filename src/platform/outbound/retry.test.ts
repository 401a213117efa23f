import { describe, expect, it } from 'vitest';
import { delayFor, parseRetryAfter } from './retry.js';

describe('retry delays', () => {
  it('computes backoff with jitter, capped, and reads both Retry-After forms', () => {
    for (let attempt = 1; attempt <= 10; attempt++) {
      const step = Math.min(30_000, 500 * 2 ** (attempt - 1));
      expect(delayFor(attempt, undefined, 500, 30_000, () => 0)).toBe(step / 2);
      expect(delayFor(attempt, undefined, 500, 30_000, () => 0.999999)).toBe(step);
    }
    expect(delayFor(1, '120', 500, 30_000)).toBe(30_000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:02 GMT', now)).toBe(2_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('3', now)).toBe(3_000);
  });
});
