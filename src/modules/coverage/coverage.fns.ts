import type { TechniqueDetections } from '../alerts/index.js';
import { sortTactics, tacticName, type AttackCatalog, type TechniquePressure } from '../intel/index.js';

/**
 * ATT&CK coverage, computed (pure): what the detections cover against what the intel says
 * adversaries use. Everything is judged per technique, sub-techniques rolled up to their parent.
 *
 * State of a technique named by intel in the window or by a detection:
 * - `covered`: the intel names it and a `stable` or `test` detection covers it;
 * - `covered_experimental_only`: the intel names it, only `experimental` detections cover it;
 * - `gap`: the intel names it, no detection covers it (`deprecated` ones do not count);
 * - `unused`: detections cover it, the intel of the window does not name it.
 * Declared external coverage (imported Navigator layers) is shown beside, never changes the state.
 */
export const COVERAGE_STATES = ['covered', 'covered_experimental_only', 'gap', 'unused'] as const;
export type CoverageState = (typeof COVERAGE_STATES)[number];

export interface ExternalEntry {
  layer: string;
  techniqueId: string;
  score: number | null;
  comment: string;
}

export interface TechniqueCoverage {
  techniqueId: string;
  name: string;
  tactics: string[];
  /** false: an id newer than the ATT&CK catalog (a 2026 Sigma rule's T1685): counted under that id, with no name or tactic. */
  inCatalog: boolean;
  state: CoverageState;
  detections: { total: number; stable: number; test: number; experimental: number; deprecated: number };
  intel: { items: number; actors: number; malware: number; lastSeenAt: string | null };
  external: ExternalEntry[];
}

export interface TacticTotals {
  tactic: string;
  name: string;
  techniques: number;
  covered: number;
  coveredExperimentalOnly: number;
  gap: number;
  unused: number;
}

const WINDOW_RE = /^([1-9]\d{0,3})d$/;
export const WINDOW_PATTERN = WINDOW_RE.source;
export const MAX_WINDOW_DAYS = 3650;

export const windowDays = (window: string) => Number(WINDOW_RE.exec(window)?.[1] ?? 90);

/** `90d` → the date 90 days before `now`. */
export function windowStart(window: string, now: Date): Date {
  return new Date(now.getTime() - Math.min(windowDays(window), MAX_WINDOW_DAYS) * 86_400_000);
}

export const parentOf = (techniqueId: string) => techniqueId.split('.')[0]!;

export function stateOf(d: TechniqueCoverage['detections'], intelItems: number): CoverageState | null {
  if (intelItems > 0) {
    if (d.stable + d.test > 0) return 'covered';
    if (d.experimental > 0) return 'covered_experimental_only';
    return 'gap';
  }
  return d.total > 0 ? 'unused' : null;
}

/**
 * The names an actor or malware filter stands for: the catalog entry it names (by name or
 * alias, case-insensitively) with all its aliases, else the filter itself; lower-cased.
 */
export function filterNames(value: string | undefined, entries: ReadonlyArray<{ name: string; aliases: string[] }>): string[] | null {
  const v = value?.trim().toLowerCase();
  if (!v) return null;
  const hit = entries.find((e) => e.name.toLowerCase() === v || e.aliases.some((a) => a.toLowerCase() === v));
  return hit ? [...new Set([hit.name, ...hit.aliases].map((n) => n.toLowerCase()))] : [v];
}

/** The techniques with a state (most intel items first) and the per-tactic totals (every tactic of the catalog). */
export function computeCoverage(
  catalog: AttackCatalog,
  detections: readonly TechniqueDetections[],
  pressure: readonly TechniquePressure[],
  external: readonly ExternalEntry[],
): { techniques: TechniqueCoverage[]; tactics: TacticTotals[] } {
  const ids = new Set<string>([...detections.map((d) => d.techniqueId), ...pressure.map((p) => p.techniqueId)]);
  const det = new Map(detections.map((d) => [d.techniqueId, d.byStatus]));
  const press = new Map(pressure.map((p) => [p.techniqueId, p]));
  const ext = new Map<string, ExternalEntry[]>();
  for (const e of external) ext.set(parentOf(e.techniqueId), [...(ext.get(parentOf(e.techniqueId)) ?? []), e]);

  const techniques: TechniqueCoverage[] = [];
  for (const id of ids) {
    const s = det.get(id) ?? { stable: 0, test: 0, experimental: 0, deprecated: 0 };
    const detectionCounts = { total: s.stable + s.test + s.experimental + s.deprecated, stable: s.stable, test: s.test, experimental: s.experimental, deprecated: s.deprecated };
    const p = press.get(id);
    const state = stateOf(detectionCounts, p?.items ?? 0);
    if (!state) continue;
    const known = catalog.techniques.get(id);
    techniques.push({
      techniqueId: id,
      name: known?.name ?? '',
      tactics: known?.tactics ?? [],
      inCatalog: known !== undefined,
      state,
      detections: detectionCounts,
      intel: { items: p?.items ?? 0, actors: p?.actors ?? 0, malware: p?.malware ?? 0, lastSeenAt: p ? p.lastSeenAt.toISOString() : null },
      external: ext.get(id) ?? [],
    });
  }
  techniques.sort((a, b) => b.intel.items - a.intel.items || b.detections.total - a.detections.total || a.techniqueId.localeCompare(b.techniqueId));

  // Per tactic: the catalog's (parent) techniques of the tactic, and how many of them are in each state.
  const totals = new Map<string, TacticTotals>();
  const totalsOf = (tactic: string) => {
    let t = totals.get(tactic);
    if (!t) totals.set(tactic, (t = { tactic, name: tacticName(tactic), techniques: 0, covered: 0, coveredExperimentalOnly: 0, gap: 0, unused: 0 }));
    return t;
  };
  for (const t of catalog.techniques.values()) if (!t.id.includes('.')) for (const tactic of t.tactics) totalsOf(tactic).techniques++;
  const key = { covered: 'covered', covered_experimental_only: 'coveredExperimentalOnly', gap: 'gap', unused: 'unused' } as const;
  for (const t of techniques) for (const tactic of t.tactics) totalsOf(tactic)[key[t.state]]++;
  return { techniques, tactics: sortTactics(totals.keys()).map((t) => totals.get(t)!) };
}

/** Gaps ranked: most items, then most distinct actors, then most recent. */
export function rankGaps<T extends TechniqueCoverage>(techniques: readonly T[], top: number): T[] {
  return techniques
    .filter((t) => t.state === 'gap')
    .sort((a, b) => b.intel.items - a.intel.items || b.intel.actors - a.intel.actors || (b.intel.lastSeenAt ?? '').localeCompare(a.intel.lastSeenAt ?? '') || a.techniqueId.localeCompare(b.techniqueId))
    .slice(0, top);
}
