import type { CoverageState, TechniqueCoverage } from './coverage.fns.js';
import type { z } from 'zod';
import type { LayerView as LayerViewSchema, NavigatorLayerDto } from './navigator.schemas.js';

/**
 * Coverage as ATT&CK Navigator layers (format 4.5), and imported layers as declared coverage. Pure.
 *
 * Three views: `coverage` (every technique with a state, coloured by state, scored by the number
 * of detections that count), `intel` (techniques the intel names, scored by items), `gaps` (the
 * gaps only, scored by items). Entries carry no `tactic`, so the Navigator shows them under every
 * tactic of the technique; sub-techniques are rolled up to their parent as coverage is.
 */
export const LAYER_FORMAT = '4.5';
/** The Navigator release the layers are written for (the 4.5 format needs at least 4.9.0). */
export const NAVIGATOR_VERSION = '5.2.0';
/** The ATT&CK release of the shipped catalog (mitre/cti of 2025-11-13: Enterprise ATT&CK v18). */
export const ATTACK_VERSION = '18';

export const STATE_COLORS: Record<CoverageState, string> = {
  covered: '#8ec843',
  covered_experimental_only: '#ffe766',
  gap: '#ff6666',
  unused: '#bcbcbc',
};
const STATE_LABELS: Record<CoverageState, string> = {
  covered: 'Covered (stable or test detection)',
  covered_experimental_only: 'Covered by experimental detections only',
  gap: 'Gap: named by intel, no detection',
  unused: 'Detection, not named by intel in the window',
};

export type LayerView = z.infer<typeof LayerViewSchema>;

export interface LayerContext {
  view: LayerView;
  window: string;
  actor?: string;
  malware?: string;
  generatedAt: Date;
  /** The console's address, for the links back to Rampart. */
  baseUrl: string;
}

function describe(t: TechniqueCoverage): string {
  const d = t.detections;
  const parts = [`${t.state.replaceAll('_', ' ')}`, `${d.total - d.deprecated} detection(s) (${d.stable} stable, ${d.test} test, ${d.experimental} experimental)`];
  if (t.intel.items > 0) parts.push(`intel: ${t.intel.items} item(s), ${t.intel.actors} actor(s), ${t.intel.malware} malware, last seen ${t.intel.lastSeenAt!.slice(0, 10)}`);
  return parts.join('; ');
}

function entry(t: TechniqueCoverage, ctx: LayerContext): NonNullable<NavigatorLayerDto['techniques']>[number] {
  const d = t.detections;
  const score = ctx.view === 'coverage' ? d.stable + d.test + d.experimental : t.intel.items;
  return {
    techniqueID: t.techniqueId,
    score,
    ...(ctx.view === 'coverage' ? { color: STATE_COLORS[t.state] } : {}),
    comment: describe(t),
    enabled: true,
    metadata: [
      { name: 'state', value: t.state },
      { name: 'detections', value: `${d.stable} stable, ${d.test} test, ${d.experimental} experimental, ${d.deprecated} deprecated` },
      { divider: true },
      { name: 'intel items', value: String(t.intel.items) },
      { name: 'actors', value: String(t.intel.actors) },
      { name: 'malware', value: String(t.intel.malware) },
      ...(t.intel.lastSeenAt ? [{ name: 'last seen', value: t.intel.lastSeenAt }] : []),
    ],
    links: [
      { label: 'ATT&CK', url: `https://attack.mitre.org/techniques/${t.techniqueId}/` },
      { label: 'Rampart coverage', url: `${ctx.baseUrl.replace(/\/+$/, '')}/coverage?technique=${t.techniqueId}` },
    ],
    showSubtechniques: false,
  };
}

export function buildLayer(techniques: readonly TechniqueCoverage[], ctx: LayerContext): NavigatorLayerDto {
  const shown = techniques.filter((t) => (ctx.view === 'coverage' ? true : ctx.view === 'gaps' ? t.state === 'gap' : t.intel.items > 0));
  const scores = shown.map((t) => entry(t, ctx).score ?? 0);
  const max = Math.max(1, ...scores);
  const filters = [ctx.actor ? `actor ${ctx.actor}` : '', ctx.malware ? `malware ${ctx.malware}` : ''].filter(Boolean).join(', ');
  const title = { coverage: 'ATT&CK coverage', intel: 'ATT&CK techniques named by intel', gaps: 'ATT&CK coverage gaps' }[ctx.view];
  return {
    name: `Rampart — ${title} (${ctx.window}${filters ? `, ${filters}` : ''})`,
    versions: { attack: ATTACK_VERSION, navigator: NAVIGATOR_VERSION, layer: LAYER_FORMAT },
    domain: 'enterprise-attack',
    description: {
      coverage: 'Techniques named by intel in the window or by a detection, coloured by state (legend); score: detections that count (stable, test, experimental).',
      intel: 'Techniques named by intel items in the window; score: number of items.',
      gaps: 'Techniques named by intel in the window that no detection covers; score: number of items.',
    }[ctx.view],
    sorting: 3,
    layout: { layout: 'side', showID: true, showName: true, showAggregateScores: false, countUnscored: false, aggregateFunction: 'average', expandedSubtechniques: 'none' },
    hideDisabled: false,
    techniques: shown.map((t) => entry(t, ctx)),
    gradient: ctx.view === 'coverage' ? { colors: ['#ffe766', '#8ec843'], minValue: 0, maxValue: max } : { colors: ['#ffffff', '#ff6666'], minValue: 0, maxValue: max },
    legendItems: ctx.view === 'coverage'
      ? (Object.keys(STATE_COLORS) as CoverageState[]).map((s) => ({ label: STATE_LABELS[s], color: STATE_COLORS[s] }))
      : [{ label: ctx.view === 'gaps' ? 'Gap (more intel items: darker)' : 'Named by intel (more items: darker)', color: '#ff6666' }],
    showTacticRowBackground: false,
    tacticRowBackground: '#dddddd',
    selectTechniquesAcrossTactics: true,
    selectSubtechniquesWithParent: false,
    selectVisibleTechniques: false,
    metadata: [
      { name: 'generated by', value: 'Rampart' },
      { name: 'view', value: ctx.view },
      { name: 'window', value: ctx.window },
      ...(ctx.actor ? [{ name: 'actor', value: ctx.actor }] : []),
      ...(ctx.malware ? [{ name: 'malware', value: ctx.malware }] : []),
      { name: 'generated at', value: ctx.generatedAt.toISOString() },
    ],
    links: [{ label: 'Rampart coverage', url: `${ctx.baseUrl.replace(/\/+$/, '')}/coverage` }],
  };
}

export interface DeclaredTechnique {
  techniqueId: string;
  tactic: string | null;
  score: number | null;
  comment: string;
}

/**
 * What an imported layer declares as covered: its enabled technique entries with no score or a
 * score above 0 (a DeTT&CT or Navigator layer scores 0 what it does not cover). One entry per
 * technique id and tactic (the first wins).
 */
export function declaredTechniques(layer: NavigatorLayerDto): DeclaredTechnique[] {
  const out = new Map<string, DeclaredTechnique>();
  for (const t of layer.techniques ?? []) {
    if (t.enabled === false || (typeof t.score === 'number' && t.score <= 0)) continue;
    const key = `${t.techniqueID}|${t.tactic ?? ''}`;
    if (!out.has(key)) out.set(key, { techniqueId: t.techniqueID, tactic: t.tactic ?? null, score: t.score ?? null, comment: (t.comment ?? '').slice(0, 1000) });
  }
  return [...out.values()];
}
