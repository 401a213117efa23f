import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Sender signing schemes of incoming trigger webhooks, as pure functions over the RAW body
 * bytes (re-serialising parsed JSON changes bytes and breaks every HMAC).
 *
 * Each verifier returns `null` when its headers are absent (the scheme was not used), else a
 * verdict. Comparisons are constant-time on equal-length buffers; a length difference (a
 * truncated or padded signature) is a mismatch without comparing bytes, which leaks only the
 * length of a public digest format.
 */
export const REPLAY_WINDOW_MS = 5 * 60 * 1000;

export type Verdict = { ok: true; scheme: SchemeName } | { ok: false; scheme: SchemeName; reason: 'mismatch' | 'stale' | 'malformed' };
export type SchemeName = 'slack' | 'linear' | 'hackerone' | 'hub' | 'standard-webhooks' | 'bugcrowd';

export type Headers = Record<string, string | string[] | undefined>;

export interface SignedRequest {
  /** Lower-case header names (as Node gives them). */
  headers: Headers;
  rawBody: Buffer;
  /** The parsed body (Linear signs a timestamp that travels inside it). */
  body?: unknown;
  /** Current time in ms since the epoch. */
  now: number;
}

export function header(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export function hmacSha256(key: Buffer | string, ...parts: Array<Buffer | string>): Buffer {
  const h = createHmac('sha256', key);
  for (const p of parts) h.update(p);
  return h.digest();
}

/** Constant-time equality of two byte strings; different lengths are simply unequal. */
export function safeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && a.length > 0 && timingSafeEqual(a, b);
}

const HEX64 = /^[0-9a-fA-F]{64}$/;
function hex64(value: string | undefined): Buffer | null {
  return value !== undefined && HEX64.test(value) ? Buffer.from(value, 'hex') : null;
}

/** `now` against a sender timestamp in ms: inside the replay window on either side. */
export function fresh(timestampMs: number, now: number, windowMs = REPLAY_WINDOW_MS): boolean {
  return Number.isFinite(timestampMs) && Math.abs(now - timestampMs) <= windowMs;
}

function secondsTimestamp(value: string | undefined): number | null {
  return value !== undefined && /^\d{1,12}$/.test(value) ? Number(value) * 1000 : null;
}

/** Slack: `X-Slack-Signature: v0=hex(HMAC(secret, "v0:" + ts + ":" + body))`, `X-Slack-Request-Timestamp` in s. */
export function verifySlack(req: SignedRequest, key: string): Verdict | null {
  const sig = header(req.headers, 'x-slack-signature');
  if (sig === undefined) return null;
  const scheme = 'slack';
  const ts = header(req.headers, 'x-slack-request-timestamp');
  const tsMs = secondsTimestamp(ts);
  const given = sig.startsWith('v0=') ? hex64(sig.slice(3)) : null;
  if (tsMs === null || !given) return { ok: false, scheme, reason: 'malformed' };
  if (!fresh(tsMs, req.now)) return { ok: false, scheme, reason: 'stale' };
  const expected = hmacSha256(key, `v0:${ts}:`, req.rawBody);
  return safeEqual(given, expected) ? { ok: true, scheme } : { ok: false, scheme, reason: 'mismatch' };
}

/** Linear: `Linear-Signature: hex(HMAC(secret, body))`; the body's `webhookTimestamp` (ms) must be fresh. */
export function verifyLinear(req: SignedRequest, key: string): Verdict | null {
  const sig = header(req.headers, 'linear-signature');
  if (sig === undefined) return null;
  const scheme = 'linear';
  const given = hex64(sig);
  if (!given) return { ok: false, scheme, reason: 'malformed' };
  const expected = hmacSha256(key, req.rawBody);
  if (!safeEqual(given, expected)) return { ok: false, scheme, reason: 'mismatch' };
  // Checked after the signature: the timestamp is only trustworthy once the body is authentic.
  const ts = (req.body as { webhookTimestamp?: unknown } | null | undefined)?.webhookTimestamp;
  if (typeof ts !== 'number') return { ok: false, scheme, reason: 'malformed' };
  return fresh(ts, req.now) ? { ok: true, scheme } : { ok: false, scheme, reason: 'stale' };
}

/** HackerOne: `X-H1-Signature: sha256=hex(HMAC(secret, body))` (no timestamp; replays are caught by `X-H1-Delivery`). */
export function verifyHackerOne(req: SignedRequest, key: string): Verdict | null {
  const sig = header(req.headers, 'x-h1-signature');
  if (sig === undefined) return null;
  return prefixedHex('hackerone', sig, hmacSha256(key, req.rawBody));
}

/**
 * GitHub style: `X-Hub-Signature-256: sha256=<hex>`, or `X-Hub-Signature: sha256=<hex>` (what
 * Jira's native webhooks send). A SHA-1 `X-Hub-Signature` is refused as malformed.
 */
export function verifyHubSignature(req: SignedRequest, key: string): Verdict | null {
  const sig = header(req.headers, 'x-hub-signature-256') ?? header(req.headers, 'x-hub-signature');
  if (sig === undefined) return null;
  return prefixedHex('hub', sig, hmacSha256(key, req.rawBody));
}

function prefixedHex(scheme: SchemeName, sig: string, expected: Buffer): Verdict {
  const given = sig.toLowerCase().startsWith('sha256=') ? hex64(sig.slice(7)) : null;
  if (!given) return { ok: false, scheme, reason: 'malformed' };
  return safeEqual(given, expected) ? { ok: true, scheme } : { ok: false, scheme, reason: 'mismatch' };
}

/** The HMAC key of Standard Webhooks: base64 after `whsec_`, else the secret's own bytes. */
export function standardWebhooksKey(secret: string): Buffer {
  if (secret.startsWith('whsec_')) {
    const decoded = Buffer.from(secret.slice(6), 'base64');
    if (decoded.length > 0) return decoded;
  }
  return Buffer.from(secret, 'utf8');
}

/**
 * Standard Webhooks (standardwebhooks.com, Svix): `webhook-id`, `webhook-timestamp` (s) and
 * `webhook-signature`, a space-separated list of `v1,<base64 HMAC(key, id.timestamp.body)>`;
 * any one valid `v1` entry is enough (senders list several while rotating keys).
 */
export function verifyStandardWebhooks(req: SignedRequest, secret: string): Verdict | null {
  const sigs = header(req.headers, 'webhook-signature');
  if (sigs === undefined) return null;
  const scheme = 'standard-webhooks';
  const id = header(req.headers, 'webhook-id');
  const ts = header(req.headers, 'webhook-timestamp');
  const tsMs = secondsTimestamp(ts);
  if (!id || tsMs === null) return { ok: false, scheme, reason: 'malformed' };
  if (!fresh(tsMs, req.now)) return { ok: false, scheme, reason: 'stale' };
  const expected = hmacSha256(standardWebhooksKey(secret), `${id}.${ts}.`, req.rawBody);
  let sawV1 = false;
  for (const entry of sigs.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
    sawV1 = true;
    const b64 = entry.slice(comma + 1);
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) continue;
    if (safeEqual(Buffer.from(b64, 'base64'), expected)) return { ok: true, scheme };
  }
  return { ok: false, scheme, reason: sawV1 ? 'mismatch' : 'malformed' };
}

/**
 * Bugcrowd: `X-Bugcrowd-Digest` carries `sha256=<hex HMAC-SHA256>` keyed with the secret shown
 * on Bugcrowd's webhook page. Bugcrowd documents the header and that the raw body is what is
 * signed; the header may also carry a `timestamp=<unix s>` part (`;` or `,` separated), which is
 * then checked against the replay window and bound into the MAC as `body + "." + timestamp`
 * or `timestamp + "." + body`; without one the MAC is over the body alone.
 */
export function verifyBugcrowd(req: SignedRequest, key: string): Verdict | null {
  const raw = header(req.headers, 'x-bugcrowd-digest');
  if (raw === undefined) return null;
  const scheme = 'bugcrowd';
  const parts = new Map<string, string>();
  for (const part of raw.split(/[;,\s]+/)) {
    const eq = part.indexOf('=');
    if (eq > 0) parts.set(part.slice(0, eq).toLowerCase(), part.slice(eq + 1));
  }
  const given = hex64(parts.get('sha256'));
  const ts = parts.get('timestamp') ?? parts.get('t');
  if (!given) return { ok: false, scheme, reason: 'malformed' };
  if (ts === undefined) {
    return safeEqual(given, hmacSha256(key, req.rawBody)) ? { ok: true, scheme } : { ok: false, scheme, reason: 'mismatch' };
  }
  const tsMs = secondsTimestamp(ts);
  if (tsMs === null) return { ok: false, scheme, reason: 'malformed' };
  if (!fresh(tsMs, req.now)) return { ok: false, scheme, reason: 'stale' };
  const candidates = [hmacSha256(key, req.rawBody, `.${ts}`), hmacSha256(key, `${ts}.`, req.rawBody)];
  // Evaluate every candidate (no early exit) so timing does not tell which form matched.
  const matched = candidates.map((c) => safeEqual(given, c)).some(Boolean);
  return matched ? { ok: true, scheme } : { ok: false, scheme, reason: 'mismatch' };
}

/** The trigger sources that accept webhooks, and the signing schemes each sender uses. */
export const WEBHOOK_SOURCES = ['jira', 'jira-automation', 'slack', 'linear', 'webhook', 'bugcrowd', 'hackerone', 'zscaler', 'darktrace', 'events'] as const;
export type WebhookSource = (typeof WEBHOOK_SOURCES)[number];

type Verifier = (req: SignedRequest, key: string) => Verdict | null;
const SCHEMES: Record<WebhookSource, Verifier[]> = {
  slack: [verifySlack],
  linear: [verifyLinear],
  hackerone: [verifyHackerOne],
  jira: [verifyHubSignature],
  webhook: [verifyStandardWebhooks, verifyHubSignature],
  bugcrowd: [verifyBugcrowd],
  // No signing scheme of their own: these senders let you set headers, so they authenticate
  // with `Authorization: Bearer <secret>` (or `X-Rampart-Secret`).
  'jira-automation': [],
  zscaler: [],
  darktrace: [],
  // Log shippers (Vector, Fluent Bit, Logstash) posting events to match: a header, no signature.
  events: [],
};

/**
 * The sender's signature, by the first scheme of `source` whose headers are present; null when
 * the request carries none of them.
 */
export function verifySenderSignature(source: WebhookSource, req: SignedRequest, key: string): Verdict | null {
  for (const verify of SCHEMES[source]) {
    const verdict = verify(req, key);
    if (verdict) return verdict;
  }
  return null;
}
