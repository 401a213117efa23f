import type { OutboundEvent } from '../../platform/events.js';

/**
 * The one message model every adapter renders: what an event says, independent of product.
 * Products have size limits; `truncate` cuts at a limit and says so, so a long agent answer
 * is never refused for its size.
 */
export type Severity = 'critical' | 'high' | 'medium' | 'low' | 'info';

export interface Message {
  /** The event's idempotency id (also the webhook envelope's `id`). */
  eventId: string;
  eventType: string;
  occurredAt: string;
  organizationId: string;
  title: string;
  /** Markdown; empty when the fields say it all (structured output). */
  body: string;
  severity: Severity | null;
  links: Array<{ text: string; url: string }>;
  fields: Array<{ name: string; value: string }>;
  /** For an alert event or a triage run's output: the alert's id (PagerDuty dedup_key), its status, its detection. */
  alert?: { id: string; status: string | null; closed: boolean; source: string | null; detectionName: string | null };
  /** The event's data as recorded (the webhook envelope's `data`). */
  data: Record<string, unknown>;
}

export const TRUNCATION_MARKER = '… [truncated]';

/** At most `max` characters (UTF-16 units, no split surrogate pair), ending with the marker when cut. */
export function truncate(text: string, max: number, marker = TRUNCATION_MARKER): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - marker.length);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end) + marker;
}

/** At most `max` UTF-8 bytes, with the marker when cut (Teams counts bytes). */
export function truncateBytes(text: string, max: number, marker = TRUNCATION_MARKER): string {
  if (Buffer.byteLength(text) <= max) return text;
  const room = max - Buffer.byteLength(marker);
  let cut = Buffer.from(text).subarray(0, Math.max(0, room)).toString('utf8');
  // A multi-byte character cut in half decodes as U+FFFD: drop it.
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  return cut + marker;
}

const SEVERITIES: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'info'];
/** The alerts module's closed statuses are `closed_true_positive`, `closed_false_positive`, `closed_benign`. */
const CLOSED_STATUSES = new Set(['closed', 'resolved', 'dismissed', 'false_positive', 'done']);
const isClosed = (status: string) => CLOSED_STATUSES.has(status) || status.startsWith('closed_');

function str(v: unknown): string | null {
  return typeof v === 'string' && v.length > 0 ? v : null;
}

function severityOf(v: unknown): Severity | null {
  const s = str(v)?.toLowerCase();
  return s && (SEVERITIES as readonly string[]).includes(s) ? (s as Severity) : null;
}

/**
 * Console pages (web/src/app.tsx's routes) under RAMPART_BASE_URL: links in messages open what
 * a person reads in a browser, not `/api/...` JSON that answers 401 without a key.
 */
export const consoleLinks = {
  alert: (baseUrl: string, alertId: string) => `${baseUrl}/alerts/${encodeURIComponent(alertId)}`,
  run: (baseUrl: string, agentId: string, runId: string) => `${baseUrl}/agents/${encodeURIComponent(agentId)}/runs/${encodeURIComponent(runId)}`,
  threat: (baseUrl: string, threatId: string) => `${baseUrl}/hunt/${encodeURIComponent(threatId)}`,
};

/** How an alert's status reads after a verb ("RMP-12 escalated", "RMP-12 closed as benign"). */
const STATUS_WORDS: Record<string, string> = {
  open: 'opened',
  in_progress: 'in progress',
  escalated: 'escalated',
  closed_true_positive: 'closed as true positive',
  closed_false_positive: 'closed as false positive',
  closed_benign: 'closed as benign',
};
/** A triage run that set no verdict left the alert as it was. */
const NO_VERDICT: Record<string, string> = { open: 'left open', in_progress: 'left in progress' };
const statusWords = (status: string) => STATUS_WORDS[status] ?? status.replace(/_/g, ' ');

/** An alert status as a person reads it in a field: `in_progress` → "In progress", `closed_benign` → "Closed: benign". */
const STATUS_LABELS: Record<string, string> = {
  open: 'Open',
  in_progress: 'In progress',
  escalated: 'Escalated',
  closed_true_positive: 'Closed: true positive',
  closed_false_positive: 'Closed: false positive',
  closed_benign: 'Closed: benign',
};
export const statusLabel = (status: string) => STATUS_LABELS[status] ?? status.charAt(0).toUpperCase() + status.slice(1).replace(/_/g, ' ');

/** A structured-output value as a field value: scalars as text, lists joined, anything else as compact JSON. */
function fieldValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return '—';
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) return v.join(', ');
  return JSON.stringify(v);
}

/** `riskScore` / `risk_score` → "Risk score". */
const fieldName = (key: string) => {
  const words = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').trim().toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** Structured output as recorded: an object (since issue 26), or the JSON string older events carry. */
function structuredOf(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}

function structuredFields(structured: unknown): Message['fields'] {
  if (structured === undefined || structured === null) return [];
  if (typeof structured !== 'object' || Array.isArray(structured)) return [{ name: 'Output', value: fieldValue(structured) }];
  return Object.entries(structured as Record<string, unknown>).map(([k, v]) => ({ name: fieldName(k), value: fieldValue(v) }));
}

type AlertData = Record<string, unknown>;

/** A hunt alert is about its threat (dedupe key `hunt:<threatId>`): its message links the threat too. */
function threatIdOf(alert: AlertData): string | null {
  const key = str(alert.dedupeKey);
  return str(alert.createdBy) === 'hunt' && key?.startsWith('hunt:') ? key.slice(5) : null;
}

function alertLinks(alert: AlertData, id: string, baseUrl: string): Message['links'] {
  const threatId = threatIdOf(alert);
  return [{ text: `Alert ${str(alert.displayId) ?? ''}`.trim(), url: consoleLinks.alert(baseUrl, id) }, ...(threatId ? [{ text: 'Threat', url: consoleLinks.threat(baseUrl, threatId) }] : [])];
}

function alertSummary(alert: AlertData, fallbackId: string) {
  const id = str(alert.id) ?? fallbackId;
  const status = str(alert.status);
  const detectionName = str(alert.detectionName) ?? str((alert.detection as Record<string, unknown> | undefined)?.name);
  const src = alert.source as { name?: unknown } | string | undefined;
  const source = typeof src === 'object' && src !== null ? str(src.name) : str(src);
  return { id, status, closed: status !== null && isClosed(status), source, detectionName };
}

/**
 * Bidirectional embedding and override controls (U+202A–U+202E) and isolates (U+2066–U+2069):
 * `invoice\u202Efdp.exe` displays as `invoiceexe.pdf`. Alert titles, agent names and every other
 * text of a message come from senders, so each is shown with a visible U+FFFD in their place.
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
export const neutraliseBidi = (text: string) => text.replace(BIDI_CONTROLS, '\uFFFD');

/** The message with every text neutralised (the webhook envelope's `data` stays as recorded). */
function neutralised(m: Message): Message {
  return {
    ...m,
    title: neutraliseBidi(m.title),
    body: neutraliseBidi(m.body),
    fields: m.fields.map((f) => ({ name: neutraliseBidi(f.name), value: neutraliseBidi(f.value) })),
    links: m.links.map((l) => ({ text: neutraliseBidi(l.text), url: l.url })),
  };
}

/**
 * Builds the message of an event. `baseUrl` (RAMPART_BASE_URL) makes links to console pages;
 * `links` holds only those (Rampart's own): the texts are the sender's and each adapter escapes
 * them for its product, so no link or mention inside them is live.
 */
export function messageOf(event: OutboundEvent, baseUrl: string): Message {
  return neutralised(rawMessageOf(event, baseUrl));
}

function rawMessageOf(event: OutboundEvent, baseUrl: string): Message {
  const d = event.data;
  const base = { eventId: event.id, eventType: event.type, occurredAt: event.occurredAt, organizationId: event.organizationId, data: d, links: [] as Message['links'], fields: [] as Message['fields'] };
  if (event.type === 'agent_run.completed' || event.type === 'agent.message') {
    const runId = str(d.runId);
    const agentId = str(d.agentId);
    const agentName = str(d.agentName) ?? 'An agent';
    const structured = structuredOf(d.structuredOutputResult);
    const answer = str(d.message) ?? str(d.finalAssistantMessage) ?? '';
    // With a schema the final answer is the structured output's JSON: shown once, as fields.
    const body = structured !== undefined && structured !== null && sameJson(answer, structured) ? '' : answer;
    const alert = d.alert && typeof d.alert === 'object' ? (d.alert as AlertData) : null;
    const links = runId && agentId ? [{ text: 'Run', url: consoleLinks.run(baseUrl, agentId, runId) }] : [];
    if (alert && event.type === 'agent_run.completed') {
      // A triage run: the message is its verdict on the alert (the alert's status when the run ended).
      const summary = alertSummary(alert, event.id);
      const displayId = str(alert.displayId) ?? summary.id;
      const verdict = summary.status ? (NO_VERDICT[summary.status] ?? statusWords(summary.status)) : 'triaged';
      const title = `${displayId} ${verdict} by ${agentName}: ${str(alert.title) ?? ''}`.replace(/: $/, '');
      const fields = [
        { name: 'Alert', value: displayId },
        { name: 'Alert status', value: verdict },
        ...(severityOf(alert.severity) ? [{ name: 'Severity', value: String(alert.severity) }] : []),
        { name: 'Agent', value: agentName },
        ...structuredFields(structured),
      ];
      return { ...base, title, body, severity: severityOf(alert.severity), fields, links: [...alertLinks(alert, summary.id, baseUrl), ...links], alert: summary };
    }
    const title = str(d.title) ?? (event.type === 'agent.message' ? `Message from ${str(d.agentName) ? `agent ${agentName}` : 'an agent'}` : `${agentName} finished a run`);
    const output = structuredFields(structured);
    const fields = [...(str(d.agentName) ? [{ name: 'Agent', value: agentName }] : []), ...output];
    return { ...base, title, body: body || (output.length ? '' : '(no output)'), severity: severityOf(d.severity), fields, links };
  }
  if (event.type.startsWith('alert.')) {
    const alert = (d.alert && typeof d.alert === 'object' ? d.alert : d) as AlertData;
    const summary = alertSummary(alert, event.id);
    const displayId = str(alert.displayId);
    const title = str(alert.title) ?? `Alert ${displayId ?? summary.id}`;
    const fields = [
      ...(summary.status ? [{ name: 'Status', value: statusLabel(summary.status) }] : []),
      ...(severityOf(alert.severity) ? [{ name: 'Severity', value: String(alert.severity) }] : []),
      ...(summary.source ? [{ name: 'Source', value: summary.source }] : []),
      ...(summary.detectionName ? [{ name: 'Detection', value: summary.detectionName }] : []),
      ...(displayId ? [{ name: 'Alert', value: displayId }] : []),
    ];
    const who = displayId ?? 'Alert';
    const heading = event.type === 'alert.created'
      ? `New alert${displayId ? ` ${displayId}` : ''}`
      : event.type === 'alert.updated'
        ? `${who} ${severityOf(alert.severity) ? `is now ${String(alert.severity)}` : 'updated'}`
        : `${who} ${summary.status ? statusWords(summary.status) : 'updated'}`;
    const reason = str(d.reason);
    return {
      ...base,
      title: `${heading}: ${title}`,
      body: (event.type === 'alert.created' ? null : reason) ?? str(alert.description) ?? str(alert.summary) ?? title,
      severity: severityOf(alert.severity),
      fields,
      links: alertLinks(alert, summary.id, baseUrl),
      alert: summary,
    };
  }
  if (event.type === 'approval.requested') {
    // A tool call waiting for a person (docs/approvals.md): every product carries the link to the request in the console.
    const toolName = str(d.toolName) ?? 'a tool';
    const url = str(d.approvalUrl);
    const fields = [
      { name: 'Tool', value: toolName },
      { name: 'Arguments', value: JSON.stringify(d.args ?? null).slice(0, 1900) },
      ...(str(d.agentName) ? [{ name: 'Agent', value: String(d.agentName) }] : []),
      ...(str(d.expiresAt) ? [{ name: 'Expires', value: String(d.expiresAt) }] : []),
    ];
    const runLink = str(d.runId) && str(d.agentId) ? [{ text: 'Run', url: consoleLinks.run(baseUrl, String(d.agentId), String(d.runId)) }] : [];
    return {
      ...base,
      title: `Approval needed: ${str(d.agentName) ?? 'an agent'} wants to call ${toolName}`,
      body: str(d.reason) ?? '',
      severity: 'high',
      fields,
      links: [...(url ? [{ text: 'Review the request', url }] : []), ...runLink],
    };
  }
  // Anything else (a test message, future event types): its title/message if any, else the data.
  return {
    ...base,
    title: str(d.title) ?? event.type,
    body: str(d.message) ?? `\`\`\`json\n${JSON.stringify(d, null, 2)}\n\`\`\``,
    severity: severityOf(d.severity),
  };
}

/** Whether `text` is the JSON of `value` (the final answer of a run with a schema). */
function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(normalisedJson(JSON.parse(text))) === JSON.stringify(normalisedJson(value));
  } catch {
    return false;
  }
}

/**
 * The one form both sides of `sameJson` are compared in: object keys sorted, and properties whose
 * value is null left out. Optional properties are sent to the model as nullable-required (strict
 * structured output), so its answer says `"note": null` where the stored result has no `note`:
 * the same output, shown once (as fields).
 */
export function normalisedJson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalisedJson);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== null).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, x]) => [k, normalisedJson(x)]));
}

/** Markdown of the whole message (title excluded): body, then fields and links as lists. */
export function markdownOf(m: Message): string {
  const parts = m.body ? [m.body] : [];
  if (m.fields.length) parts.push(m.fields.map((f) => `- **${f.name}:** ${f.value}`).join('\n'));
  if (m.links.length) parts.push(m.links.map((l) => `[${l.text}](${l.url})`).join(' · '));
  return parts.join('\n\n');
}
