import { createHmac } from 'node:crypto';
import type { Message } from '../message.fns.js';
import { byStatus, isOutcome, JSON_HEADERS, post } from './http.js';
import type { Adapter, Rendered, Target } from './types.js';

/**
 * Generic webhook: POST `{id, type, occurredAt, organizationId, data}` with the token as
 * `Authorization: Bearer` or in `headerName`, plus Standard Webhooks headers
 * (https://www.standardwebhooks.com): `webhook-id` (the event id, the same on every retry and
 * redelivery), `webhook-timestamp` (Unix seconds of this attempt) and, when a token is stored,
 * `webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`. The key is the
 * token: a `whsec_…` token is a Standard Webhooks secret (its base64 part, decoded), any
 * other token is used as its UTF-8 bytes.
 */
export function signingKey(token: string): Buffer {
  return token.startsWith('whsec_') ? Buffer.from(token.slice(6), 'base64') : Buffer.from(token, 'utf8');
}

export function sign(token: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', signingKey(token)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export function renderWebhook(target: Target, m: Message, now: Date): Rendered {
  const body = JSON.stringify({ id: m.eventId, type: m.eventType, occurredAt: m.occurredAt, organizationId: m.organizationId, data: m.data });
  const timestamp = Math.floor(now.getTime() / 1000);
  const headers: Record<string, string> = { ...JSON_HEADERS, 'webhook-id': m.eventId, 'webhook-timestamp': String(timestamp) };
  const cfg = target.config as { url: string; authType?: string; headerName?: string };
  if (target.token) {
    headers['webhook-signature'] = sign(target.token, m.eventId, timestamp, body);
    if (cfg.authType === 'header' && cfg.headerName) headers[cfg.headerName.toLowerCase()] = target.token;
    else headers.authorization = `Bearer ${target.token}`;
  }
  return { url: cfg.url, headers, body };
}

export const webhookAdapter: Adapter = {
  async send(target, message, ctx) {
    const res = await post(renderWebhook(target, message, ctx.now?.() ?? new Date()), target, ctx);
    return isOutcome(res) ? res : byStatus(res, target, 'The webhook receiver');
  },
};
