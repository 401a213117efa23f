import { truncate, type Message, type Severity } from '../message.fns.js';
import { apiBase, byStatus, isOutcome, JSON_HEADERS, post } from './http.js';
import type { Adapter, Rendered, Target } from './types.js';

/**
 * PagerDuty Events API v2: POST {apiBase}/v2/enqueue with the routing key (the destination's
 * token). An alert event triggers with `dedup_key` = the alert's id, and the alert closing
 * resolves the same key; any other event triggers with its event id. `severity` comes from
 * the alert (critical→critical, high→error, medium→warning, low/info→info), else
 * `config.severity`; `source` is `config.source`, else the detection name, else "rampart".
 * PagerDuty answers 202; 400 is an invalid event (permanent), 429 a rate limit (retried).
 */
export const PAGERDUTY_API = 'https://events.pagerduty.com';
const SEVERITY: Record<Severity, string> = { critical: 'critical', high: 'error', medium: 'warning', low: 'info', info: 'info' };

export function dedupKeyOf(m: Message): string {
  return truncate(m.alert?.id ?? m.eventId, 255, '');
}

export function renderPagerDuty(target: Target, m: Message, clientUrl: string | null): Rendered {
  const cfg = target.config as { severity: string; source?: string };
  const url = `${apiBase(target.config, PAGERDUTY_API)}/v2/enqueue`;
  const headers = { ...JSON_HEADERS };
  const dedup_key = dedupKeyOf(m);
  if (m.alert?.closed) {
    return { url, headers, body: JSON.stringify({ routing_key: target.token ?? '', event_action: 'resolve', dedup_key }) };
  }
  const custom_details: Record<string, string> = { event_type: m.eventType, event_id: m.eventId, ...(m.body ? { details: truncate(m.body, 8_000) } : {}) };
  for (const f of m.fields) custom_details[f.name.toLowerCase()] = f.value;
  const body = {
    routing_key: target.token ?? '',
    event_action: 'trigger',
    dedup_key,
    payload: {
      summary: truncate(m.title, 1024),
      source: truncate(cfg.source ?? m.alert?.detectionName ?? 'rampart', 255),
      severity: m.severity ? SEVERITY[m.severity] : cfg.severity,
      timestamp: m.occurredAt,
      ...(m.alert?.source ? { component: m.alert.source } : {}),
      class: m.eventType,
      custom_details,
    },
    client: 'Rampart',
    ...(clientUrl ? { client_url: clientUrl } : {}),
    links: m.links.map((l) => ({ href: l.url, text: l.text })),
  };
  return { url, headers, body: JSON.stringify(body) };
}

export const pagerDutyAdapter: Adapter = {
  async send(target, message, ctx) {
    if (!target.token) return { kind: 'permanent', status: null, excerpt: null, error: 'The PagerDuty destination has no routing key' };
    const res = await post(renderPagerDuty(target, message, message.links[0]?.url ?? null), target, ctx);
    if (isOutcome(res)) return res;
    const out = byStatus(res, target, 'PagerDuty');
    return out.kind === 'succeeded' ? { ...out, message: `PagerDuty ${message.alert?.closed ? 'resolved' : 'triggered'} ${dedupKeyOf(message)}` } : out;
  },
};
