import { header, type Headers, type WebhookSource } from './signatures.fns.js';

/**
 * Pure decisions of webhook intake: which delivery id identifies a request (for dedupe), which
 * events are ignored, how form bodies decode.
 */

/**
 * Delivery id headers, in order of preference. The first present names the delivery; the key is
 * prefixed with the header so ids of different schemes never collide.
 */
const DELIVERY_HEADERS = [
  'linear-delivery',
  'x-github-delivery',
  'webhook-id',
  'x-h1-delivery',
  'x-atlassian-webhook-identifier',
  'idempotency-key',
  'x-delivery-id',
] as const;

const MAX_KEY_LENGTH = 300;

export function deliveryKeyOf(source: WebhookSource, headers: Headers, body: unknown): string | null {
  // Slack retries (X-Slack-Retry-Num) repeat the same event_id.
  if (source === 'slack') {
    const eventId = (body as { event_id?: unknown } | null)?.event_id;
    if (typeof eventId === 'string' && eventId) return `slack:${eventId}`.slice(0, MAX_KEY_LENGTH);
  }
  for (const name of DELIVERY_HEADERS) {
    const value = header(headers, name)?.trim();
    if (value) return `${name}:${value}`.slice(0, MAX_KEY_LENGTH);
  }
  return null;
}

export type SlackDecision = { kind: 'challenge'; challenge: string } | { kind: 'ignore'; message: string } | { kind: 'run' };

/** Slack's URL handshake, and messages posted by bots (including our own replies: no loops). */
export function slackDecision(body: unknown): SlackDecision {
  if (!body || typeof body !== 'object') return { kind: 'run' };
  const b = body as { type?: unknown; challenge?: unknown; event?: { bot_id?: unknown; subtype?: unknown } };
  if (b.type === 'url_verification' && typeof b.challenge === 'string') return { kind: 'challenge', challenge: b.challenge };
  const event = b.event;
  if (event && typeof event === 'object' && (event.bot_id || event.subtype === 'bot_message')) {
    return { kind: 'ignore', message: 'Ignored: the event was posted by a bot' };
  }
  return { kind: 'run' };
}

/**
 * `application/x-www-form-urlencoded` → an object (repeated keys become arrays). Slack's
 * interactivity posts `payload=<JSON>`: that JSON is the body.
 */
export function decodeForm(raw: string): Record<string, unknown> {
  const params = new URLSearchParams(raw);
  const out: Record<string, unknown> = {};
  for (const [k, v] of params) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  const keys = Object.keys(out);
  if (keys.length === 1 && typeof out.payload === 'string') {
    try {
      const parsed: unknown = JSON.parse(out.payload);
      if (parsed && typeof parsed === 'object') return parsed as Record<string, unknown>;
    } catch {
      // Not JSON: keep the form as it is.
    }
  }
  return out;
}
