import { readPointer } from '../alerts/index.js';
import type { TriggerContextT } from '../runs/index.js';
import { header, type Headers, type WebhookSource } from './signatures.fns.js';

/**
 * Pure decisions of webhook intake: which delivery id identifies a request (for dedupe), what
 * the run learns of the delivery (trigger context), how inputs are mapped from the payload,
 * which events are ignored, how form bodies decode.
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

/** A delivery's id as the sender gave it, and the dedupe key made of it (prefixed by where it came from). */
export interface DeliveryId {
  id: string;
  key: string;
}

const deliveryId = (scheme: string, id: string): DeliveryId => ({ id: id.slice(0, MAX_KEY_LENGTH), key: `${scheme}:${id}`.slice(0, MAX_KEY_LENGTH) });

/**
 * Slack's `event_id`, else the first delivery header present, else (senders that send no
 * delivery header, e.g. AWS GuardDuty through EventBridge) the string or number the trigger's
 * `deliveryIdPointer` names in the payload.
 */
export function deliveryIdOf(source: WebhookSource, headers: Headers, body: unknown, payloadPointer: string | null = null): DeliveryId | null {
  // Slack retries (X-Slack-Retry-Num) repeat the same event_id.
  if (source === 'slack') {
    const eventId = (body as { event_id?: unknown } | null)?.event_id;
    if (typeof eventId === 'string' && eventId) return deliveryId('slack', eventId);
  }
  for (const name of DELIVERY_HEADERS) {
    const value = header(headers, name)?.trim();
    if (value) return deliveryId(name, value);
  }
  if (payloadPointer !== null) {
    const value = readPointer(body, payloadPointer);
    const id = typeof value === 'string' ? value.trim() : typeof value === 'number' && Number.isFinite(value) ? String(value) : '';
    if (id) return deliveryId('payload', id);
  }
  return null;
}

/** Where senders name the kind of event (GitHub, GitLab, Bitbucket/Jira, Linear, HackerOne, generic), in order of preference. */
const EVENT_TYPE_HEADERS = ['x-github-event', 'x-gitlab-event', 'x-event-key', 'linear-event', 'x-linear-event', 'x-h1-event', 'x-event-type'] as const;

/**
 * Headers kept with the run and shown to the model: descriptive ones only. Credentials and
 * signatures (authorization, x-rampart-secret, *-signature, x-hub-signature*, cookies) never
 * are, whatever the sender puts in them.
 */
const CONTEXT_HEADERS = new Set<string>([
  ...EVENT_TYPE_HEADERS,
  ...DELIVERY_HEADERS,
  'content-type',
  'user-agent',
  'x-github-hook-id',
  'x-github-hook-installation-target-id',
  'x-github-hook-installation-target-type',
  'x-gitlab-instance',
  'x-gitlab-event-uuid',
  'x-gitlab-webhook-uuid',
  'x-atlassian-webhook-flow',
  'x-atlassian-webhook-retry',
  'x-slack-retry-num',
  'x-slack-retry-reason',
  'x-amz-sns-message-type',
  'x-amz-sns-topic-arn',
  'x-request-id',
]);
const MAX_HEADER_VALUE = 500;

export function triggerContextOf(source: WebhookSource, headers: Headers, delivery: DeliveryId | null, receivedAt: Date): TriggerContextT {
  const kept: Record<string, string> = {};
  // Node gives header names in lower case.
  for (const name of Object.keys(headers).filter((n) => CONTEXT_HEADERS.has(n)).sort()) {
    const value = header(headers, name);
    if (value !== undefined) kept[name] = value.slice(0, MAX_HEADER_VALUE);
  }
  const eventType = EVENT_TYPE_HEADERS.map((h) => kept[h]?.trim()).find((v) => !!v) ?? null;
  return { source, deliveryId: delivery?.id ?? null, eventType, headers: kept, receivedAt: receivedAt.toISOString() };
}

/**
 * The run input of a delivery: the payload as received (the API spec's "Events"; docs/triggers.md), with each input the trigger's
 * `inputMapping` finds in it set at the top level (a payload that is not an object is kept under
 * `payload`). Inputs whose pointer leads nowhere are left out, so the agent's required-input
 * check can say which are missing.
 */
export function mappedInput(body: unknown, mapping: Record<string, string> | null): unknown {
  if (!mapping || !Object.keys(mapping).length) return body;
  const mapped: Record<string, unknown> = {};
  for (const [name, pointer] of Object.entries(mapping)) {
    const value = readPointer(body, pointer);
    if (value !== undefined) mapped[name] = value;
  }
  const isObject = body !== null && typeof body === 'object' && !Array.isArray(body);
  return isObject ? { ...(body as Record<string, unknown>), ...mapped } : { payload: body, ...mapped };
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
