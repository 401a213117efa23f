import { isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Node } from 'yaml';
import { ConditionError, namesOf, parseCondition, type Condition } from './sigma-condition.fns.js';
import { EventView, type JsonEvent } from './sigma-event.fns.js';
import { compileEntry, RuleConstructError, type CompiledEntry, type CompileOptions } from './sigma-fields.fns.js';
import { compileCorrelation, type CompiledCorrelation } from './sigma-correlation.fns.js';

/**
 * Sigma 2 rules compiled once into tests on JSON events. A file is one unit: its documents are
 * detection rules and correlation rules (which name detection rules of the same unit, or of the
 * `known` rules the caller passes). A construct the engine cannot run refuses its rule with the
 * rule, the construct and the line; the other rules of the file still compile.
 *
 * Matching runs the rule's pre-filter first (a literal every matching event must contain,
 * searched in the event's lower-cased values), then the condition.
 */

export interface Logsource {
  product?: string;
  category?: string;
  service?: string;
}

export interface SigmaRefusal {
  /** The rule's title (or id, or its place in the file). */
  rule: string;
  construct: string;
  line: number | null;
  message: string;
}

export interface MatchExplanation {
  matched: boolean;
  matchedSelections: string[];
}

export interface CompiledRule {
  id: string | null;
  name: string | null;
  title: string;
  level: string | null;
  tags: string[];
  logsource: Logsource;
  /** The rule as written (YAML → JS), for conversion to query languages. */
  source: Record<string, unknown>;
  /** First line of the rule's document in its file. */
  line: number;
  selections: string[];
  /** Lower-cased literals of which a matching event holds at least one; null: no pre-filter. */
  needles: string[] | null;
  matches(view: EventView): boolean;
  /** The condition alone, for a caller that ran the pre-filter itself (an index of every rule's needles). */
  condition(view: EventView): boolean;
  explain(event: JsonEvent): MatchExplanation;
}

export interface CompiledUnit {
  rules: CompiledRule[];
  correlations: CompiledCorrelation[];
  refusals: SigmaRefusal[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The line of a YAML path: the key's line for a map entry, the item's for a list element. */
export function lineOf(doc: Document, lines: LineCounter, path: Array<string | number>): number | null {
  let node: unknown = doc.contents;
  let offset: number | undefined = (node as Node | null)?.range?.[0];
  for (const step of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === step);
      if (!pair) break;
      offset = (pair.key as Node | null)?.range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof step === 'number') {
      const item = node.items[step] as Node | undefined;
      if (!item) break;
      offset = item.range?.[0] ?? offset;
      node = item;
    } else break;
  }
  return offset === undefined ? null : lines.linePos(offset).line;
}

type Test = (view: EventView) => boolean;

interface CompiledSelection {
  test: Test;
  needles: string[] | null;
}

/** Literal sets combined: any alternative needs its own; of a conjunction, the most selective. */
function anyOf(sets: Array<string[] | null>): string[] | null {
  if (sets.length === 0 || sets.some((s) => s === null)) return null;
  return [...new Set(sets.flat() as string[])];
}
function allOf(sets: Array<string[] | null>): string[] | null {
  const usable = sets.filter((s): s is string[] => s !== null);
  if (usable.length === 0) return null;
  // Fewer alternatives and longer literals reject more events.
  const score = (s: string[]) => s.length * 1000 - Math.min(...s.map((x) => x.length));
  return usable.sort((a, b) => score(a) - score(b))[0]!;
}

function compileSelection(name: string, value: unknown, options: CompileOptions): CompiledSelection {
  const path = ['detection', name];
  const mapOf = (map: Record<string, unknown>, at: Array<string | number>): CompiledSelection => {
    const keys = Object.keys(map);
    if (keys.length === 0) throw new RuleConstructError('empty selection', `selection "${name}" is empty`, at);
    const entries: CompiledEntry[] = keys.map((k) => compileEntry(k, map[k], [...at, k], options));
    const tests = entries.map((e) => e.test);
    return {
      test: tests.length === 1 ? tests[0]! : (view) => tests.every((t) => t(view)),
      needles: allOf(entries.map((e) => e.needles)),
    };
  };
  if (isRecord(value)) return mapOf(value, path);
  if (Array.isArray(value)) {
    if (value.length === 0) throw new RuleConstructError('empty selection', `selection "${name}" is an empty list`, path);
    if (value.every(isRecord)) {
      const parts = value.map((m, i) => mapOf(m as Record<string, unknown>, [...path, i]));
      const tests = parts.map((p) => p.test);
      return { test: (view) => tests.some((t) => t(view)), needles: anyOf(parts.map((p) => p.needles)) };
    }
    if (value.some((v) => isRecord(v) || Array.isArray(v)))
      throw new RuleConstructError('mixed selection', `selection "${name}" mixes maps and keywords in one list`, path);
    const entry = compileEntry(null, value, path, options);
    return { test: entry.test, needles: entry.needles };
  }
  if (typeof value === 'string' || typeof value === 'number') {
    const entry = compileEntry(null, value, path, options);
    return { test: entry.test, needles: entry.needles };
  }
  throw new RuleConstructError('selection', `selection "${name}" must be a map, a list of maps or a list of keywords`, path);
}

function compileCondition(cond: Condition, selections: Map<string, CompiledSelection>, path: Array<string | number>): CompiledSelection {
  const names = [...selections.keys()];
  const ref = (n: string): CompiledSelection => {
    const s = selections.get(n);
    if (!s) throw new RuleConstructError('condition', `the condition names "${n}", which is not a selection of this rule`, path);
    return s;
  };
  switch (cond.kind) {
    case 'ref':
      return ref(cond.name);
    case 'not': {
      const inner = compileCondition(cond.item, selections, path).test;
      return { test: (view) => !inner(view), needles: null };
    }
    case 'and': {
      const parts = cond.items.map((c) => compileCondition(c, selections, path));
      const tests = parts.map((p) => p.test);
      return { test: (view) => tests.every((t) => t(view)), needles: allOf(parts.map((p) => p.needles)) };
    }
    case 'or': {
      const parts = cond.items.map((c) => compileCondition(c, selections, path));
      const tests = parts.map((p) => p.test);
      return { test: (view) => tests.some((t) => t(view)), needles: anyOf(parts.map((p) => p.needles)) };
    }
    case 'of': {
      const matched = namesOf(cond.pattern, names);
      if (matched.length === 0) throw new RuleConstructError('condition', `"${cond.count} of ${cond.pattern}" covers no selection`, path);
      const parts = matched.map(ref);
      const tests = parts.map((p) => p.test);
      if (cond.count === 'all') return { test: (view) => tests.every((t) => t(view)), needles: allOf(parts.map((p) => p.needles)) };
      const n = cond.count;
      if (n === 1) return { test: (view) => tests.some((t) => t(view)), needles: anyOf(parts.map((p) => p.needles)) };
      return {
        test: (view) => {
          let hits = 0;
          for (const t of tests) if (t(view) && ++hits >= n) return true;
          return false;
        },
        needles: null,
      };
    }
  }
}

function logsourceOf(v: unknown): Logsource {
  const out: Logsource = {};
  if (isRecord(v)) for (const k of ['product', 'category', 'service'] as const) if (typeof v[k] === 'string') out[k] = v[k] as string;
  return out;
}

/** One detection rule (a parsed YAML document) compiled, or a construct error. */
export function compileRule(rule: Record<string, unknown>, line: number, options: CompileOptions = {}): CompiledRule {
  if (typeof rule.title !== 'string' || !rule.title.trim()) throw new RuleConstructError('title', 'a rule needs a title', []);
  if (!isRecord(rule.logsource)) throw new RuleConstructError('logsource', 'a rule needs a logsource map', []);
  const detection = rule.detection;
  if (!isRecord(detection)) throw new RuleConstructError('detection', 'a rule needs a detection map', ['detection']);
  const conditionRaw = detection.condition;
  const conditions = Array.isArray(conditionRaw) ? conditionRaw : [conditionRaw];
  if (conditions.length === 0 || conditions.some((c) => typeof c !== 'string' || !c.trim()))
    throw new RuleConstructError('condition', 'detection.condition must be a condition or a list of them', ['detection', 'condition']);

  const selections = new Map<string, CompiledSelection>();
  for (const [name, value] of Object.entries(detection)) {
    if (name === 'condition' || name === 'timeframe') continue;
    selections.set(name, compileSelection(name, value, options));
  }
  if (detection.timeframe !== undefined)
    throw new RuleConstructError('timeframe', 'detection.timeframe belongs to Sigma 1 aggregations: write a correlation rule', ['detection', 'timeframe']);
  const parts = (conditions as string[]).map((text, i) => {
    const at = Array.isArray(conditionRaw) ? ['detection', 'condition', i] : ['detection', 'condition'];
    let parsed: Condition;
    try {
      parsed = parseCondition(text);
    } catch (err) {
      if (err instanceof ConditionError) throw new RuleConstructError(err.construct, err.message, at);
      throw err;
    }
    return compileCondition(parsed, selections, at);
  });
  const tests = parts.map((p) => p.test);
  const condition: Test = tests.length === 1 ? tests[0]! : (view) => tests.some((t) => t(view));
  const needles = anyOf(parts.map((p) => p.needles));
  const matches = needles
    ? (view: EventView) => {
        const hay = view.haystack();
        let found = false;
        for (const n of needles) if (hay.includes(n)) { found = true; break; }
        return found && condition(view);
      }
    : condition;
  const selectionNames = [...selections.keys()];
  return {
    id: typeof rule.id === 'string' ? rule.id : null,
    name: typeof rule.name === 'string' ? rule.name : null,
    title: rule.title.trim(),
    level: typeof rule.level === 'string' ? rule.level : null,
    tags: Array.isArray(rule.tags) ? rule.tags.filter((t): t is string => typeof t === 'string') : [],
    logsource: logsourceOf(rule.logsource),
    source: rule,
    line,
    selections: selectionNames,
    needles,
    matches,
    condition,
    explain(event) {
      const view = new EventView(event);
      return {
        matched: condition(view),
        matchedSelections: selectionNames.filter((n) => selections.get(n)!.test(view)),
      };
    },
  };
}

const ruleLabel = (rule: unknown, index: number): string =>
  isRecord(rule) && typeof rule.title === 'string' ? rule.title : isRecord(rule) && typeof rule.id === 'string' ? rule.id : `document ${index + 1}`;

/**
 * Every document of a Sigma file compiled: detection rules, then correlation rules over them.
 * `known` lends detection rules from outside the file (by id or name) to its correlations.
 */
export function compileSigma(text: string, options: CompileOptions & { known?: CompiledRule[]; forConversion?: boolean } = {}): CompiledUnit {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lines, uniqueKeys: true });
  const out: CompiledUnit = { rules: [], correlations: [], refusals: [] };
  const correlationDocs: Array<{ value: Record<string, unknown>; doc: Document; label: string; line: number }> = [];
  const list = Array.isArray(docs) ? docs : [docs];
  list.forEach((doc, index) => {
    const start = lines.linePos(doc.range[0]).line;
    if (doc.errors.length > 0) {
      const e = doc.errors[0]!;
      out.refusals.push({ rule: `document ${index + 1}`, construct: 'YAML', line: e.linePos?.[0]?.line ?? start, message: e.message.split('\n')[0]! });
      return;
    }
    const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
    if (value === null || value === undefined) return;
    const label = ruleLabel(value, index);
    if (!isRecord(value)) {
      out.refusals.push({ rule: label, construct: 'document', line: start, message: 'a rule is a map of fields (title, logsource, detection, …)' });
      return;
    }
    if (typeof value.action === 'string') {
      out.refusals.push({ rule: label, construct: `action: ${value.action}`, line: lineOf(doc, lines, ['action']), message: 'rule collections with global/repeat actions are not supported: write each rule whole' });
      return;
    }
    if ('correlation' in value) {
      correlationDocs.push({ value, doc: doc as Document, label, line: start });
      return;
    }
    try {
      out.rules.push(compileRule(value, start, options));
    } catch (err) {
      if (!(err instanceof RuleConstructError)) throw err;
      out.refusals.push({ rule: label, construct: err.construct, line: lineOf(doc as Document, lines, err.path) ?? start, message: err.message });
    }
  });
  const pool = [...out.rules, ...(options.known ?? [])];
  for (const c of correlationDocs) {
    try {
      out.correlations.push(compileCorrelation(c.value, pool, c.line, options.forConversion === true));
    } catch (err) {
      if (!(err instanceof RuleConstructError)) throw err;
      out.refusals.push({ rule: c.label, construct: err.construct, line: lineOf(c.doc, lines, err.path) ?? c.line, message: err.message });
    }
  }
  return out;
}
