import { createHash } from 'node:crypto';
import { namesOf, parseCondition, type Condition } from './sigma-condition.fns.js';
import { RuleConstructError, valuePatterns, type CompileOptions } from './sigma-fields.fns.js';
import { QMARK, STAR, withLeadingStar, withTrailingStar, type Pattern } from './sigma-patterns.fns.js';

/**
 * Sigma rules → the query languages of SIEMs: Splunk SPL, Elasticsearch Lucene, ES|QL and Kusto
 * (KQL), written as pySigma's backends write them (the expected queries of their own test
 * suites are this module's tests: `conversions.jsonl` of the Sigma fixture). The rule becomes a
 * tree (and/or/not over field tests), then each target prints the tree with its own tokens,
 * precedence, escaping and parenthesis rules. A construct a target cannot express throws
 * `ConversionError` naming it (the API answers 422).
 */

export const TARGETS = ['splunk', 'elasticsearch-lucene', 'esql', 'kusto'] as const;
export type Target = (typeof TARGETS)[number];

export class ConversionError extends Error {
  constructor(
    readonly construct: string,
    message: string,
  ) {
    super(message);
  }
}

export type Leaf =
  | { k: 'value'; field: string; pattern: Pattern; number?: number; bool?: boolean; fromNumber?: boolean }
  | { k: 'keyword'; pattern: Pattern }
  | { k: 'null'; field: string }
  | { k: 'exists'; field: string; yes: boolean }
  | { k: 're'; field: string; re: string; flags: string }
  | { k: 'cidr'; field: string; net: string }
  | { k: 'cmp'; field: string; op: '<' | '<=' | '>' | '>='; n: number }
  | { k: 'fieldref'; field: string; other: string };
/** `grouped`: parenthesized whatever the precedence (a condition a pipeline put in front of the rule's). */
export type Node = Leaf | { k: 'and' | 'or'; args: Node[]; grouped?: boolean } | { k: 'not'; arg: Node };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const fail = (construct: string, message: string): never => {
  throw new RuleConstructError(construct, message, []);
};

const collapse = (k: 'and' | 'or', args: Node[]): Node => (args.length === 1 ? args[0]! : { k, args });

function entryNode(key: string, raw: unknown, options: CompileOptions): Node {
  const [fieldPart, ...mods] = key.split('|');
  const field = fieldPart ?? '';
  const values = (Array.isArray(raw) ? raw : [raw]) as Array<string | number | boolean | null>;
  const has = (m: string) => mods.includes(m);
  const join = has('all') ? 'and' : 'or';
  if (has('exists')) return { k: 'exists', field, yes: values[0] === true || String(values[0]).toLowerCase() === 'yes' || String(values[0]).toLowerCase() === 'true' };
  if (has('fieldref')) return collapse(join, values.map((o) => ({ k: 'fieldref', field, other: String(o) })));
  const cmp = (['lt', 'lte', 'gt', 'gte'] as const).find(has);
  if (cmp) return collapse(join, values.map((n) => ({ k: 'cmp', field, op: ({ lt: '<', lte: '<=', gt: '>', gte: '>=' } as const)[cmp], n: Number(n) })));
  if (has('cidr')) return collapse('or', values.map((net) => ({ k: 'cidr', field, net: String(net) })));
  if (has('re')) {
    const flags = `${has('i') ? 'i' : ''}${has('m') ? 'm' : ''}${has('s') ? 's' : ''}`;
    return collapse(join, values.map((re) => ({ k: 're', field, re: String(re), flags })));
  }
  const nodes: Node[] = [];
  for (const v of values) {
    if (v === null) {
      nodes.push({ k: 'null', field });
      continue;
    }
    const patterns = valuePatterns(v, mods, options, fail);
    const leaves: Node[] = patterns.map((pattern) =>
      field === ''
        ? { k: 'keyword', pattern: withTrailingStar(withLeadingStar(pattern)) }
        : { k: 'value', field, pattern, ...(typeof v === 'number' && mods.length === 0 ? { number: v } : {}), ...(typeof v === 'number' ? { fromNumber: true } : {}) },
    );
    // A value's variants (windash, base64offset, expand) are alternatives among the values, as
    // pySigma flattens its expansions: one `IN` list, not an OR of lists.
    if (join === 'or') nodes.push(...leaves);
    else nodes.push(collapse('or', leaves));
  }
  return collapse(join, nodes);
}

function selectionNode(value: unknown, options: CompileOptions): Node {
  const mapNode = (m: Record<string, unknown>) => collapse('and', Object.entries(m).map(([k, v]) => entryNode(k, v, options)));
  if (isRecord(value)) return mapNode(value);
  if (Array.isArray(value) && value.every(isRecord)) return collapse('or', value.map((m) => mapNode(m as Record<string, unknown>)));
  return entryNode('', value, options);
}

/** The detection of a rule as a tree (the rule is assumed to compile: convert after compiling). */
export function ruleTree(rule: Record<string, unknown>, options: CompileOptions = {}): Node {
  const detection = rule.detection as Record<string, unknown>;
  const names = Object.keys(detection).filter((n) => n !== 'condition');
  const sel = new Map(names.map((n) => [n, selectionNode(detection[n], options)]));
  const walk = (c: Condition): Node => {
    switch (c.kind) {
      case 'ref':
        return sel.get(c.name)!;
      case 'not':
        return { k: 'not', arg: walk(c.item) };
      case 'and':
      case 'or':
        return { k: c.kind, args: c.items.map(walk) };
      case 'of': {
        const parts = namesOf(c.pattern, names).map((n) => sel.get(n)!);
        if (c.count !== 'all' && c.count !== 1) throw new ConversionError(`${c.count} of`, `"${c.count} of" has no query form`);
        return collapse(c.count === 'all' ? 'and' : 'or', parts);
      }
    }
  };
  const conds = Array.isArray(detection.condition) ? (detection.condition as string[]) : [String(detection.condition)];
  return collapse('or', conds.map((c) => walk(parseCondition(c))));
}

// ---------------------------------------------------------------------------------------------
// Printing

export interface Printed {
  /** The query expression (null when everything was deferred). */
  text: string | null;
  /** Splunk's deferred parts (`| regex`, `| where`), appended after the search. */
  deferred: string[];
  /**
   * Splunk's regular expressions under an OR: each a `rex` capturing into a match field and an
   * `eval` of a condition field, which the search then tests (`processCondition="true"`).
   */
  orRegex: string[];
  /** How many OR groups enclose the node being printed; and each field's count of OR regexes. */
  orDepth: number;
  orRegexFields: Map<string, number>;
}

type Shape = { kind: 'eq' | 'contains' | 'startswith' | 'endswith' | 'wildcard'; text: string };

/** The pattern's form in a language without Sigma's wildcards: the literal and where the wildcards were. */
function shapeOf(p: Pattern): Shape {
  const t = p.tokens;
  const lit = (ts: typeof t) => (ts.every((x) => typeof x === 'string') ? (ts as string[]).join('') : null);
  if (t.length === 0) return { kind: 'eq', text: '' };
  const all = lit(t);
  if (all !== null) return { kind: 'eq', text: all };
  const inner = (from: number, to: number) => lit(t.slice(from, to));
  if (t.length >= 2 && t[0] === STAR && t[t.length - 1] === STAR && inner(1, -1) !== null) return { kind: 'contains', text: inner(1, -1)! };
  if (t[t.length - 1] === STAR && inner(0, -1) !== null) return { kind: 'startswith', text: inner(0, -1)! };
  if (t[0] === STAR && inner(1, t.length) !== null) return { kind: 'endswith', text: inner(1, t.length)! };
  return { kind: 'wildcard', text: '' };
}

/** Tokens with wildcards written as the target writes them and literals escaped by `esc`. */
function wildcardText(p: Pattern, esc: (s: string) => string, star: string, qmark: string): string {
  return p.tokens.map((x) => (x === STAR ? star : x === QMARK ? qmark : esc(x))).join('');
}

const PRECEDENCE: Record<Target, Array<'not' | 'and' | 'or'>> = {
  splunk: ['not', 'or', 'and'], // in SPL the implicit AND binds loosest
  'elasticsearch-lucene': ['not', 'and', 'or'],
  esql: ['not', 'and', 'or'],
  kusto: ['not', 'and', 'or'],
};

/** Same field, plain values: the `IN` form (`field IN (…)`, `field:(a OR b)`, `in~`). */
function inCandidate(node: Node, target: Target): Array<Extract<Leaf, { k: 'value' }>> | null {
  if (node.k !== 'or' || node.args.length < 2) return null;
  const leaves = node.args as Leaf[];
  if (!leaves.every((l) => l.k === 'value')) return null;
  const vals = leaves as Array<Extract<Leaf, { k: 'value' }>>;
  if (new Set(vals.map((v) => v.field)).size !== 1) return null;
  // Splunk's IN takes wildcards; Lucene's group too; ES|QL and Kusto only exact values.
  // Kusto's backend writes the plain values as `in~` and the others after it (pySigma-backend-kusto).
  if (target === 'esql') if (!vals.every((v) => shapeOf(v.pattern).kind === 'eq')) return null;
  if (target === 'splunk' && vals.some((v) => v.pattern.tokens.includes(QMARK))) return null;
  return vals;
}

interface Printer {
  leaf(l: Leaf, out: Printed): string | null;
  inList(vals: Array<Extract<Leaf, { k: 'value' }>>): string;
  and: string;
  or: string;
  not(s: string, arg: Node): string;
  group(s: string): string;
  /** Kusto parenthesizes every nested expression; the others only where precedence asks. */
  parenthesizeAll?: boolean;
  /** Lucene groups negations inside and/or. */
  groupNot?: boolean;
  /**
   * Lucene's backend parenthesizes every nested group; the engine follows its precedence rules
   * for the rule's own condition (the pairs agree) and groups the rule under a condition a
   * pipeline put in front of it (`grouped`).
   */
  groupMarked?: boolean;
}

function print(node: Node, p: Printer, target: Target, out: Printed): string | null {
  const prec = PRECEDENCE[target];
  const isGroupable = (n: Node) => n.k === 'and' || n.k === 'or' || n.k === 'not';
  const child = (parent: 'and' | 'or' | 'not', n: Node): string | null => {
    const s = print(n, p, target, out);
    if (s === null) return null;
    const asIn = inCandidate(n, target);
    const kind = asIn ? 'or' : n.k;
    if (p.groupNot && n.k === 'not' && n.arg.k !== 'null' && parent !== 'not') return p.group(s);
    if (p.groupNot && n.k === 'null' && parent !== 'not') return p.group(s);
    if (!isGroupable(n)) return s;
    if (p.parenthesizeAll || (p.groupMarked && (n.k === 'and' || n.k === 'or') && n.grouped)) return p.group(s);
    if (kind === 'not') return s;
    return prec.indexOf(kind as 'and' | 'or') <= prec.indexOf(parent) ? s : p.group(s);
  };
  if (node.k === 'and' || node.k === 'or') {
    const asIn = node.k === 'or' ? inCandidate(node, target) : null;
    if (asIn) return p.inList(asIn);
    if (node.k === 'or') out.orDepth++;
    const parts = node.args.map((a) => child(node.k as 'and' | 'or', a)).filter((s): s is string => s !== null);
    if (node.k === 'or') out.orDepth--;
    if (parts.length === 0) return null;
    return parts.join(node.k === 'and' ? p.and : p.or);
  }
  if (node.k === 'not') {
    if (target === 'elasticsearch-lucene' && node.arg.k === 'null') return `_exists_:${luceneField(node.arg.field)}`;
    const inner = child('not', node.arg);
    if (inner === null) throw new ConversionError('not', 'a negated part the target defers cannot be negated');
    return p.not(inner, node.arg);
  }
  return p.leaf(node as Leaf, out);
}

// --- Splunk ---------------------------------------------------------------------------------
const splunkEsc = (s: string) => s.replace(/[\\"]/g, (c) => `\\${c}`);
const splunkField = (f: string) => (/\s/.test(f) ? `"${f}"` : f);
const splunkValue = (l: Extract<Leaf, { k: 'value' }>) =>
  l.number !== undefined ? String(l.number) : `"${wildcardText(l.pattern, splunkEsc, '*', '*')}"`;
const splunk: Printer = {
  and: ' ',
  or: ' OR ',
  not: (s) => `NOT ${s}`,
  group: (s) => `(${s})`,
  inList: (vals) => `${splunkField(vals[0]!.field)} IN (${vals.map((v) => `"${wildcardText(v.pattern, splunkEsc, '*', '*')}"`).join(', ')})`,
  leaf(l, out) {
    switch (l.k) {
      case 'value':
        return `${splunkField(l.field)}=${splunkValue(l)}`;
      case 'keyword':
        return `"${wildcardText(trimStars(l.pattern), splunkEsc, '*', '*')}"`;
      case 'null':
        return `NOT ${splunkField(l.field)}=*`;
      case 'exists':
        return l.yes ? `${splunkField(l.field)}=*` : `NOT ${splunkField(l.field)}=*`;
      case 'cidr':
        return `${splunkField(l.field)}="${l.net}"`;
      case 'cmp':
        return `${splunkField(l.field)}${l.op}${l.n}`;
      case 're': {
        if (l.flags) throw new ConversionError(`modifier |re|${l.flags}`, 'Splunk regex flags are written inline: remove the flag modifiers');
        const re = l.re.replace(/"/g, '\\"');
        if (out.orDepth === 0) {
          out.deferred.push(`\n| regex ${l.field}="${re}"`);
          return null;
        }
        // `| regex` filters the whole search: under an OR it would AND. Capture, then test a field.
        const count = (out.orRegexFields.get(l.field) ?? 0) + 1;
        out.orRegexFields.set(l.field, count);
        const { match, condition } = orRegexNames(l.field, count);
        out.orRegex.push(`rex field=${l.field} "(?<${match}>${re})"\n| eval ${condition}=if(isnotnull(${match}), "true", "false")`);
        return `${condition}="true"`;
      }
      case 'fieldref':
        out.deferred.push(`\n| where '${l.field}'='${l.other}'`);
        return null;
    }
  },
};
/** The rex group and eval field of an OR regex (pySigma-backend-splunk's names: no dots, at most 32 characters). */
function orRegexNames(field: string, count: number): { match: string; condition: string } {
  const cleaned = field.replace(/.*\./, '');
  const suffix = count === 1 ? '' : String(count);
  let match = `${cleaned}Match${suffix}`;
  if (match.length > 32) {
    const digest = createHash('blake2s256').update(cleaned).digest('hex').slice(0, 8);
    match = `${cleaned.slice(0, Math.max(32 - `Match${suffix}`.length - digest.length, 0))}${digest}Match${suffix}`;
  }
  return { match, condition: `${cleaned}Condition${suffix}` };
}

/** Splunk searches keywords as terms anywhere: the leading/trailing `*` of a keyword is implied. */
function trimStars(p: Pattern): Pattern {
  let t = p.tokens;
  if (t[0] === STAR) t = t.slice(1);
  if (t[t.length - 1] === STAR) t = t.slice(0, -1);
  return { ...p, tokens: t };
}

// --- Lucene ---------------------------------------------------------------------------------
const luceneEsc = (s: string) => s.replace(/[+\-=&|!(){}[\]^"~*?:\\/<> ]/g, (c) => `\\${c}`);
const luceneField = (f: string) => f.replace(/[\s:]/g, (c) => `\\${c}`);
const luceneValue = (l: Extract<Leaf, { k: 'value' }>) => {
  const s = wildcardText(l.pattern, luceneEsc, '*', '?');
  return s === '' ? '""' : s;
};
const lucene: Printer = {
  and: ' AND ',
  or: ' OR ',
  not: (s) => `NOT ${s}`,
  group: (s) => `(${s})`,
  groupNot: true,
  groupMarked: true,
  inList: (vals) => `${luceneField(vals[0]!.field)}:(${vals.map(luceneValue).join(' OR ')})`,
  leaf(l) {
    switch (l.k) {
      case 'value':
        return `${luceneField(l.field)}:${luceneValue(l)}`;
      case 'keyword':
        return wildcardText(l.pattern, luceneEsc, '*', '?');
      case 'null':
        return `NOT _exists_:${luceneField(l.field)}`;
      case 'exists':
        return l.yes ? `_exists_:${luceneField(l.field)}` : `NOT _exists_:${luceneField(l.field)}`;
      case 'cidr':
        return `${luceneField(l.field)}:${luceneEsc(l.net)}`;
      case 'cmp':
        return `${luceneField(l.field)}:${l.op === '<' ? `{* TO ${l.n}}` : l.op === '<=' ? `[* TO ${l.n}]` : l.op === '>' ? `{${l.n} TO *}` : `[${l.n} TO *]`}`;
      case 're':
        if (l.flags) throw new ConversionError(`modifier |re|${l.flags}`, 'Lucene regular expressions take no flags');
        return `${luceneField(l.field)}:/${l.re.replace(/\//g, '\\/')}/`;
      case 'fieldref':
        throw new ConversionError('modifier |fieldref', 'Lucene cannot compare two fields of a document');
    }
  },
};

// --- ES|QL ----------------------------------------------------------------------------------
const esqlStr = (s: string) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
const esqlField = (f: string) => (/^[A-Za-z_@][\w.@]*$/.test(f) ? f : `\`${f}\``);
const esql: Printer = {
  and: ' and ',
  or: ' or ',
  not: (s) => `not ${s}`,
  group: (s) => `(${s})`,
  inList: (vals) => `${esqlField(vals[0]!.field)} in (${vals.map((v) => esqlStr(shapeOf(v.pattern).text)).join(', ')})`,
  leaf(l) {
    switch (l.k) {
      case 'value': {
        const f = esqlField(l.field);
        if (l.number !== undefined) return `${f}==${l.number}`;
        const s = shapeOf(l.pattern);
        if (s.kind === 'eq') return `${f}==${esqlStr(s.text)}`;
        if (s.kind === 'startswith') return `starts_with(${f}, ${esqlStr(s.text)})`;
        if (s.kind === 'endswith') return `ends_with(${f}, ${esqlStr(s.text)})`;
        return `${f} like ${esqlStr(wildcardText(l.pattern, (x) => x, '*', '?'))}`;
      }
      case 'keyword':
        throw new ConversionError('keywords', 'ES|QL has no search of every field: name the field');
      case 'null':
        return `${esqlField(l.field)} is null`;
      case 'exists':
        return `${esqlField(l.field)} is ${l.yes ? 'not ' : ''}null`;
      case 'cidr':
        return `cidr_match(${esqlField(l.field)}, ${esqlStr(l.net)})`;
      case 'cmp':
        return `${esqlField(l.field)}${l.op}${l.n}`;
      case 're':
        if (l.flags) throw new ConversionError(`modifier |re|${l.flags}`, 'ES|QL rlike takes no flags');
        return `${esqlField(l.field)} rlike ${esqlStr(l.re)}`;
      case 'fieldref':
        return `${esqlField(l.field)}==${esqlField(l.other)}`;
    }
  },
};

// --- Kusto ----------------------------------------------------------------------------------
const kqlStr = (s: string) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
const kqlField = (f: string) => (/^[A-Za-z_][\w]*$/.test(f) ? f : `['${f}']`);
/** pySigma's SigmaString.to_regex: `.*+?^$[](){}\|` escaped, the wildcards as `.*` and `.`, unanchored. */
const regexOfPattern = (p: Pattern) => wildcardText(p, (x) => x.replace(/[.*+?^$[\](){}\\|]/g, '\\$&'), '.*', '.');
const kusto: Printer = {
  and: ' and ',
  or: ' or ',
  not: (s) => `not(${s})`,
  group: (s) => `(${s})`,
  parenthesizeAll: true,
  inList: (vals) => {
    const f = kqlField(vals[0]!.field);
    const plain = vals.filter((v) => shapeOf(v.pattern).kind === 'eq');
    const parts = plain.length ? [`${f} in~ (${plain.map((v) => kqlStr(shapeOf(v.pattern).text)).join(', ')})`] : [];
    for (const v of vals) {
      const s = shapeOf(v.pattern);
      if (s.kind === 'eq') continue;
      // A wildcard inside the value: each literal part must be there (the backend's approximation).
      if (s.kind === 'wildcard') parts.push(`(${v.pattern.tokens.filter((t): t is string => typeof t === 'string').map((t) => `${f} contains ${kqlStr(t)}`).join(' and ')})`);
      else parts.push(`${f} ${s.kind} ${kqlStr(s.text)}`);
    }
    return parts.join(' or ');
  },
  leaf(l) {
    switch (l.k) {
      case 'value': {
        const f = kqlField(l.field);
        if (l.number !== undefined) return `${f} == ${l.number}`;
        const s = shapeOf(l.pattern);
        if (s.kind === 'eq') return `${f} =~ ${kqlStr(s.text)}`;
        if (s.kind === 'wildcard') return `${f} matches regex ${kqlStr(regexOfPattern(l.pattern))}`;
        return `${f} ${s.kind} ${kqlStr(s.text)}`;
      }
      case 'keyword':
        throw new ConversionError('keywords', 'Kusto needs a column to search: name the field');
      case 'null':
        return `isnull(${kqlField(l.field)})`;
      case 'exists':
        return `${l.yes ? 'isnotempty' : 'isempty'}(${kqlField(l.field)})`;
      case 'cidr':
        return `ipv4_is_in_range(${kqlField(l.field)}, ${kqlStr(l.net)})`;
      case 'cmp':
        return `${kqlField(l.field)} ${l.op} ${l.n}`;
      case 're':
        return `${kqlField(l.field)} matches regex ${kqlStr(l.flags ? `(?${l.flags})${l.re}` : l.re)}`;
      case 'fieldref':
        return `${kqlField(l.field)} =~ ${kqlField(l.other)}`;
    }
  },
};

const PRINTERS: Record<Target, Printer> = { splunk, 'elasticsearch-lucene': lucene, esql, kusto };

/** The rule's tree, its refusals as `ConversionError`. */
export function ruleTreeOf(rule: Record<string, unknown>, options: CompileOptions = {}): Node {
  try {
    return ruleTree(rule, options);
  } catch (err) {
    if (err instanceof RuleConstructError) throw new ConversionError(err.construct, err.message);
    throw err;
  }
}

/** A tree printed in `target`'s language: the search expression and the deferred parts after it. */
export function printParts(tree: Node, target: Target): Printed {
  const out: Printed = { text: null, deferred: [], orRegex: [], orDepth: 0, orRegexFields: new Map() };
  out.text = print(tree, PRINTERS[target], target, out);
  return out;
}

/** Splunk's OR regexes: the leading `field=value` tests first, then `rex`/`eval`, then `| search` of the rest. */
function splunkWithOrRegex(text: string, orRegex: string[]): string {
  const deferred = `\n| ${orRegex.join('\n| ')}`;
  const conditionFields = new Set<string>();
  for (const r of orRegex) conditionFields.add(/\| eval (\S+?)=/.exec(r)![1]!);
  const fieldEq = /([\w.]+)(?:="[^"]*"|=[^\s")]+)\s*/y;
  const prefix: string[] = [];
  let pos = 0;
  while (pos < text.length) {
    fieldEq.lastIndex = pos;
    const m = fieldEq.exec(text);
    if (!m || conditionFields.has(m[1]!)) break;
    prefix.push(m[0].trim());
    pos = fieldEq.lastIndex;
  }
  return `${prefix.join(' ')}${deferred}\n| search ${text.slice(pos)}`;
}

/** A tree as the query of `target` (the expression with its deferred parts, ES|QL's source command). */
export function printQuery(tree: Node, target: Target): string {
  const { text, deferred, orRegex } = printParts(tree, target);
  if (orRegex.length > 0) return `${splunkWithOrRegex(text ?? '*', orRegex)}${deferred.join('')}`;
  if (deferred.length > 0 && text === null) return `*${deferred.join('')}`;
  if (target === 'esql') return `from * metadata _id, _index, _version | where ${text ?? 'true'}`;
  return `${text ?? '*'}${deferred.join('')}`;
}

/** One detection rule as a query of `target` (the pipeline-less form: the rule's own field names). */
export function convertRule(rule: Record<string, unknown>, target: Target, options: CompileOptions = {}): string {
  return printQuery(ruleTreeOf(rule, options), target);
}

export const isTarget = (t: string): t is Target => (TARGETS as readonly string[]).includes(t);
