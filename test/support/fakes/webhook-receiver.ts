import { createHmac, timingSafeEqual } from 'node:crypto';
import { sendJson, startServer, type RecordedRequest } from './http-server.js';

/**
 * A generic webhook receiver that verifies Standard Webhooks signatures
 * (https://www.standardwebhooks.com): `webhook-signature` holds space-separated `v1,<base64>`
 * entries of HMAC-SHA256(secret, "<webhook-id>.<webhook-timestamp>.<body>"); a `whsec_` secret
 * is base64 after the prefix. Timestamps older or newer than 5 minutes are refused (replay).
 * Written from the specification, independently of src/, so it checks our signer.
 */
export interface WebhookReceiver {
  url: string;
  requests: RecordedRequest[];
  /** Requests whose signature verified, in order: the ids receivers would deduplicate on. */
  verified: Array<{ id: string; body: Record<string, unknown>; headers: RecordedRequest['headers'] }>;
  /** Answer the next `n` requests with `status` (and headers). */
  failNext(n: number, status: number, headers?: Record<string, string>, body?: unknown): void;
  /** Never answer the next `n` requests (a receiver that hangs). */
  hangNext(n: number): void;
  close(): Promise<void>;
}

/**
 * Signing secrets Rampart generated for the destinations tests created (test/support/delivery.ts's
 * createDestination adds each): a receiver verifies with its own secret or any of these, as a
 * receiver configured with the secret shown at creation does.
 */
export const issuedSigningSecrets = new Set<string>();

export function verifyStandardWebhook(secret: string, headers: RecordedRequest['headers'], body: string, nowSeconds = Math.floor(Date.now() / 1000)): string | null {
  const id = headers['webhook-id'];
  const ts = headers['webhook-timestamp'];
  const sig = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof ts !== 'string' || typeof sig !== 'string') return 'missing Standard Webhooks headers';
  if (!/^\d+$/.test(ts) || Math.abs(nowSeconds - Number(ts)) > 300) return 'timestamp outside tolerance';
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest();
  for (const part of sig.split(' ')) {
    const [version, value] = part.split(',', 2);
    if (version !== 'v1' || !value) continue;
    const given = Buffer.from(value, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return null;
  }
  return 'no matching signature';
}

export async function startWebhookReceiver(opts: { secret: string; path?: string }): Promise<WebhookReceiver> {
  const verified: WebhookReceiver['verified'] = [];
  const failures: Array<{ status: number; headers: Record<string, string>; body: unknown }> = [];
  let hang = 0;
  const server = await startServer((req, res) => {
    if (hang > 0) {
      hang--;
      return; // never answers; the client's timeout (or a kill) ends it
    }
    if (req.method !== 'POST' || req.url !== (opts.path ?? '/hook')) return sendJson(res, 404, { error: 'not found' });
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return sendJson(res, 415, { error: 'json only' });
    const bad = [opts.secret, ...issuedSigningSecrets].every((secret) => verifyStandardWebhook(secret, req.headers, req.body) !== null) ? verifyStandardWebhook(opts.secret, req.headers, req.body) : null;
    if (bad) return sendJson(res, 401, { error: bad });
    const f = failures.shift();
    if (f) return sendJson(res, f.status, f.body ?? { error: `failing with ${f.status}` }, f.headers);
    verified.push({ id: String(req.headers['webhook-id']), body: JSON.parse(req.body) as Record<string, unknown>, headers: req.headers });
    res.writeHead(204).end();
  });
  return {
    url: `${server.url}${opts.path ?? '/hook'}`,
    requests: server.requests,
    verified,
    failNext(n, status, headers = {}, body) {
      for (let i = 0; i < n; i++) failures.push({ status, headers, body });
    },
    hangNext(n) {
      hang += n;
    },
    close: server.close,
  };
}
