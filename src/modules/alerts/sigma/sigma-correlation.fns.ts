import { ConditionError, parseCondition, type Condition } from './sigma-condition.fns.js';
import type { JsonEvent } from './sigma-event.fns.js';
import { EventView, textOf } from './sigma-event.fns.js';
import { RuleConstructError } from './sigma-fields.fns.js';

/**
 * Sigma correlation rules (`correlation:` documents): `event_count`, `value_count`, `temporal`
 * and `temporal_ordered` over the detection rules they name (by `name` or `id`), grouped by
 * `group-by` fields (through `aliases` when the rules name the field differently), within a
 * sliding `timespan`. A group that meets the condition alerts once and starts over, so a burst
 * gives one alert, not one per event past the threshold.
 *
 * Thresholds are `gt`, `gte` and, inclusive ranges, both: a window's count only grows as events
 * arrive, so `lt`/`lte` alone (which a streaming engine can only decide when the window closes)
 * are refused with their construct named.
 */

/** What a correlation needs of a detection rule (the compiled rules of sigma-compile.fns.ts). */
export interface CorrelatedRule {
  id: string | null;
  name: string | null;
  title: string;
  matches(view: EventView): boolean;
}
type CompiledRule = CorrelatedRule;

type Bound = { gt?: number; gte?: number; lt?: number; lte?: number; eq?: number };

export interface CompiledCorrelation {
  id: string | null;
  name: string | null;
  title: string;
  level: string | null;
  tags: string[];
  type: 'event_count' | 'value_count' | 'temporal' | 'temporal_ordered';
  rules: CompiledRule[];
  groupBy: string[];
  timespanMs: number;
  line: number;
  source: Record<string, unknown>;
  /** value_count: the counted field; threshold for the counts. */
  field: string | null;
  bound: Bound;
  /** temporal with a boolean condition over rule names. */
  ruleCondition: Condition | null;
  /** The group-by value of an event matched by `rule`. */
  groupKey(rule: CompiledRule, event: JsonEvent): string;
}

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export function parseTimespan(v: unknown): number | null {
  const m = typeof v === 'string' ? /^(\d+)\s*([smhdw])$/.exec(v.trim()) : null;
  return m ? Number(m[1]) * UNITS[m[2]!]! : null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `forConversion`: the correlation is only written as a SIEM query, where `lt`/`lte` alone are
 * fine (the SIEM decides them over a closed time bucket), so they are not refused.
 */
export function compileCorrelation(doc: Record<string, unknown>, pool: CompiledRule[], line: number, forConversion = false): CompiledCorrelation {
  const c = doc.correlation;
  const fail = (construct: string, message: string, path: Array<string | number>): never => {
    throw new RuleConstructError(construct, message, path);
  };
  if (typeof doc.title !== 'string') fail('title', 'a correlation rule needs a title', []);
  if (!isRecord(c)) return fail('correlation', 'correlation must be a map (type, rules, group-by, timespan, condition)', ['correlation']);
  const type = c.type;
  if (type !== 'event_count' && type !== 'value_count' && type !== 'temporal' && type !== 'temporal_ordered')
    fail(`correlation type ${String(type)}`, 'correlation.type must be event_count, value_count, temporal or temporal_ordered', ['correlation', 'type']);
  const timespanMs = parseTimespan(c.timespan) ?? fail('timespan', 'correlation.timespan must be a number and a unit (s, m, h, d, w)', ['correlation', 'timespan']);
  const refs = Array.isArray(c.rules) ? c.rules : c.rules === undefined && typeof c.condition === 'string' ? null : [c.rules];
  const ruleCondition = typeof c.condition === 'string' ? parseRuleCondition(c.condition) : null;
  const names = refs ?? (ruleCondition ? refNames(ruleCondition) : []);
  const rules = names.map((r, i) => {
    const found = pool.find((p) => p.name === r || p.id === r);
    return found ?? fail('correlation rule reference', `correlation.rules names "${String(r)}", which is neither the name nor the id of a rule given with it`, ['correlation', 'rules', i]);
  });
  if (rules.length === 0) fail('correlation rules', 'a correlation needs the rules it correlates', ['correlation', 'rules']);
  const groupBy = c['group-by'] === undefined ? [] : Array.isArray(c['group-by']) ? c['group-by'].map(String) : [String(c['group-by'])];
  const aliases = isRecord(c.aliases) ? c.aliases : {};
  let field: string | null = null;
  let bound: Bound = {};
  if (type === 'event_count' || type === 'value_count') {
    if (!isRecord(c.condition)) return fail('correlation condition', `${String(type)} needs a condition map (gte: N)`, ['correlation', 'condition']);
    for (const [k, v] of Object.entries(c.condition)) {
      if (k === 'field') {
        field = String(v);
        continue;
      }
      if (!['gt', 'gte', 'lt', 'lte', 'eq'].includes(k) || typeof v !== 'number') fail(`correlation condition ${k}`, `unknown threshold "${k}" (gt, gte, lt, lte, eq with a number)`, ['correlation', 'condition', k]);
      (bound as Record<string, number>)[k] = v as number;
    }
    if (!forConversion && bound.gt === undefined && bound.gte === undefined && bound.eq === undefined)
      fail(`correlation condition ${Object.keys(bound)[0] ?? 'threshold'}`, 'an upper bound alone (lt/lte) is decided only when a window closes, which a streaming engine does not do: give gt or gte', ['correlation', 'condition']);
    if (Object.keys(bound).length === 0) fail('correlation condition', `${String(type)} needs a threshold (gt, gte, lt, lte or eq)`, ['correlation', 'condition']);
    if (type === 'value_count' && !field) fail('correlation condition field', 'value_count needs condition.field, the field whose distinct values are counted', ['correlation', 'condition']);
  } else if (isRecord(c.condition)) {
    for (const [k, v] of Object.entries(c.condition)) (bound as Record<string, number>)[k] = Number(v);
  }
  const fieldFor = (rule: CompiledRule, g: string): string => {
    const alias = aliases[g];
    if (isRecord(alias)) {
      const mapped = (rule.name && alias[rule.name]) ?? (rule.id && alias[rule.id]);
      if (typeof mapped === 'string') return mapped;
    }
    return g;
  };
  return {
    id: typeof doc.id === 'string' ? doc.id : null,
    name: typeof doc.name === 'string' ? doc.name : null,
    title: String(doc.title),
    level: typeof doc.level === 'string' ? doc.level : null,
    tags: Array.isArray(doc.tags) ? doc.tags.map(String) : [],
    type: type as CompiledCorrelation['type'],
    rules,
    groupBy,
    timespanMs,
    line,
    source: doc,
    field,
    bound,
    ruleCondition,
    groupKey(rule, event) {
      const view = new EventView(event);
      return JSON.stringify(groupBy.map((g) => view.strings(fieldFor(rule, g), false)[0] ?? null));
    },
  };
}

function parseRuleCondition(text: string): Condition {
  try {
    return parseCondition(text);
  } catch (err) {
    if (err instanceof ConditionError) throw new RuleConstructError(err.construct, err.message, ['correlation', 'condition']);
    throw err;
  }
}

function refNames(c: Condition): string[] {
  switch (c.kind) {
    case 'ref':
      return [c.name];
    case 'not':
      return refNames(c.item);
    case 'and':
    case 'or':
      return [...new Set(c.items.flatMap(refNames))];
    case 'of':
      return [];
  }
}

const meets = (n: number, b: Bound): boolean =>
  (b.gt === undefined || n > b.gt) && (b.gte === undefined || n >= b.gte) && (b.lt === undefined || n < b.lt) && (b.lte === undefined || n <= b.lte) && (b.eq === undefined || n === b.eq);

interface Entry {
  ts: number;
  rule: CompiledRule;
  event: JsonEvent;
}

export interface CorrelationHit {
  correlation: CompiledCorrelation;
  group: Record<string, string | null>;
  /** The window's events that made the hit (at most `maxEvidence`, the latest kept). */
  events: JsonEvent[];
  firstSeen: number;
  lastSeen: number;
}

/**
 * The sliding windows of one correlation rule. `add` takes one event matched by one of its rules
 * at `ts` (milliseconds) and answers the hit it completes, if any. Events must arrive in time
 * order per group (an older one is placed where it belongs).
 */
export class CorrelationWindow {
  private readonly groups = new Map<string, Entry[]>();
  constructor(
    readonly correlation: CompiledCorrelation,
    private readonly maxEvidence = 50,
  ) {}

  /** The groups' state (for persisting between worker jobs). */
  snapshot(): Array<[string, Array<{ ts: number; rule: number; event: JsonEvent }>]> {
    return [...this.groups].map(([k, es]) => [k, es.map((e) => ({ ts: e.ts, rule: this.correlation.rules.indexOf(e.rule), event: e.event }))]);
  }
  restore(state: Array<[string, Array<{ ts: number; rule: number; event: JsonEvent }>]>): void {
    for (const [k, es] of state) this.groups.set(k, es.filter((e) => this.correlation.rules[e.rule]).map((e) => ({ ts: e.ts, rule: this.correlation.rules[e.rule]!, event: e.event })));
  }

  add(rule: CompiledRule, event: JsonEvent, ts: number): CorrelationHit | null {
    const c = this.correlation;
    const key = c.groupKey(rule, event);
    const entries = this.groups.get(key) ?? [];
    let at = entries.length;
    while (at > 0 && entries[at - 1]!.ts > ts) at--;
    entries.splice(at, 0, { ts, rule, event });
    const latest = entries[entries.length - 1]!.ts;
    while (entries.length > 0 && entries[0]!.ts < latest - c.timespanMs) entries.shift();
    this.groups.set(key, entries);
    if (!this.satisfied(entries)) return null;
    this.groups.delete(key);
    const values = JSON.parse(key) as Array<string | null>;
    return {
      correlation: c,
      group: Object.fromEntries(c.groupBy.map((g, i) => [g, values[i] ?? null])),
      events: entries.slice(-this.maxEvidence).map((e) => e.event),
      firstSeen: entries[0]!.ts,
      lastSeen: latest,
    };
  }

  /** Forgets groups whose latest event is older than the timespan before `now`. */
  prune(now: number): void {
    for (const [k, es] of this.groups) if ((es[es.length - 1]?.ts ?? 0) < now - this.correlation.timespanMs) this.groups.delete(k);
  }

  private satisfied(entries: Entry[]): boolean {
    const c = this.correlation;
    switch (c.type) {
      case 'event_count':
        return meets(entries.length, c.bound);
      case 'value_count': {
        const distinct = new Set<string>();
        for (const e of entries) for (const v of new EventView(e.event).strings(c.field!, false)) distinct.add(v);
        return meets(distinct.size, c.bound);
      }
      case 'temporal': {
        const seen = new Set(entries.map((e) => e.rule));
        if (c.ruleCondition) return evalRefs(c.ruleCondition, (n) => [...seen].some((r) => r.name === n || r.id === n));
        return c.rules.every((r) => seen.has(r));
      }
      case 'temporal_ordered': {
        let next = 0;
        for (const e of entries) if (e.rule === c.rules[next]) next++;
        return next >= c.rules.length;
      }
    }
  }
}

function evalRefs(c: Condition, has: (name: string) => boolean): boolean {
  switch (c.kind) {
    case 'ref':
      return has(c.name);
    case 'not':
      return !evalRefs(c.item, has);
    case 'and':
      return c.items.every((x) => evalRefs(x, has));
    case 'or':
      return c.items.some((x) => evalRefs(x, has));
    case 'of':
      return false;
  }
}

/** The timestamp of an event: the first of the usual fields that parses, else `fallback`. */
export function eventTime(event: JsonEvent, fallback: number): number {
  const view = new EventView(event);
  for (const f of ['@timestamp', 'timestamp', 'time', 'TimeCreated', 'UtcTime', 'eventTime', 'date']) {
    const v = view.values(f)?.[0];
    const t = typeof v === 'number' ? (v < 1e12 ? v * 1000 : v) : typeof v === 'string' ? Date.parse(v) : NaN;
    if (Number.isFinite(t)) return t;
    const s = textOf(v);
    if (s && Number.isFinite(Date.parse(s))) return Date.parse(s);
  }
  return fallback;
}
