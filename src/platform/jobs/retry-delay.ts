/**
 * When graphile-worker runs a failed job again: exp(min(attempts, 10)) seconds after the failure
 * (its fail_job statement; `attempts` counts the attempt that just failed), i.e. ~3 s, 7 s,
 * 20 s, 55 s, 2.5 min … and at most ~6 h. Logged with a failed attempt, so an operator reading
 * "source sync failed" knows whether to wait or act.
 */
export function retryDelaySeconds(attempt: number): number {
  return Math.round(Math.exp(Math.min(Math.max(attempt, 1), 10)));
}

/** "3 s", "2.5 min", "6.1 h": the delay as a person reads it. */
export function describeDelay(seconds: number): string {
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 90 * 60) return `${+(seconds / 60).toFixed(1)} min`;
  return `${+(seconds / 3600).toFixed(1)} h`;
}
