import type { InsightWindow } from './insights.schemas.js';

const DAY_MS = 86_400_000;
const WINDOW_DAYS: Record<InsightWindow, number> = { '7d': 7, '30d': 30, '90d': 90 };

/** The UTC days of a window ending today, oldest first, and the instant the first one starts. */
export function windowDays(window: InsightWindow, now: Date): { from: Date; days: string[] } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const n = WINDOW_DAYS[window];
  const days = Array.from({ length: n }, (_, i) => new Date(today - (n - 1 - i) * DAY_MS).toISOString().slice(0, 10));
  return { from: new Date(today - (n - 1) * DAY_MS), days };
}

/** part / whole, or null when there is no whole (a rate of nothing is not 0). */
export const rate = (part: number, whole: number): number | null => (whole > 0 ? Math.round((part / whole) * 1000) / 1000 : null);

/** Seconds rounded to a whole second (p50/p90 from percentile_cont are fractional). */
export const secondsOf = (v: number | null): number | null => (v === null ? null : Math.round(Number(v)));

/** Rows keyed by a day, for filling every day of the window. */
export function byDay<T extends { day: string }>(rows: readonly T[]): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const r of rows) (map.get(r.day) ?? map.set(r.day, []).get(r.day)!).push(r);
  return map;
}
