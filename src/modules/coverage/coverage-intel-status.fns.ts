import type { IntelSourceHealth } from '../intel/index.js';

/**
 * Whether coverage has intel to compare with (issue 47 item 12). With no technique named by the
 * intel of the window, "no gap" would be a false comfort when the reason is that the sources
 * failed or never synced: the report says there is nothing to compare with, and why.
 */
export const NO_INTEL_REASONS = ['sources_failing', 'no_sources', 'never_synced', 'no_techniques'] as const;
export type NoIntelReason = (typeof NO_INTEL_REASONS)[number];

export interface IntelStatus {
  comparable: boolean;
  reason: NoIntelReason | null;
  message: string | null;
  techniques: number;
  sources: { enabled: number; synced: number };
  failingSources: Array<{ id: string; name: string; lastError: string; lastFailedAt: string | null }>;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** `techniques`: techniques the intel of the window (and filter) names; `filtered`: an actor or malware filter narrows it. */
export function intelStatusOf(techniques: number, health: IntelSourceHealth, days: number, filtered: boolean): IntelStatus {
  const failingSources = health.failing.map((f) => ({ ...f, lastFailedAt: f.lastFailedAt ? f.lastFailedAt.toISOString() : null }));
  const base = { techniques, sources: { enabled: health.enabled, synced: health.synced }, failingSources };
  if (techniques > 0) return { comparable: true, reason: null, message: null, ...base };
  const reason: NoIntelReason =
    health.failing.length > 0 ? 'sources_failing' : health.enabled === 0 ? 'no_sources' : health.synced === 0 ? 'never_synced' : 'no_techniques';
  const why = {
    sources_failing: `${plural(health.failing.length, 'source')} of ${health.enabled} failed to sync (${health.failing.map((f) => `${f.name}: ${f.lastError}`).join('; ')})`,
    no_sources: 'no intel source is enabled',
    never_synced: `none of the ${plural(health.enabled, 'enabled source')} has synced yet`,
    no_techniques: filtered ? `the intel of the last ${plural(days, 'day')} naming this actor or malware names no ATT&CK technique` : `the intel of the last ${plural(days, 'day')} names no ATT&CK technique`,
  }[reason];
  return { comparable: false, reason, message: `No intel to compare with: ${why}.`, ...base };
}
