import type { AlertSeverity } from './alerts.tables.js';
import { normalizeSeverity } from './alerts.fns.js';

/**
 * What an alert created by a trigger says, read from the sender's payload: per source, the
 * fields its webhooks document (Jira issue key and browse URL, Linear issue identifier and URL,
 * HackerOne/Bugcrowd report ids, Darktrace model breaches, GuardDuty and Security Hub findings
 * through the generic webhook, …), then the per-trigger mapping of JSON pointers, which wins.
 */
export interface AlertFields {
  title: string;
  description: string;
  severity: AlertSeverity;
  externalProvider: string | null;
  externalRef: string | null;
  externalUrl: string | null;
  dedupeKey: string | null;
}

/** Fields a trigger's `alertMapping` may point at, each an RFC 6901 JSON pointer into the payload. */
export const MAPPABLE_FIELDS = ['title', 'description', 'severity', 'externalRef', 'externalUrl', 'dedupeKey'] as const;
export type AlertMapping = Partial<Record<(typeof MAPPABLE_FIELDS)[number], string>>;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : null);
const at = (root: unknown, ...path: (string | number)[]): unknown => path.reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Obj)[k as string] : undefined), root);
const first = (...values: unknown[]): string | null => values.map(str).find((v) => v !== null) ?? null;

/** RFC 6901: `/a/b/0`, with `~1` for `/` and `~0` for `~`. Undefined when the pointer leads nowhere. */
export function readPointer(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  if (!pointer.startsWith('/')) return undefined;
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((v, k) => (v !== null && typeof v === 'object' && Object.hasOwn(v as Obj, k) ? (v as Obj)[k] : undefined), root);
}

export function isJsonPointer(value: string): boolean {
  return value === '' || /^(\/([^~]|~[01])*)+$/.test(value);
}

function originOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

type Partial_ = Partial<AlertFields> & { severityRaw?: unknown };

function jira(body: unknown): Partial_ {
  const issue = obj(at(body, 'issue'));
  const key = str(issue?.key);
  const origin = originOf(str(issue?.self));
  return {
    title: first(at(issue, 'fields', 'summary')) ?? undefined,
    description: first(at(issue, 'fields', 'description')) ?? undefined,
    severityRaw: at(issue, 'fields', 'priority', 'name'),
    externalProvider: 'jira',
    externalRef: key,
    externalUrl: key && origin ? `${origin}/browse/${key}` : null,
    dedupeKey: key ? `jira:${key}` : null,
  };
}

const LINEAR_PRIORITY: Record<number, AlertSeverity> = { 1: 'critical', 2: 'high', 3: 'medium', 4: 'low' };
function linear(body: unknown): Partial_ {
  const data = obj(at(body, 'data'));
  const ref = first(data?.identifier, data?.id);
  const priority = typeof data?.priority === 'number' ? LINEAR_PRIORITY[data.priority] : undefined;
  return {
    title: first(data?.title) ?? undefined,
    description: first(data?.description) ?? undefined,
    severityRaw: priority,
    externalProvider: 'linear',
    externalRef: ref,
    externalUrl: first(data?.url, at(body, 'url')),
    dedupeKey: first(data?.id) ? `linear:${first(data?.id)}` : null,
  };
}

function hackerone(body: unknown): Partial_ {
  const report = obj(at(body, 'data', 'report'));
  const id = first(report?.id);
  return {
    title: first(at(report, 'attributes', 'title')) ?? undefined,
    description: first(at(report, 'attributes', 'vulnerability_information')) ?? undefined,
    severityRaw: at(report, 'relationships', 'severity', 'data', 'attributes', 'rating'),
    externalProvider: 'hackerone',
    externalRef: id,
    externalUrl: id ? `https://hackerone.com/reports/${id}` : null,
    dedupeKey: id ? `hackerone:${id}` : null,
  };
}

const BUGCROWD_PRIORITY: Record<string, AlertSeverity> = { '1': 'critical', '2': 'high', '3': 'medium', '4': 'low', '5': 'low' };
function bugcrowd(body: unknown): Partial_ {
  const data = obj(at(body, 'data'));
  const id = first(data?.id, at(body, 'submission', 'id'));
  const priority = first(at(data, 'attributes', 'severity'), at(body, 'submission', 'priority'));
  return {
    title: first(at(data, 'attributes', 'title'), at(body, 'submission', 'title')) ?? undefined,
    description: first(at(data, 'attributes', 'description'), at(body, 'submission', 'description')) ?? undefined,
    severityRaw: priority ? (BUGCROWD_PRIORITY[priority.replace(/^p/i, '')] ?? priority) : undefined,
    externalProvider: 'bugcrowd',
    externalRef: id,
    externalUrl: first(at(data, 'links', 'self'), at(body, 'submission', 'url')) ?? (id ? `https://tracker.bugcrowd.com/submissions/${id}` : null),
    dedupeKey: id ? `bugcrowd:${id}` : null,
  };
}

function darktrace(body: unknown): Partial_ {
  const pbid = first(at(body, 'pbid'), at(body, 'id'));
  const score = at(body, 'score');
  const host = first(at(body, 'device', 'hostname'), at(body, 'device', 'ip'));
  return {
    title: first(at(body, 'model', 'name'), at(body, 'title')) ?? undefined,
    description: host ? `Model breach on ${host}` : undefined,
    // Darktrace scores are 0..1; ×10 puts them on the usual 0..10 scale.
    severityRaw: typeof score === 'number' ? score * 10 : undefined,
    externalProvider: 'darktrace',
    externalRef: pbid,
    externalUrl: first(at(body, 'breachUrl'), at(body, 'url')),
    dedupeKey: pbid ? `darktrace:${pbid}` : null,
  };
}

/** A generic sender: EventBridge findings (GuardDuty, Security Hub) first, then common field names. */
function generic(body: unknown): Partial_ {
  const detail = obj(at(body, 'detail'));
  const finding = obj(at(detail, 'findings', 0));
  if (finding) {
    const id = first(finding.Id);
    return {
      title: first(finding.Title) ?? undefined,
      description: first(finding.Description) ?? undefined,
      severityRaw: at(finding, 'Severity', 'Label') ?? at(finding, 'Severity', 'Normalized'),
      externalProvider: 'aws-securityhub',
      externalRef: id,
      externalUrl: null,
      dedupeKey: id ? `securityhub:${id}` : null,
    };
  }
  if (detail && str(at(body, 'source')) === 'aws.guardduty') {
    const id = first(detail.id);
    return {
      title: first(detail.title) ?? undefined,
      description: first(detail.description) ?? undefined,
      severityRaw: detail.severity,
      externalProvider: 'aws-guardduty',
      externalRef: id,
      externalUrl: null,
      dedupeKey: id ? `guardduty:${id}` : null,
    };
  }
  const o = obj(body) ?? {};
  const id = first(o.id, o.alert_id, o.alertId, o.uuid, o.event_id);
  return {
    title: first(o.title, o.name, o.summary, o.subject, o.rule_name, o.ruleName, o.alert_name) ?? undefined,
    description: first(o.description, o.message, o.details, o.body, o.text) ?? undefined,
    severityRaw: o.severity ?? o.priority ?? o.level,
    externalProvider: null,
    externalRef: id,
    externalUrl: first(o.url, o.link, o.html_url, o.permalink),
    dedupeKey: null,
  };
}

const EXTRACTORS: Record<string, (body: unknown) => Partial_> = {
  jira,
  'jira-automation': jira,
  linear,
  hackerone,
  bugcrowd,
  darktrace,
};

const TITLE_MAX = 500;
const DESCRIPTION_MAX = 20_000;

export function alertFieldsFromPayload(source: string, body: unknown, mapping: AlertMapping | null, triggerName: string): AlertFields {
  const found = (EXTRACTORS[source] ?? generic)(body);
  const mapped = (field: keyof AlertMapping): unknown => (mapping?.[field] !== undefined ? readPointer(body, mapping[field]!) : undefined);
  const title = first(mapped('title'), found.title) ?? `${triggerName || source} alert`;
  const ref = first(mapped('externalRef'), found.externalRef);
  // The per-sender key (`guardduty:<id>`) is the same with or without a mapping: only a value
  // the mapped pointer finds replaces it, prefixed with the trigger source. Adding a mapping
  // must not reopen every finding that is already counted on an open alert.
  const mappedKey = first(mapped('dedupeKey'));
  return {
    title: title.slice(0, TITLE_MAX),
    description: (first(mapped('description'), found.description) ?? '').slice(0, DESCRIPTION_MAX),
    severity: normalizeSeverity(mapped('severity')) ?? normalizeSeverity(found.severityRaw) ?? 'medium',
    externalProvider: found.externalProvider ?? null,
    externalRef: ref,
    externalUrl: first(mapped('externalUrl'), found.externalUrl),
    dedupeKey: mappedKey ? `${source}:${mappedKey}` : (found.dedupeKey ?? null),
  };
}

/** Sources whose deliveries create an alert unless the trigger says otherwise. */
const CREATE_ALERT_BY_DEFAULT = new Set(['webhook', 'jira', 'jira-automation', 'linear', 'bugcrowd', 'hackerone', 'zscaler', 'darktrace']);

export function createsAlertByDefault(source: string): boolean {
  return CREATE_ALERT_BY_DEFAULT.has(source);
}
