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
  /** Markdown. */
  body: string;
  severity: Severity | null;
  links: Array<{ text: string; url: string }>;
  fields: Array<{ name: string; value: string }>;
  /** For an alert event: the alert's id (PagerDuty dedup_key), its status, its detection. */
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

/** Builds the message of an event. `baseUrl` makes links to the run or alert. */
export function messageOf(event: OutboundEvent, baseUrl: string): Message {
  const d = event.data;
  const base = { eventId: event.id, eventType: event.type, occurredAt: event.occurredAt, organizationId: event.organizationId, data: d, links: [] as Message['links'], fields: [] as Message['fields'] };
  if (event.type === 'agent_run.completed' || event.type === 'agent.message') {
    const runId = str(d.runId);
    const agentName = str(d.agentName);
    const structured = d.structuredOutputResult;
    let body = str(d.message) ?? str(d.finalAssistantMessage) ?? '';
    if (structured !== undefined && structured !== null) body += `${body ? '\n\n' : ''}\`\`\`json\n${JSON.stringify(structured, null, 2)}\n\`\`\``;
    const title = str(d.title) ?? (event.type === 'agent.message' ? `Message from ${agentName ? `agent ${agentName}` : 'an agent'}` : `Agent ${agentName ?? str(d.agentId) ?? ''} finished a run`.replace('  ', ' '));
    const fields = [
      ...(agentName ? [{ name: 'Agent', value: agentName }] : []),
      ...(runId ? [{ name: 'Run', value: runId }] : []),
    ];
    const links = runId ? [{ text: 'Run', url: `${baseUrl}/api/agent-runs/${runId}` }] : [];
    return { ...base, title, body: body || '(no output)', severity: severityOf(d.severity), fields, links };
  }
  if (event.type.startsWith('alert.')) {
    const alert = (d.alert && typeof d.alert === 'object' ? d.alert : d) as Record<string, unknown>;
    const id = str(alert.id) ?? event.id;
    const status = str(alert.status) ?? str(d.status);
    const detectionName = str(alert.detectionName) ?? str((alert.detection as Record<string, unknown> | undefined)?.name);
    const src = alert.source as { name?: unknown } | string | undefined;
    const source = typeof src === 'object' && src !== null ? str(src.name) : str(src);
    const displayId = str(alert.displayId);
    const title = str(alert.title) ?? `Alert ${displayId ?? id}`;
    const fields = [
      ...(status ? [{ name: 'Status', value: status }] : []),
      ...(severityOf(alert.severity) ? [{ name: 'Severity', value: String(alert.severity) }] : []),
      ...(source ? [{ name: 'Source', value: source }] : []),
      ...(detectionName ? [{ name: 'Detection', value: detectionName }] : []),
      ...(displayId ? [{ name: 'Alert', value: displayId }] : []),
    ];
    const prefix = event.type === 'alert.created' ? 'New alert' : `Alert ${status?.replace(/_/g, ' ') ?? 'updated'}`;
    return {
      ...base,
      title: `${prefix}: ${title}`,
      body: str(alert.description) ?? str(alert.summary) ?? title,
      severity: severityOf(alert.severity),
      fields,
      links: [{ text: 'Alert', url: `${baseUrl}/api/alerts/${id}` }],
      alert: { id, status, closed: status !== null && isClosed(status), source, detectionName },
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

/** Markdown of the whole message (title excluded): body, then fields and links as lists. */
export function markdownOf(m: Message): string {
  const parts = [m.body];
  if (m.fields.length) parts.push(m.fields.map((f) => `- **${f.name}:** ${f.value}`).join('\n'));
  if (m.links.length) parts.push(m.links.map((l) => `[${l.text}](${l.url})`).join(' · '));
  return parts.join('\n\n');
}
