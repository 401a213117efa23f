import { OutboundError } from '../../../platform/outbound/index.js';
import { redactSecrets } from '../../../platform/outbound/url-secrets.js';
import { isPermanentStatus } from '../retry.fns.js';
import type { Rendered, SendContext, SendOutcome, Target } from './types.js';

/** Response bodies are read up to this size: enough for any product's answer, no more. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
export const EXCERPT_CHARS = 300;

export interface Exchanged {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * The excerpt kept in the delivery log: the first characters of the body, redacted (the
 * target's token, URL secrets by name and shape, credential shapes). A remote side that echoes
 * the request must not put the credential into our database.
 */
export function excerptOf(text: string, target: Pick<Target, 'token'>): string | null {
  if (!text) return null;
  // Redact over the whole answer (≤ 64 KB) before cutting: a token crossing the cut stays hidden.
  const t = redactSecrets(text, [target.token]);
  return t.length > EXCERPT_CHARS ? `${t.slice(0, EXCERPT_CHARS)}…` : t;
}

/** Error text from the client, redacted like an excerpt (URLs of Teams workflows carry a signature). */
export function safeError(err: unknown, target: Pick<Target, 'token'>): string {
  return redactSecrets(err instanceof Error ? err.message : String(err), [target.token]).slice(0, 500);
}

/**
 * One POST through the guarded client, never retried here (the delivery job owns retries).
 * Returns the exchange, or a failure outcome for network errors: refused addresses and bad
 * URLs are permanent, timeouts and connection errors transient.
 */
export async function post(req: Rendered, target: Target, ctx: SendContext): Promise<Exchanged | SendOutcome> {
  try {
    const res = await ctx.http.request(req.url, {
      method: 'POST',
      headers: req.headers,
      body: req.body,
      retries: 0,
      timeoutMs: ctx.timeoutMs,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    });
    return { status: res.status, headers: res.headers, text: res.body.length ? res.text() : '' };
  } catch (err) {
    const permanent = err instanceof OutboundError && (err.code === 'forbidden_address' || err.code === 'unsupported_protocol' || err.code === 'too_many_redirects');
    return { kind: permanent ? 'permanent' : 'transient', status: null, excerpt: null, error: safeError(err, target) };
  }
}

export function isOutcome(x: Exchanged | SendOutcome): x is SendOutcome {
  return 'kind' in x;
}

/** The common reading of an HTTP status: 2xx success, 4xx (but 408/429) permanent, else transient. */
export function byStatus(res: Exchanged, target: Target, product: string): SendOutcome {
  const excerpt = excerptOf(res.text, target);
  if (res.status >= 200 && res.status < 300) return { kind: 'succeeded', status: res.status, excerpt };
  const error = `${product} answered HTTP ${res.status}`;
  if (isPermanentStatus(res.status)) return { kind: 'permanent', status: res.status, excerpt, error };
  return { kind: 'transient', status: res.status, excerpt, error, ...(res.headers['retry-after'] ? { retryAfter: res.headers['retry-after'] } : {}) };
}

/** `config.apiBaseUrl` (documented override) or the product's own, without a trailing slash. */
export function apiBase(config: Record<string, unknown>, fallback: string): string {
  const v = typeof config.apiBaseUrl === 'string' && config.apiBaseUrl ? config.apiBaseUrl : fallback;
  return v.replace(/\/+$/, '');
}

export const JSON_HEADERS = { 'content-type': 'application/json' };
