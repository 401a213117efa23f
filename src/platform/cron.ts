import { Cron } from 'croner';

/**
 * The next time a 5-field cron expression fires strictly after `from`. Schedules are evaluated
 * in UTC, whatever the server's time zone. Used by intel source schedules and cron triggers.
 */
export function nextCronRun(cron: string, from = new Date()): Date {
  const next = new Cron(cron, { paused: true, timezone: 'UTC' }).nextRun(from);
  // A valid 5-field cron always has a next run; fall back to an hour rather than never.
  return next ?? new Date(from.getTime() + 3_600_000);
}
