import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { parseAllDocuments, stringify } from 'yaml';
import { SIGMA_RULE_SCHEMA } from '../intel/index.js';
import type { AlertSeverity as Severity } from './alerts.tables.js';
import type { CodeDetectionStatus } from './alerts.tables.js';

/**
 * Sigma rules → code detections (POST /api/code-detections/import). Pure: the caller passes the
 * ATT&CK vocabulary (catalog techniques, tactic shortnames).
 *
 * A rule is checked against the Sigma rule JSON Schema (intel's sigma-rule.schema.json, written
 * from SigmaHQ's specification: required title, logsource and detection with a condition; id a
 * UUID; the status and level enumerations; ISO dates; namespaced lower-case tags). Then:
 * title → name, id → ruleId, description (+ the author, which the Detection Rule License asks
 * alerts from matches to name) → description, level → severity (informational → low), status
 * (unsupported → deprecated, none → experimental), tags kept verbatim, `attack.tNNNN[.NNN]` →
 * attackTechniques, `attack.<tactic>` → attackTactics, logsource → logTable, and the rule's own
 * text → query.
 */
export interface SigmaDetection {
  name: string;
  ruleId: string | null;
  description: string;
  severity: Severity;
  status: CodeDetectionStatus;
  tags: string[];
  attackTechniques: string[];
  attackTactics: string[];
  logTable: { source: string; stream: string };
  query: string;
}

export interface ParsedRule {
  index: number;
  ruleId: string | null;
  title: string | null;
  detection?: SigmaDetection;
  error?: string;
  /** Valid rule, with something to know (an ATT&CK technique the catalog does not know yet). */
  warning?: string;
}

export interface Vocabulary {
  isTechnique(id: string): boolean;
  isTactic(shortname: string): boolean;
  /** The ATT&CK release of the catalog, named in warnings (`18.1`). */
  catalogVersion?: string;
}

export const MAX_RULES_PER_IMPORT = 1000;

/**
 * The Sigma rule schema's validator, compiled at the first import rather than when the module
 * loads: compiling it was the largest single cost of the API's start (docs/performance.md).
 */
let validator: ReturnType<Ajv2020['compile']> | null = null;
function sigmaValidator(): ReturnType<Ajv2020['compile']> {
  if (!validator) {
    const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
    validator = ajv.compile(SIGMA_RULE_SCHEMA);
  }
  return validator;
}

const LEVELS: Record<string, Severity> = { informational: 'low', low: 'low', medium: 'medium', high: 'high', critical: 'critical' };
const STATUSES: Record<string, CodeDetectionStatus> = { experimental: 'experimental', test: 'test', stable: 'stable', deprecated: 'deprecated', unsupported: 'deprecated' };
const TECHNIQUE_TAG = /^attack\.(t\d{4}(?:\.\d{3})?)$/;

/** Schema errors as one readable sentence: `detection: must have required property 'condition'; level: must be equal to one of the allowed values (informational, low, …)`. */
function describeErrors(errors: ErrorObject[]): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const e of errors) {
    // anyOf alternatives each report their own mismatch; the anyOf line says it once.
    if (errors.some((o) => o !== e && o.keyword === 'anyOf' && e.instancePath.startsWith(o.instancePath) && e.schemaPath.startsWith(o.schemaPath.replace(/\/anyOf$/, '')) && e.schemaPath !== o.schemaPath)) continue;
    const where = e.instancePath ? e.instancePath.slice(1).replaceAll('/', '.') : 'rule';
    let what = e.message ?? 'is invalid';
    if (e.keyword === 'enum') what += ` (${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')})`;
    if (e.keyword === 'anyOf') what = 'must be a list of values or a map of fields to values';
    if (e.keyword === 'format' && (e.params as { format: string }).format === 'uuid') what = 'must be a UUID';
    const line = `${where}: ${what}`;
    if (!seen.has(line)) parts.push(line);
    seen.add(line);
  }
  return parts.slice(0, 5).join('; ');
}

function logTableOf(logsource: Record<string, unknown>): { source: string; stream: string } {
  const str = (k: string) => (typeof logsource[k] === 'string' && logsource[k] ? String(logsource[k]).slice(0, 200) : null);
  const stream = [str('category'), str('service')].filter(Boolean).join('/');
  return { source: str('product') ?? 'any', stream: stream ? stream.slice(0, 200) : 'any' };
}

function mapRule(rule: Record<string, unknown>, text: string, vocab: Vocabulary): { detection: SigmaDetection; warning?: string } | { error: string } {
  const validate = sigmaValidator();
  if (!validate(rule)) return { error: `Not a valid Sigma rule: ${describeErrors(validate.errors ?? [])}` };
  const title = String(rule.title).trim();
  if (title.length > 255) return { error: 'Not a valid Sigma rule: title: must NOT have more than 255 characters' };
  const tags = (Array.isArray(rule.tags) ? (rule.tags as string[]) : []).slice(0, 100);
  const techniques: string[] = [];
  const unknown: string[] = [];
  const tactics: string[] = [];
  for (const tag of tags) {
    const t = TECHNIQUE_TAG.exec(tag);
    if (t) {
      // An id the catalog does not know yet still counts under the id it names (issue 47 item 14).
      const id = t[1]!.toUpperCase();
      techniques.push(id);
      if (!vocab.isTechnique(id)) unknown.push(id);
    } else if (tag.startsWith('attack.')) {
      const tactic = tag.slice('attack.'.length).replaceAll('_', '-');
      if (vocab.isTactic(tactic)) tactics.push(tactic);
    }
  }
  const author = typeof rule.author === 'string' && rule.author.trim() ? `\n\nAuthor: ${rule.author.trim()}` : '';
  const detection: SigmaDetection = {
    name: title,
    ruleId: typeof rule.id === 'string' ? rule.id.toLowerCase() : null,
    description: `${typeof rule.description === 'string' ? rule.description.trim() : ''}${author}`.trim().slice(0, 10_000),
    severity: LEVELS[String(rule.level)] ?? 'medium',
    status: STATUSES[String(rule.status)] ?? 'experimental',
    tags,
    attackTechniques: [...new Set(techniques)].sort(),
    attackTactics: [...new Set(tactics)],
    logTable: logTableOf(rule.logsource as Record<string, unknown>),
    query: text.slice(0, 100_000),
  };
  return unknown.length
    ? { detection, warning: `ATT&CK technique(s) ${[...new Set(unknown)].join(', ')} unknown to the catalog${vocab.catalogVersion ? ` (v${vocab.catalogVersion})` : ''}: counted for coverage under the id named, without a name or tactic until the catalog knows it` }
    : { detection };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The rules of `content`: YAML documents separated by `---` (one rule each), or a JSON array of
 * rules (JSON is YAML, so both go through the same parser; an array document holds several rules).
 * A correlation rule and the rules it names (by `name` or `id`) are one unit: one detection whose
 * query holds all their documents (the engine runs the correlation over its base rules), named
 * by the correlation. Every rule or unit gets its index in the order given and either a
 * detection or an error.
 */
export function parseSigmaRules(content: string, vocab: Vocabulary): ParsedRule[] {
  const out: ParsedRule[] = [];
  const docs: Array<{ value: unknown; text: string } | { error: string }> = [];
  for (const doc of parseAllDocuments(content, { uniqueKeys: true })) {
    if (doc.errors.length > 0) {
      docs.push({ error: `Not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}` });
      continue;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      docs.push({ error: `Not valid YAML: ${(err as Error).message.split('\n')[0]}` });
      continue;
    }
    if (value === null || value === undefined) continue; // an empty document (a trailing `---`)
    if (Array.isArray(value)) for (const rule of value) docs.push({ value: rule, text: isRecord(rule) ? stringify(rule) : '' });
    else docs.push({ value, text: content.slice(doc.range[0], doc.range[2]).replace(/^---[^\n]*\n/, '').trim() });
  }

  // The base rules of each correlation, taken out of the list: they are imported with it.
  const rulesOf = new Map<number, number[]>();
  const consumed = new Set<number>();
  docs.forEach((d, i) => {
    if (!('value' in d) || !isRecord(d.value) || !isRecord(d.value.correlation) || 'detection' in d.value) return;
    const names = (d.value.correlation as Record<string, unknown>).rules;
    const wanted = new Set((Array.isArray(names) ? names : [names]).map(String));
    const bases = docs.flatMap((b, j) => ('value' in b && isRecord(b.value) && 'detection' in b.value && (wanted.has(String(b.value.name)) || wanted.has(String(b.value.id))) ? [j] : []));
    rulesOf.set(i, bases);
    for (const j of bases) consumed.add(j);
  });

  const room = (index: number) => {
    if (index < MAX_RULES_PER_IMPORT) return true;
    if (index === MAX_RULES_PER_IMPORT) out.push({ index, ruleId: null, title: null, error: `More than ${MAX_RULES_PER_IMPORT} rules in one import; split it` });
    return false;
  };
  docs.forEach((d, i) => {
    if (consumed.has(i)) return;
    const index = out.length;
    if (!room(index)) return;
    if ('error' in d) return out.push({ index, ruleId: null, title: null, error: d.error });
    const { value, text } = d;
    const ruleId = isRecord(value) && typeof value.id === 'string' ? value.id : null;
    const title = isRecord(value) && typeof value.title === 'string' ? value.title : null;
    if (!isRecord(value)) return out.push({ index, ruleId, title, error: 'Not a valid Sigma rule: a rule is a map of fields (title, logsource, detection, …)' });
    if (typeof value.action === 'string') return out.push({ index, ruleId, title, error: `Sigma rule collections (action: ${value.action}) are not supported: import the rules one document each` });
    const bases = rulesOf.get(i);
    if (bases) return out.push({ index, ruleId, title, ...correlationUnit(value, text, bases.map((j) => docs[j] as { value: Record<string, unknown>; text: string }), vocab) });
    if ('correlation' in value && !('detection' in value)) return out.push({ index, ruleId, title, error: 'Not a valid Sigma correlation rule: correlation must be a map (type, rules, …)' });
    const mapped = mapRule(value, text, vocab);
    if ('error' in mapped) return out.push({ index, ruleId, title, error: mapped.error });
    return out.push({ index, ruleId, title, detection: mapped.detection, ...(mapped.warning ? { warning: mapped.warning } : {}) });
  });
  return out;
}

/** A correlation with its base rules as one detection: the correlation's name, level and id; the base rules' logsource and ATT&CK. */
function correlationUnit(
  corr: Record<string, unknown>,
  text: string,
  bases: Array<{ value: Record<string, unknown>; text: string }>,
  vocab: Vocabulary,
): { detection: SigmaDetection; warning?: string } | { error: string } {
  if (bases.length === 0) return { error: 'Sigma correlation rule without its rules: the file must hold the rules it names (by name or id)' };
  if (typeof corr.title !== 'string' || !corr.title.trim()) return { error: 'Not a valid Sigma correlation rule: title: must have a value' };
  const mapped = bases.map((b) => mapRule(b.value, b.text, vocab));
  const failed = mapped.find((m): m is { error: string } => 'error' in m);
  if (failed) return { error: `A rule of the correlation: ${failed.error}` };
  const ok = mapped as Array<{ detection: SigmaDetection; warning?: string }>;
  const first = ok[0]!.detection;
  const union = (pick: (d: SigmaDetection) => string[]) => [...new Set(ok.flatMap((m) => pick(m.detection)))];
  const ownTags = Array.isArray(corr.tags) ? (corr.tags as unknown[]).map(String) : [];
  const warning = ok.map((m) => m.warning).find(Boolean);
  const detection: SigmaDetection = {
    ...first,
    name: corr.title.trim().slice(0, 255),
    ruleId: typeof corr.id === 'string' ? corr.id.toLowerCase() : null,
    description: typeof corr.description === 'string' ? corr.description.trim().slice(0, 10_000) : first.description,
    severity: LEVELS[String(corr.level)] ?? first.severity,
    tags: [...new Set([...ownTags, ...union((d) => d.tags)])].slice(0, 100),
    attackTechniques: union((d) => d.attackTechniques).sort(),
    attackTactics: union((d) => d.attackTactics),
    query: [text, ...bases.map((b) => b.text)].join('\n---\n').slice(0, 100_000),
  };
  return warning ? { detection, warning } : { detection };
}

/**
 * One Sigma rule as a detection's fields, for `rampart apply`'s `CodeDetection` documents written
 * as `spec: { sigma: <the rule> }`: the same mapping as the import, with technique ids and tactic
 * names checked by form here and against the ATT&CK catalog when the detection is written (a
 * technique the catalog does not know fails the apply, where the import would leave it out with
 * a warning: a document is exact, an import is best effort).
 */
export function sigmaDetectionOf(content: string, tactics: ReadonlySet<string>): { detection: SigmaDetection } | { error: string } {
  const rules = parseSigmaRules(content, { isTechnique: (id) => /^T\d{4}(\.\d{3})?$/.test(id), isTactic: (t) => tactics.has(t) });
  if (rules.length !== 1) return { error: `one Sigma rule per CodeDetection document (found ${rules.length})` };
  const rule = rules[0]!;
  return rule.detection ? { detection: rule.detection } : { error: rule.error ?? 'not a valid Sigma rule' };
}
