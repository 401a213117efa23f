/** Statuses worth another try: rate limited, or a gateway/upstream that is briefly down. */
export const DEFAULT_RETRY_STATUSES: readonly number[] = [429, 502, 503, 504];

/** Methods that can be repeated without repeating a side effect (RFC 9110 §9.2.2). */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/**
 * How long to wait before attempt `attempt + 1` (attempt counts from 1).
 *
 * A server's Retry-After (delta-seconds or an HTTP date) wins, capped at `max` so that a
 * hostile or confused server cannot park a worker for hours. Otherwise exponential backoff
 * with "equal jitter" (between half and all of the exponential step), so that many workers
 * failing together do not retry in lockstep, yet each still waits a meaningful minimum.
 */
export function delayFor(attempt: number, retryAfter: string | undefined, base: number, max: number, random: () => number = Math.random): number {
  const fromServer = parseRetryAfter(retryAfter);
  if (fromServer !== null) return Math.min(fromServer, max);
  const step = Math.min(max, base * 2 ** Math.max(0, attempt - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

/** Retry-After in milliseconds, or null when absent or unparseable. A past date means "now". */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (trimmed === '') return null;
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}
