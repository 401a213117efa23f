import { Cron } from 'croner';

/**
 * Cron schedules: 5-field expressions, read in UTC unless a schedule names an IANA time zone
 * (cron triggers' `timezone`, DST-correct: `0 9 * * *` in Europe/Paris is 08:00 UTC in winter and
 * 07:00 UTC in summer; a wall-clock time skipped by the spring change fires an hour later that
 * day, one repeated in autumn fires once). Used by intel source
 * schedules and cron triggers.
 */
export function nextCronRun(cron: string, from = new Date(), timezone: string | null = null): Date {
  const next = new Cron(cron, { paused: true, timezone: timezone ?? 'UTC' }).nextRun(from);
  // Schedules are refused when they have no next run (cronNeverFires); one that stops having any
  // (a year-less expression always has one) would fire hourly rather than never.
  return next ?? new Date(from.getTime() + 3_600_000);
}

/** Why a valid cron expression never fires (`0 0 31 2 *`: February has no 31st), or null when it has a next run. */
export function cronNeverFires(cron: string, timezone: string | null = null, from = new Date()): string | null {
  try {
    return new Cron(cron, { paused: true, timezone: timezone ?? 'UTC' }).nextRun(from) ? null : 'never fires: no date matches it (e.g. "0 0 31 2 *": February has no 31st)';
  } catch {
    return null; // not a cron expression at all: the caller's syntax check says so
  }
}

/**
 * The latest time the schedule fired at or before `now`, from `since` (the due `next_run_at`):
 * a run that was due while no scheduler ticked is one run, for the latest missed time.
 */
export function latestCronRunAtOrBefore(cron: string, since: Date, now: Date, timezone: string | null = null): Date {
  let latest = since;
  const job = new Cron(cron, { paused: true, timezone: timezone ?? 'UTC' });
  // Bounded: a per-minute schedule down for a day is 1,440 steps; past that, the oldest missed time stands.
  for (let i = 0; i < 10_000; i++) {
    const next = job.nextRun(latest);
    if (!next || next > now) return latest;
    latest = next;
  }
  return latest;
}

/** Whether `name` is an IANA time zone this runtime knows (`Europe/Paris`, `America/New_York`, `UTC`). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name);
  } catch {
    return false;
  }
}
