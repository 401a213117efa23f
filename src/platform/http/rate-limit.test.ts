import { describe, expect, it } from 'vitest';
import { RateLimitedError } from './errors.js';
import { createRateLimiter } from './rate-limit.js';

describe('rate limiter', () => {
  it('allows the limit per key per minute, then answers with Retry-After', () => {
    let now = 1_000_000;
    const limiter = createRateLimiter(2, () => now);
    limiter.hit('a');
    limiter.hit('a');
    limiter.hit('b');
    now += 45_000;
    try {
      limiter.hit('a');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(RateLimitedError);
      expect((err as RateLimitedError).headers['retry-after']).toBe('15');
    }
    now += 15_000;
    expect(() => limiter.hit('a')).not.toThrow();
  });

  it('is disabled with a limit of 0', () => {
    const limiter = createRateLimiter(0);
    for (let i = 0; i < 1000; i++) limiter.hit('a');
  });
});
