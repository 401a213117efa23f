import { RateLimitedError } from './errors.js';

/**
 * Fixed-window request counter per API key (or per client address before authentication).
 * Per process, on purpose: it protects this process from one noisy key without a round trip
 * to a shared store on every request. With N API processes the effective limit is N × limit.
 */
export interface RateLimiter {
  hit(key: string): void;
}

export function createRateLimiter(limitPerMinute: number, now: () => number = Date.now): RateLimiter {
  const windowMs = 60_000;
  let windowStart = now();
  let counts = new Map<string, number>();
  return {
    hit(key) {
      if (limitPerMinute === 0) return; // 0 disables rate limiting
      const t = now();
      if (t - windowStart >= windowMs) {
        windowStart = t - ((t - windowStart) % windowMs);
        counts = new Map();
      }
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      if (n > limitPerMinute) {
        throw new RateLimitedError(Math.max(1, Math.ceil((windowStart + windowMs - t) / 1000)));
      }
    },
  };
}
