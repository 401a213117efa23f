import { ConversionError, type Leaf, type Node, type Printed, type Target } from './sigma-convert.fns.js';
import { literalPattern, STAR, type Pattern } from './sigma-patterns.fns.js';

/**
 * Processing pipelines: what turns a generic Sigma rule (Sysmon / Windows event log field names)
 * into a query over one product's schema, as pySigma's pipelines do. A pipeline is data (its
 * table choice and an ordered list of steps, in `sigma-pipelines/`); this file is the small
 * engine that applies the steps to a rule's condition tree. Steps run in order, each over the
 * tree the previous one left, so a later step sees the mapped field names (as in pySigma).
 * A rule the pipeline cannot place (no table for its logsource) is refused with the pipeline's
 * reason (`ConversionError`, the API answers 422).
 */

export interface Logsource {
  product?: string;
  category?: string;
  service?: string;
}

/** Where a step applies: every listed property must hold (`not` negates the whole). */
export interface When {
  category?: string[];
  product?: string[];
  service?: string[];
  /** The table the pipeline chose (Kusto). */
  table?: string[];
  not?: boolean;
}

type Mapping = Record<string, string | string[]>;

export type Step =
  /** Remove the field's tests from the rule (pySigma's drop_detection_item). */
  | { kind: 'drop'; fields: string[]; when?: When }
  /** Remove the field's tests of the empty string (a product's default written as ''). */
  | { kind: 'dropEmpty'; fields: string[]; when?: When }
  /** Rename fields; a list maps one field to several (any of them matches). */
  | { kind: 'map'; mapping: Mapping; when?: When }
  /** Rename by the chosen table's mapping, else the generic one (Kusto's table-first mappings). */
  | { kind: 'mapByTable'; tables: Record<string, Mapping>; generic: Mapping }
  /** A regular expression replacement at the start of the value's literal text. */
  | { kind: 'replace'; fields: string[]; regex: RegExp; replacement: string; when?: When }
  /** Whole-value replacement (a list: any of the values). */
  | { kind: 'values'; fields: string[]; mapping: Mapping; when?: When }
  /** `DOMAIN\user` becomes the user field and the domain field, both required. */
  | { kind: 'splitDomainUser'; fields: string[]; domains: Record<string, string>; fallback: string }
  /** `Hashes` values (`algo=value`, `algo|value` or a bare digest, told apart by its length) to one field per algorithm. */
  | { kind: 'hashes'; fields: string[]; algos: string[]; prefix: string; dropAlgo?: boolean; when?: When }
  /** A path to its last component (`C:\Windows\cmd.exe` → `cmd.exe`). */
  | { kind: 'basename'; fields: string[]; when?: When }
  /** Numbers as text (`event.code == "4688"`), except in the fields listed. */
  | { kind: 'toText'; except: string[]; when?: When }
  /** `true`/`false` of a field as the product's words (`Initiated: false` → `network.direction: ingress`). */
  | { kind: 'boolValues'; field: string; values: { true: string; false: string }; when?: When }
  /** Tests AND-ed in front of the rule (an index's own discriminator); a list of values: any of them. */
  | { kind: 'prefix'; tests: Array<{ field: string; values: string[] }>; when?: When }
  /** A prefix on every field name the pattern does not match (`winlog.event_data.` on the event's own fields). */
  | { kind: 'prefixFields'; prefix: string; unless: RegExp; when?: When }
  /** Only these fields exist in the product's schema here: any other refuses the rule. */
  | { kind: 'onlyFields'; fields: string[]; message: string; when?: When }
  /** The table, index or data model the rule's logsource selects, with the fields it carries. */
  | { kind: 'setTable'; table: string; fields?: string[]; when?: When }
  /** No step chose a table: the rule's logsource is not one the pipeline knows. */
  | { kind: 'requireTable'; message: string }
  /** The rule cannot be written for this product: refuse it with the reason. */
  | { kind: 'refuse'; message: string; when?: When };

export interface TableChoice {
  byCategory: Record<string, string>;
  /** Without a category: the first EventID/EventCode of a `sel*` selection picks by its event family. */
  byEventFamily?: Record<string, string>;
  /** Why a rule without a table is refused. */
  refusal: string;
}

export interface PipelineDef {
  name: string;
  target: Target;
  description: string;
  table?: TableChoice;
  steps: Step[];
  /** The finished query (Kusto: `Table\n| where …`). */
  finish?: (query: string, state: PipelineState) => string;
  /** Other output formats (Splunk's `data_model`: a tstats search), from the printed parts. */
  formats?: Record<string, (parts: Printed, state: PipelineState) => string>;
}

export interface PipelineState {
  logsource: Logsource;
  table: string | null;
  /** The fields of the chosen data model (Splunk CIM's `by` clause). */
  fields: string[];
}

// Windows event ids by family (the Kusto pipelines' table choice without a category).
const EVENT_FAMILIES: Record<string, number[]> = {
  process: [1, 5, 10, 25, 4688, 4689, 4696],
  logon: [4624, 4625, 4634, 4647, 4648, 4778, 4779, 4800, 4801, 4802, 4803],
  registry: [4656, 4657, 4658, 4659, 4660, 4661, 4662, 4663, 12, 13, 14],
  file: [2, 11, 15, 23, 26, 27, 28, 29, 4656, 4658, 4660, 4663],
  network: [3, 22, 5140, 5145, 5156, 5157, 5158, 5159],
  image_load: [7],
  pipe: [17, 18],
  wmi: [19, 20, 21],
  service: [4697, 4698, 4699, 4700, 4701, 4702],
  account: [4720, 4722, 4723, 4724, 4725, 4726, 4738, 4740, 4767],
};
const familyOf = (id: number) => Object.entries(EVENT_FAMILIES).find(([, ids]) => ids.includes(id))?.[0];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function chooseTable(choice: TableChoice, rule: Record<string, unknown>, ls: Logsource): string | null {
  if (ls.category) return choice.byCategory[ls.category] ?? null;
  if (!choice.byEventFamily) return null;
  const detection = (rule.detection ?? {}) as Record<string, unknown>;
  for (const [name, sel] of Object.entries(detection)) {
    if (!/^sel/i.test(name)) continue;
    for (const map of Array.isArray(sel) ? sel : [sel]) {
      if (!isRecord(map)) continue;
      for (const [key, raw] of Object.entries(map)) {
        const field = key.split('|')[0];
        if (field !== 'EventID' && field !== 'EventCode') continue;
        for (const v of Array.isArray(raw) ? raw : [raw]) {
          const family = familyOf(Number(v));
          const table = family ? choice.byEventFamily[family] : undefined;
          if (table) return table;
        }
      }
    }
  }
  return null;
}

const lower = (s: string | undefined) => s?.toLowerCase();
function holds(when: When | undefined, state: PipelineState): boolean {
  if (!when) return true;
  const ls = state.logsource;
  const inList = (list: string[] | undefined, v: string | undefined) => !list || (v !== undefined && list.some((x) => x.toLowerCase() === lower(v)));
  const all =
    inList(when.category, ls.category) && inList(when.product, ls.product) && inList(when.service, ls.service) && (!when.table || (state.table !== null && when.table.includes(state.table)));
  return when.not ? !all : all;
}

// --- the tree walk ------------------------------------------------------------------------

type ValueLeaf = Extract<Leaf, { k: 'value' }>;
const fieldOf = (l: Leaf): string | null => ('field' in l ? l.field : null);
const collapse = (k: 'and' | 'or', args: Node[]): Node => (args.length === 1 ? args[0]! : { k, args });

/** Each leaf through `fn` (null drops it; an and/or left empty is dropped too). */
function mapLeaves(node: Node, fn: (l: Leaf) => Node | null): Node | null {
  if (node.k === 'and' || node.k === 'or') {
    const args = node.args.map((a) => mapLeaves(a, fn)).filter((a): a is Node => a !== null);
    return args.length === 0 ? null : args.length === 1 ? args[0]! : { ...node, args };
  }
  if (node.k === 'not') {
    const arg = mapLeaves(node.arg, fn);
    return arg === null ? null : { k: 'not', arg };
  }
  return fn(node as Leaf);
}

/** A detection item: one field's values (a leaf, or an or of leaves of the same field). */
function mapItems(node: Node, isItem: (field: string) => boolean, fn: (leaves: ValueLeaf[]) => Node): Node {
  const sameField = (n: Node): ValueLeaf[] | null => {
    if (n.k === 'value') return isItem(n.field) ? [n] : null;
    if (n.k !== 'or' || !n.args.every((a) => a.k === 'value')) return null;
    const leaves = n.args as ValueLeaf[];
    return new Set(leaves.map((l) => l.field)).size === 1 && isItem(leaves[0]!.field) ? leaves : null;
  };
  const item = sameField(node);
  if (item) return fn(item);
  if (node.k === 'and' || node.k === 'or') return { ...node, args: node.args.map((a) => mapItems(a, isItem, fn)) };
  if (node.k === 'not') return { k: 'not', arg: mapItems(node.arg, isItem, fn) };
  return node;
}

function renamed(l: Leaf, to: string): Leaf {
  return { ...l, field: to } as Leaf;
}
function rename(l: Leaf, target: string | string[] | undefined): Node {
  if (target === undefined || !('field' in l)) return l;
  if (Array.isArray(target)) return collapse('or', target.map((t) => renamed(l, t)));
  return renamed(l, target);
}

/** The literal text of a value without wildcards, else null. */
const plainOf = (l: ValueLeaf): string | null => (l.pattern.tokens.every((t) => typeof t === 'string') ? (l.pattern.tokens as string[]).join('') : null);
const withText = (l: ValueLeaf, text: string, field = l.field): ValueLeaf => ({ k: 'value', field, pattern: literalPattern(text) });

function replaceStart(p: Pattern, regex: RegExp, replacement: string): Pattern {
  const first = p.tokens[0];
  if (typeof first !== 'string') return p;
  return { ...p, tokens: [first.replace(regex, replacement), ...p.tokens.slice(1)] };
}

function hashesNode(leaves: ValueLeaf[], step: Extract<Step, { kind: 'hashes' }>, pipeline: string): Node {
  const groups = new Map<string, string[]>();
  let known = false;
  for (const l of leaves) {
    const text = plainOf(l) ?? l.pattern.tokens.filter((t) => t !== STAR).join('');
    let parts = text.split('|');
    if (parts.length === 1) parts = text.split('=');
    let algo = '';
    let value: string;
    if (parts.length === 2) {
      const named = parts[0]!.replace(/^\*+/, '').toUpperCase();
      algo = step.algos.includes(named) ? named : '';
      value = parts[1]!;
    } else {
      value = parts[0]!;
      algo = ({ 32: 'MD5', 40: 'SHA1', 64: 'SHA256', 128: 'SHA512' } as Record<number, string>)[value.length] ?? '';
    }
    if (algo) known = true;
    const field = step.prefix + (step.dropAlgo ? '' : algo);
    if (!algo && !step.dropAlgo) continue; // a digest of no known algorithm has no column
    groups.set(field, [...(groups.get(field) ?? []), value]);
  }
  if (!known) throw new ConversionError(`pipeline ${pipeline}`, `no hash algorithm the pipeline knows in Hashes (use one of ${step.algos.join(', ')})`);
  const items = [...groups].map(([field, values]) => collapse('or', values.map((v) => withText(leaves[0]!, v, field))));
  return collapse('or', items);
}

function splitUser(leaves: ValueLeaf[], domains: Record<string, string>, fallback: string): Node {
  const parts = leaves.map((l): Node => {
    const text = plainOf(l);
    const split = text?.split('\\');
    if (!split || split.length !== 2) return l;
    const [domain, user] = split as [string, string];
    return { k: 'and', args: [withText(l, user), withText(l, domain, domains[l.field] ?? fallback)] };
  });
  return collapse('or', parts);
}

function applyStep(tree: Node, step: Step, state: PipelineState, pipeline: string): Node | null {
  if ('when' in step && !holds(step.when, state)) return tree;
  switch (step.kind) {
    case 'drop':
      return mapLeaves(tree, (l) => (step.fields.includes(fieldOf(l) ?? '') ? null : l));
    case 'dropEmpty':
      return mapLeaves(tree, (l) => (l.k === 'value' && step.fields.includes(l.field) && l.pattern.tokens.length === 0 ? null : l));
    case 'map':
      return mapLeaves(tree, (l) => {
        const l2 = l.k === 'fieldref' ? { ...l, other: typeof step.mapping[l.other] === 'string' ? (step.mapping[l.other] as string) : l.other } : l;
        return rename(l2, fieldOf(l) === null ? undefined : step.mapping[fieldOf(l)!]);
      });
    case 'mapByTable': {
      const table = (state.table && step.tables[state.table]) || {};
      return mapLeaves(tree, (l) => {
        const f = fieldOf(l);
        return f === null ? l : rename(l, table[f] ?? step.generic[f]);
      });
    }
    case 'replace':
      return mapLeaves(tree, (l) => (l.k === 'value' && l.number === undefined && step.fields.includes(l.field) ? { ...l, pattern: replaceStart(l.pattern, step.regex, step.replacement) } : l));
    case 'values':
      return mapLeaves(tree, (l) => {
        if (l.k !== 'value' || !step.fields.includes(l.field)) return l;
        const text = plainOf(l);
        const to = text === null ? undefined : step.mapping[text];
        if (to === undefined) return l;
        return collapse('or', (Array.isArray(to) ? to : [to]).map((t) => withText(l, t)));
      });
    case 'splitDomainUser':
      return mapItems(tree, (f) => step.fields.includes(f), (leaves) => splitUser(leaves, step.domains, step.fallback));
    case 'hashes':
      return mapItems(tree, (f) => step.fields.includes(f), (leaves) => hashesNode(leaves, step, pipeline));
    case 'basename':
      return mapLeaves(tree, (l) => {
        if (l.k !== 'value' || !step.fields.includes(l.field)) return l;
        const text = l.pattern.tokens.map((t) => (typeof t === 'string' ? t : '*')).join('');
        return withText(l, text.split('\\').pop()!.split('/').pop()!);
      });
    case 'toText':
      return mapLeaves(tree, (l) => (l.k === 'value' && !step.except.includes(l.field) && l.number !== undefined ? withText(l, String(l.number)) : l));
    case 'boolValues':
      return mapLeaves(tree, (l) => {
        if (l.k !== 'value' || l.field !== step.field) return l;
        const text = plainOf(l)?.toLowerCase();
        const to = text === 'true' ? step.values.true : text === 'false' ? step.values.false : null;
        return to === null ? l : withText(l, to);
      });
    case 'prefix': {
      const tests: Node[] = step.tests.map((t) => collapse('or', t.values.map((v): Node => ({ k: 'value', field: t.field, pattern: literalPattern(v) }))));
      const rule = tree.k === 'and' || tree.k === 'or' ? { ...tree, grouped: true } : tree;
      return { k: 'and', args: [...tests, rule] };
    }
    case 'prefixFields':
      return mapLeaves(tree, (l) => {
        const f = fieldOf(l);
        return f === null || step.unless.test(f) ? l : renamed(l, step.prefix + f);
      });
    case 'onlyFields':
      return mapLeaves(tree, (l) => {
        const f = fieldOf(l);
        if (f === null && l.k === 'keyword') throw new ConversionError(`pipeline ${pipeline}`, `${step.message} (keywords have no field)`);
        if (f !== null && !step.fields.includes(f)) throw new ConversionError(`pipeline ${pipeline}`, `${step.message}: ${f} is not one of ${step.fields.join(', ')}`);
        return l;
      });
    case 'setTable':
      state.table = step.table;
      state.fields = step.fields ?? [];
      return tree;
    case 'requireTable':
      if (state.table === null) throw new ConversionError(`pipeline ${pipeline}`, step.message);
      return tree;
    case 'refuse':
      throw new ConversionError(`pipeline ${pipeline}`, step.message);
  }
}

/** The rule's tree as the pipeline rewrites it, and the state its `finish` reads. */
export function applyPipeline(def: PipelineDef, rule: Record<string, unknown>, tree: Node): { tree: Node; state: PipelineState } {
  const logsource = (isRecord(rule.logsource) ? rule.logsource : {}) as Logsource;
  const state: PipelineState = { logsource, table: null, fields: [] };
  if (def.table) {
    state.table = chooseTable(def.table, rule, logsource);
    if (state.table === null) throw new ConversionError(`pipeline ${def.name}`, def.table.refusal);
  }
  let out: Node | null = tree;
  for (const step of def.steps) {
    out = applyStep(out, step, state, def.name);
    if (out === null) throw new ConversionError(`pipeline ${def.name}`, 'every test of the rule was dropped by the pipeline: nothing is left to search');
  }
  return { tree: out, state };
}
