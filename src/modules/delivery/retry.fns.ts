import { parseRetryAfter } from '../../platform/outbound/retry.js';

/**
 * The retry policy, pure. A delivery gets 8 attempts over about an hour: the first at once,
 * then after ~30 s, 1, 2, 4, 8, 16 and 32 min (each ±10 % jitter, so destinations that failed
 * together do not retry in lockstep): 63.5 min in all. A `Retry-After` from the remote side
 * replaces the computed wait (capped at an hour, never below 1 s).
 */
export const MAX_ATTEMPTS = 8;
export const BASE_DELAY_MS = 30_000;
export const MAX_RETRY_AFTER_MS = 3_600_000;

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxRetryAfterMs: number;
}

export const DEFAULT_POLICY: RetryPolicy = { maxAttempts: MAX_ATTEMPTS, baseDelayMs: BASE_DELAY_MS, maxRetryAfterMs: MAX_RETRY_AFTER_MS };

/** Wait before the attempt after `attempt` (1-based), jittered ±10 %. */
export function backoffMs(attempt: number, policy: RetryPolicy = DEFAULT_POLICY, random: () => number = Math.random): number {
  const step = policy.baseDelayMs * 2 ** Math.max(0, attempt - 1);
  return Math.round(step * (0.9 + 0.2 * random()));
}

/** The nominal schedule (no jitter): offsets of each retry from the first attempt, for docs and tests. */
export function nominalSchedule(policy: RetryPolicy = DEFAULT_POLICY): number[] {
  const out: number[] = [];
  let at = 0;
  for (let a = 1; a < policy.maxAttempts; a++) {
    at += policy.baseDelayMs * 2 ** (a - 1);
    out.push(at);
  }
  return out;
}

/** A response status the remote side will answer the same way again: 4xx except 408 and 429. */
export function isPermanentStatus(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/** When to try again after a transient failure of `attempt`, or null when no attempt is left. */
export function nextAttemptDelay(attempt: number, retryAfter: string | number | undefined, policy: RetryPolicy = DEFAULT_POLICY, random: () => number = Math.random): number | null {
  if (attempt >= policy.maxAttempts) return null;
  const fromServer = typeof retryAfter === 'number' ? retryAfter : parseRetryAfter(retryAfter);
  if (fromServer !== null) return Math.min(Math.max(fromServer, 1_000), policy.maxRetryAfterMs);
  return backoffMs(attempt, policy, random);
}
