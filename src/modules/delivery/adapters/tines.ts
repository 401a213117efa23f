import { markdownOf, truncate, type Message, type Severity } from '../message.fns.js';
import { apiBase, byStatus, isOutcome, JSON_HEADERS, post } from './http.js';
import type { Adapter, Rendered, Target } from './types.js';

/**
 * Tines: create a case in `teamId` with POST {tenant}/api/v2/cases and `Authorization:
 * Bearer <API key>`. The tenant is a documented extension of the config: `config.tenantUrl`
 * (e.g. https://acme.tines.com), or `config.apiBaseUrl` (a gateway in front of it).
 */
const PRIORITY: Record<Severity, string> = { critical: 'critical', high: 'high', medium: 'medium', low: 'low', info: 'info' };

export function tinesBase(config: Record<string, unknown>): string | null {
  const tenant = typeof config.tenantUrl === 'string' ? config.tenantUrl : null;
  const base = apiBase(config, tenant ?? '');
  return base || null;
}

export function renderTines(target: Target, m: Message, base: string): Rendered {
  const cfg = target.config as { teamId: string };
  const body = {
    team_id: Number(cfg.teamId),
    name: truncate(m.title, 255),
    description: truncate(markdownOf(m), 50_000),
    ...(m.severity ? { priority: PRIORITY[m.severity] } : {}),
    status: 'open',
    opened_at: m.occurredAt,
    metadata: { rampart_event_id: m.eventId, rampart_event_type: m.eventType, ...(m.alert ? { rampart_alert_id: m.alert.id } : {}) },
  };
  return { url: `${base}/api/v2/cases`, headers: { ...JSON_HEADERS, authorization: `Bearer ${target.token ?? ''}` }, body: JSON.stringify(body) };
}

export const tinesAdapter: Adapter = {
  async send(target, message, ctx) {
    if (!target.token) return { kind: 'permanent', status: null, excerpt: null, error: 'The Tines destination has no API key' };
    const base = tinesBase(target.config);
    if (!base) return { kind: 'permanent', status: null, excerpt: null, error: 'The Tines destination has no tenantUrl (e.g. https://your-tenant.tines.com)' };
    const res = await post(renderTines(target, message, base), target, ctx);
    if (isOutcome(res)) return res;
    return byStatus(res, target, 'Tines');
  },
};
