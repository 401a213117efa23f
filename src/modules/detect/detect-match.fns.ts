import {
  compileSigma,
  EventView,
  type CompiledCorrelation,
  type CompiledRule,
  type EventDetection,
  type JsonEvent,
} from '../alerts/index.js';
import type { AlertSeverity } from '../alerts/index.js';
import { NeedleIndex } from './needle-index.fns.js';

/**
 * Events against an organization's Sigma detections, compiled once: which rules apply to a
 * logsource (memoized per logsource), which of them match each event, and what feeds the
 * correlation windows. Pure: the job (detect-match.jobs.ts) stores and alerts.
 */

export interface Logsource {
  product?: string | undefined;
  category?: string | undefined;
  service?: string | undefined;
}

export interface DeclaredEvent {
  logsource: Logsource;
  event: JsonEvent;
}

export interface LoadedDetection {
  detection: EventDetection;
  rules: CompiledRule[];
  /** Rules that alert on their own (a correlation's base rules do not, unless it says `generate: true`). */
  alerting: Set<CompiledRule>;
  correlations: CompiledCorrelation[];
  /** Constructs the engine refused: those rules do not run (the others of the detection do). */
  refused: number;
}

interface Candidate {
  loaded: LoadedDetection;
  rule: CompiledRule;
  alerts: boolean;
  correlations: CompiledCorrelation[];
}

export interface RuleMatches {
  loaded: LoadedDetection;
  rule: CompiledRule;
  events: JsonEvent[];
}

export interface CorrelationFeed {
  loaded: LoadedDetection;
  correlation: CompiledCorrelation;
  /** Matched events in arrival order, each with the rule that matched it. */
  entries: Array<{ rule: CompiledRule; event: JsonEvent }>;
}

export interface BatchMatches {
  rules: RuleMatches[];
  correlations: CorrelationFeed[];
  /** Events matched per detection id (alerting or not), for the match counts. */
  perDetection: Map<string, { loaded: LoadedDetection; events: JsonEvent[]; ruleTitle: string }>;
}

const lower = (v: string | undefined) => v?.trim().toLowerCase() || undefined;

export function normalizeLogsource(ls: Logsource | null | undefined): Logsource {
  const out: Logsource = {};
  for (const k of ['product', 'category', 'service'] as const) {
    const v = lower(ls?.[k]);
    if (v) out[k] = v;
  }
  return out;
}

/** A rule applies when each field its logsource names is declared with the same value (case-insensitive). */
export function logsourceApplies(rule: Logsource, declared: Logsource): boolean {
  for (const k of ['product', 'category', 'service'] as const) {
    const want = lower(rule[k]);
    if (want && want !== declared[k]) return false;
  }
  return true;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A detection's Sigma text compiled: the rules that run and which of them alert on their own. */
export function loadDetection(detection: EventDetection): LoadedDetection {
  const unit = compileSigma(detection.query);
  const silent = new Set<CompiledRule>();
  for (const c of unit.correlations) {
    const spec = isRecord(c.source.correlation) ? c.source.correlation : {};
    if (spec.generate !== true) for (const r of c.rules) silent.add(r as CompiledRule);
  }
  return {
    detection,
    rules: unit.rules,
    alerting: new Set(unit.rules.filter((r) => !silent.has(r))),
    correlations: unit.correlations,
    refused: unit.refusals.length,
  };
}

/**
 * The rules of one logsource: those without a pre-filter literal run on every event; the others
 * only on events whose haystack holds one of their literals, found for all rules in one scan.
 * The scan's hits and the selected candidates go into arrays kept between events, so selecting
 * allocates nothing per event.
 */
class LogsourceRules {
  readonly always: Candidate[];
  private readonly index: NeedleIndex | null;
  /** Per needle id, the candidates (by position) that name it. */
  private readonly byNeedle: number[][];
  private readonly mark: Uint32Array;
  private epoch = 0;
  private readonly hits: number[] = [];
  /** The last selection: `selected[0 .. count)`; the first `always.length` ran no pre-filter. */
  readonly selected: Candidate[] = [];

  constructor(readonly candidates: Candidate[]) {
    this.always = candidates.filter((c) => !c.rule.needles);
    const ids = new Map<string, number>();
    this.byNeedle = [];
    candidates.forEach((c, pos) => {
      for (const n of c.rule.needles ?? []) {
        let id = ids.get(n);
        if (id === undefined) {
          ids.set(n, (id = ids.size));
          this.byNeedle.push([]);
        }
        this.byNeedle[id]!.push(pos);
      }
    });
    this.index = ids.size ? new NeedleIndex([...ids.keys()]) : null;
    this.mark = new Uint32Array(candidates.length);
    this.selected.push(...this.always);
  }

  /**
   * Selects the candidates to evaluate on this event (each once) into `selected` and answers
   * their count: the always-run ones, then those one of whose literals occurs (their pre-filter
   * has passed: run their condition alone).
   */
  select(view: EventView): number {
    let count = this.always.length;
    if (!this.index) return count;
    const epoch = ++this.epoch;
    const { hits, mark, byNeedle, selected, candidates } = this;
    const n = this.index.scanInto(view.haystack(), hits);
    for (let h = 0; h < n; h++) {
      const positions = byNeedle[hits[h]!]!;
      for (let k = 0; k < positions.length; k++) {
        const pos = positions[k]!;
        if (mark[pos] === epoch) continue;
        mark[pos] = epoch;
        selected[count++] = candidates[pos]!;
      }
    }
    return count;
  }
}

/** An organization's compiled detections, with the candidates of each logsource memoized. */
export class DetectionSet {
  private readonly byLogsource = new Map<string, LogsourceRules>();
  constructor(readonly detections: LoadedDetection[]) {}

  get ruleCount(): number {
    return this.detections.reduce((n, d) => n + d.rules.length, 0);
  }

  /** The last logsource asked for: a batch's events mostly share one, so no key is built per event. */
  private last: { product?: string | undefined; category?: string | undefined; service?: string | undefined; rules: LogsourceRules } | null = null;

  candidates(ls: Logsource): LogsourceRules {
    const last = this.last;
    if (last && last.product === ls.product && last.category === ls.category && last.service === ls.service) return last.rules;
    const rules = this.candidatesByKey(ls);
    this.last = { product: ls.product, category: ls.category, service: ls.service, rules };
    return rules;
  }

  private candidatesByKey(ls: Logsource): LogsourceRules {
    const key = `${ls.product ?? ''}\u0000${ls.category ?? ''}\u0000${ls.service ?? ''}`;
    let rules = this.byLogsource.get(key);
    if (!rules) {
      const found: Candidate[] = [];
      for (const loaded of this.detections) {
        for (const rule of loaded.rules) {
          if (!logsourceApplies(rule.logsource, ls)) continue;
          const correlations = loaded.correlations.filter((c) => (c.rules as unknown[]).includes(rule));
          const alerts = loaded.alerting.has(rule);
          if (alerts || correlations.length) found.push({ loaded, rule, alerts, correlations });
        }
      }
      if (this.byLogsource.size > 1000) this.byLogsource.clear();
      rules = new LogsourceRules(found);
      this.byLogsource.set(key, rules);
    }
    return rules;
  }

  /** Every event against the rules of its logsource. */
  match(events: DeclaredEvent[]): BatchMatches {
    const rules = new Map<CompiledRule, RuleMatches>();
    const feeds = new Map<CompiledCorrelation, CorrelationFeed>();
    const perDetection = new Map<string, { loaded: LoadedDetection; events: JsonEvent[]; ruleTitle: string }>();
    for (const { logsource, event } of events) {
      const applicable = this.candidates(logsource);
      if (applicable.candidates.length === 0) continue;
      const view = new EventView(event);
      const count = applicable.select(view);
      const selected = applicable.selected;
      for (let i = 0; i < count; i++) {
        const c = selected[i]!;
        if (!c.rule.condition(view)) continue;
        const seen = perDetection.get(c.loaded.detection.id);
        if (!seen) perDetection.set(c.loaded.detection.id, { loaded: c.loaded, events: [event], ruleTitle: c.rule.title });
        else if (seen.events.at(-1) !== event) seen.events.push(event);
        if (c.alerts) {
          const m = rules.get(c.rule);
          if (m) m.events.push(event);
          else rules.set(c.rule, { loaded: c.loaded, rule: c.rule, events: [event] });
        }
        for (const correlation of c.correlations) {
          const feed = feeds.get(correlation);
          if (feed) feed.entries.push({ rule: c.rule, event });
          else feeds.set(correlation, { loaded: c.loaded, correlation, entries: [{ rule: c.rule, event }] });
        }
      }
    }
    return { rules: [...rules.values()], correlations: [...feeds.values()], perDetection };
  }
}

const LEVELS: Record<string, AlertSeverity> = { informational: 'low', low: 'low', medium: 'medium', high: 'high', critical: 'critical' };

/** The rule's level as an alert severity (informational → low); the detection's severity without one. */
export function severityOf(level: string | null, fallback: AlertSeverity): AlertSeverity {
  return (level && LEVELS[level.toLowerCase()]) || fallback;
}

/** ATT&CK techniques and tactics of a rule's tags (`attack.t1059.001`, `attack.execution`). */
export function attackOf(tags: string[]): { techniques: string[]; tactics: string[] } {
  const techniques = new Set<string>();
  const tactics = new Set<string>();
  for (const tag of tags) {
    const t = /^attack\.(t\d{4}(?:\.\d{3})?)$/i.exec(tag);
    if (t) techniques.add(t[1]!.toUpperCase());
    else if (/^attack\.[a-z_-]+$/i.test(tag)) tactics.add(tag.slice(7).toLowerCase().replaceAll('_', '-'));
  }
  return { techniques: [...techniques].sort(), tactics: [...tactics] };
}

/** A key for a rule or correlation within its detection: its id, else its name, else its title. */
export const ruleKeyOf = (r: { id: string | null; name: string | null; title: string }): string => r.id ?? r.name ?? r.title;
