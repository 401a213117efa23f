import type { Condition } from './sigma-condition.fns.js';
import type { CompiledRule, CompiledUnit } from './sigma-compile.fns.js';
import { ConversionError, type Target } from './sigma-convert.fns.js';
import type { CompiledCorrelation } from './sigma-correlation.fns.js';
import { convertWithPipeline } from './sigma-pipelines.fns.js';

/**
 * Sigma correlation rules as SIEM queries: the base rules' search, then an aggregation over time
 * buckets of `timespan` grouped by `group-by`, then the threshold, as pySigma's backends write
 * them (Splunk's `stats` method, ES|QL's `date_trunc` buckets; their test suites' expected
 * queries are `conversions.jsonl` of the Sigma fixture). A SIEM query counts per fixed bucket,
 * where Rampart's own engine slides the window (docs/detections.md#correlation-rules).
 *
 * Lucene and Kusto have no aggregation pySigma writes for them: a correlation there is refused
 * with the construct named, as are `temporal_ordered` (neither backend orders events within a
 * bucket) and a pipeline under a correlation (its field mapping would have to rename the
 * group-by and counted fields too, which Rampart's pipelines do not do yet).
 */

type Op = 'gt' | 'gte' | 'lt' | 'lte' | 'eq';
const OPS: Record<Op, { splunk: string; esql: string }> = {
  gt: { splunk: '>', esql: '>' },
  gte: { splunk: '>=', esql: '>=' },
  lt: { splunk: '<', esql: '<' },
  lte: { splunk: '<=', esql: '<=' },
  eq: { splunk: '=', esql: '==' },
};

/** The name a base rule goes by in the query's `event_type` (pySigma: its name, else its id). */
const ruleRef = (r: CompiledRule): string => r.name ?? r.id ?? r.title;

/** Rule → the field an alias of the correlation names in it (`aliases: {alias: {rule: field}}`). */
function aliasesFor(c: CompiledCorrelation, r: CompiledRule): Array<[string, string]> {
  const aliases = (c.source.correlation as Record<string, unknown>).aliases;
  if (typeof aliases !== 'object' || aliases === null) return [];
  const out: Array<[string, string]> = [];
  for (const [alias, map] of Object.entries(aliases as Record<string, unknown>)) {
    if (typeof map !== 'object' || map === null) continue;
    const m = map as Record<string, unknown>;
    const field = (r.name ? m[r.name] : undefined) ?? (r.id ? m[r.id] : undefined);
    if (typeof field === 'string') out.push([field, alias]);
  }
  return out;
}

function baseRules(c: CompiledCorrelation, unit: CompiledUnit): CompiledRule[] {
  return c.rules.map((r) => {
    const found = unit.rules.find((u) => u === r) ?? (r as Partial<CompiledRule>);
    if (!found.source) throw new ConversionError('correlation rule reference', `the rule "${r.title}" the correlation names has no Sigma text to convert`);
    return found as CompiledRule;
  });
}

function bounds(c: CompiledCorrelation): Array<[Op, number]> {
  return (Object.entries(c.bound) as Array<[Op, number]>).filter(([, n]) => Number.isFinite(n));
}

/** Sigma's timespan (`15m`) in ES|QL's `date_trunc` interval (`15minutes`). */
function esqlInterval(c: CompiledCorrelation): string {
  const raw = String((c.source.correlation as Record<string, unknown>).timespan).trim();
  const m = /^(\d+)\s*([smhdw])$/.exec(raw)!;
  return `${m[1]}${{ s: 'seconds', m: 'minutes', h: 'hours', d: 'days', w: 'weeks' }[m[2] as 's']}`;
}

const timespanText = (c: CompiledCorrelation) => String((c.source.correlation as Record<string, unknown>).timespan).replace(/\s+/g, '');

function refCondition(cond: Condition, leaf: (name: string) => string, and: string, or: string, not: (s: string) => string): string {
  const walk = (x: Condition, parent: 'and' | 'or' | 'not' | null): string => {
    switch (x.kind) {
      case 'ref':
        return leaf(x.name);
      case 'not':
        return not(walk(x.item, 'not'));
      case 'and':
      case 'or': {
        const s = x.items.map((i) => walk(i, x.kind as 'and')).join(x.kind === 'and' ? and : or);
        return parent === null || (parent === 'or' && x.kind === 'and') ? s : `(${s})`;
      }
      case 'of':
        throw new ConversionError('correlation condition of', 'a temporal condition names rules, not "N of"');
    }
  };
  return walk(cond, null);
}

// --- Splunk (pySigma-backend-splunk's `stats` correlation method) ----------------------------
function splunkCorrelation(c: CompiledCorrelation, rules: CompiledRule[], query: (r: CompiledRule) => string): string {
  const search =
    rules.length === 1
      ? query(rules[0]!)
      : `| multisearch\n${rules.map((r) => `[ search ${query(r)} | eval event_type="${ruleRef(r)}"${aliasesFor(c, r).map(([f, a]) => ` | rename ${f} as ${a}`).join('')} ]`).join('\n')}`;
  const by = `by _time${c.groupBy.map((g) => ` ${g}`).join('')}`;
  const bin = `| bin _time span=${timespanText(c)}`;
  const threshold = (name: string) => `| search ${bounds(c).map(([op, n]) => `${name} ${OPS[op].splunk} ${n}`).join(' ')}`;
  let aggregate: string;
  let condition: string;
  switch (c.type) {
    case 'event_count':
      aggregate = `${bin}\n| stats count as event_count ${by}`;
      condition = threshold('event_count');
      break;
    case 'value_count':
      aggregate = `${bin}\n| stats dc(${c.field}) as value_count ${by}`;
      condition = threshold('value_count');
      break;
    case 'temporal':
      if (c.ruleCondition) {
        aggregate = `${bin}\n| stats values(event_type) as event_types ${by}`;
        condition = `| search ${refCondition(c.ruleCondition, (n) => `event_types="${n}"`, ' ', ' OR ', (s) => `NOT ${s}`)}`;
      } else {
        aggregate = `${bin}\n| stats dc(event_type) as event_type_count ${by}`;
        condition = `| search event_type_count >= ${rules.length}`;
      }
      break;
    case 'temporal_ordered':
      throw new ConversionError('correlation type temporal_ordered', 'Splunk stats buckets do not keep the order of events: temporal_ordered runs in Rampart only');
  }
  return `${search}\n\n${aggregate}\n\n${condition}`;
}

// --- ES|QL (pySigma-backend-elasticsearch's ES|QL correlation) -------------------------------
const ESQL_SOURCE = 'from * metadata _id, _index, _version | where ';
const esqlStr = (s: string) => `"${s.replace(/[\\"]/g, (x) => `\\${x}`)}"`;

function esqlCorrelation(c: CompiledCorrelation, rules: CompiledRule[], query: (r: CompiledRule) => string): string {
  const wheres = rules.map((r) => {
    const q = query(r);
    if (!q.startsWith(ESQL_SOURCE)) throw new ConversionError('correlation', 'a base rule whose ES|QL query is not one where clause cannot be correlated');
    return q.slice(ESQL_SOURCE.length);
  });
  let search: string;
  if (rules.length === 1) search = query(rules[0]!);
  else {
    // One source for every base rule; each event is labelled with the rule it matched (the first).
    const label = `| eval event_type=case(${wheres.map((w, i) => `${w}, ${esqlStr(ruleRef(rules[i]!))}`).join(', ')})`;
    const renames = new Map<string, string[]>();
    rules.forEach((r) => {
      for (const [field, alias] of aliasesFor(c, r)) renames.set(alias, [...(renames.get(alias) ?? []), `event_type==${esqlStr(ruleRef(r))}, ${field}`]);
    });
    const aliasEvals = [...renames].map(([alias, arms]) => `\n| eval ${alias}=case(${arms.join(', ')})`).join('');
    search = `${ESQL_SOURCE}${wheres.map((w) => `(${w})`).join(' or ')}\n${label}${aliasEvals}`;
  }
  // The base rules' `fields` travel with each bucket as value lists (the group-by ones are its key).
  const extra = [...new Set(rules.flatMap((r) => (Array.isArray(r.source.fields) ? r.source.fields.map(String) : [])))].filter((f) => !c.groupBy.includes(f) && f !== c.field);
  const fields = extra.map((f) => `, ${f}=values(${f})`).join('');
  const bucket = `| eval timebucket=date_trunc(${esqlInterval(c)}, @timestamp)`;
  const by = `by timebucket${c.groupBy.map((g) => `, ${g}`).join('')}`;
  const threshold = (name: string) => `| where ${bounds(c).map(([op, n]) => `${name} ${OPS[op].esql} ${n}`).join(' and ')}`;
  let aggregate: string;
  let condition: string;
  switch (c.type) {
    case 'event_count':
      aggregate = `${bucket} | stats event_count=count()${fields} ${by}`;
      condition = threshold('event_count');
      break;
    case 'value_count':
      aggregate = `${bucket} | stats value_count=count_distinct(${c.field})${fields} ${by}`;
      condition = threshold('value_count');
      break;
    case 'temporal':
      if (c.ruleCondition) throw new ConversionError('correlation condition (temporal)', 'ES|QL correlations count distinct rules: a boolean condition over rule names runs in Rampart only');
      aggregate = `${bucket} | stats event_type_count=count_distinct(event_type)${fields} ${by}`;
      condition = `| where event_type_count >= ${rules.length}`;
      break;
    case 'temporal_ordered':
      throw new ConversionError('correlation type temporal_ordered', 'ES|QL buckets do not keep the order of events: temporal_ordered runs in Rampart only');
  }
  return `${search}\n${aggregate}\n${condition}`;
}

/**
 * Every query of a compiled unit in `target`: the detection rules no correlation consumes (and
 * those a correlation re-emits with `generate: true`), then each correlation as one query.
 */
export function convertUnit(unit: CompiledUnit, target: Target, pipeline: string | null | undefined, format?: string): string[] {
  if (unit.correlations.length === 0) return unit.rules.map((r) => convertWithPipeline(r.source, target, pipeline, {}, format));
  if (target !== 'splunk' && target !== 'esql')
    throw new ConversionError('correlation', `${target} has no aggregation to express a correlation rule: convert it to splunk or esql, or let Rampart run it on events`);
  if (pipeline) throw new ConversionError(`correlation with pipeline ${pipeline}`, 'a correlation converts without a pipeline (its group-by fields would need the same mapping)');
  const consumed = new Set<CompiledRule>();
  for (const c of unit.correlations) if ((c.source.correlation as Record<string, unknown>).generate !== true) for (const r of c.rules) consumed.add(r as CompiledRule);
  const query = (r: CompiledRule) => convertWithPipeline(r.source, target, null, {}, format);
  return [
    ...unit.rules.filter((r) => !consumed.has(r)).map(query),
    ...unit.correlations.map((c) => (target === 'splunk' ? splunkCorrelation(c, baseRules(c, unit), query) : esqlCorrelation(c, baseRules(c, unit), query))),
  ];
}
