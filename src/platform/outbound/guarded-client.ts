import net from 'node:net';
import type { Agent, Dispatcher } from 'undici';
import { isForbiddenAddress, metadataOnly } from './address-policy.js';
import { OutboundError } from './errors.js';
import { BodyTooLarge, decodeText, readBody, writeBodyToFile } from './response-body.js';
import { DEFAULT_RETRY_STATUSES, IDEMPOTENT_METHODS, delayFor } from './retry.js';
import { forbiddenError, systemLookup, vettingLookup, type AddressPolicy, type LookupAll } from './vetting-lookup.js';

/**
 * The one HTTP client for every outbound call (feeds, MISP, TAXII, webhooks, destinations).
 *
 * SSRF: hosts are resolved by our own lookup inside undici's connector, so the address that
 * is checked is the address that is dialled (no DNS-rebinding window); literal-IP URLs are
 * checked before sending. Redirects are followed by hand, each hop re-checked. Bodies are
 * capped (after decompression too), attempts time out, and idempotent requests are retried
 * on network errors and 429/502/503/504 with exponential backoff honouring Retry-After.
 */
export interface GuardedClientOptions {
  /** RAMPART_ALLOW_PRIVATE_NETWORKS: allow private, loopback and link-local addresses (on-prem installs, local model servers, tests); cloud metadata stays refused. */
  allowPrivateNetworks: boolean;
  /** Per attempt, connecting through reading the last body byte, redirects included. */
  timeoutMs?: number;
  maxResponseBytes?: number;
  maxRedirects?: number;
  retries?: number;
  retryBaseDelayMs?: number;
  maxRetryDelayMs?: number;
  userAgent?: string;
  /** Replaces DNS (tests): `dns.lookup` with `{ all: true }`. */
  lookup?: LookupAll;
  /** Replaces the address policy (tests); returns a refusal reason or null. */
  addressPolicy?: AddressPolicy;
  /** Replaces the wait between retries (tests). */
  sleep?: (ms: number) => Promise<void>;
}

export interface OutboundRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer | Uint8Array;
  timeoutMs?: number;
  maxResponseBytes?: number;
  retries?: number;
  /** Statuses to retry; network errors and timeouts are always retried. */
  retryOn?: readonly number[];
  /** Retry POST/PATCH too (only when the receiver deduplicates). */
  retryNonIdempotent?: boolean;
  /** The caller gives up (an interrupted agent run): fails with code `aborted`, never retried. */
  signal?: AbortSignal;
  /** Write the (decoded, capped) body of the final response to this file instead of memory; `body` is then empty. */
  saveTo?: string;
}

export interface OutboundResponse {
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The final URL, after redirects, without credentials. */
  url: string;
  body: Buffer;
  text(): string;
  json<T = unknown>(): T;
}

export interface GuardedClient {
  request(url: string | URL, init?: OutboundRequestInit): Promise<OutboundResponse>;
  /** Closes pooled connections (shutdown). */
  close(): Promise<void>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// Hop-by-hop or computed by undici; a caller-supplied Host would also defeat the origin checks.
const DROPPED_HEADERS = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade', 'te']);
// Never carried to another origin: they authenticate to the origin they were written for.
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie'];

export function createGuardedClient(opts: GuardedClientOptions): GuardedClient {
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const maxBytes = opts.maxResponseBytes ?? 10 * 1024 * 1024;
  const maxRedirects = opts.maxRedirects ?? 5;
  const retries = opts.retries ?? 2;
  const baseDelay = opts.retryBaseDelayMs ?? 500;
  const maxDelay = opts.maxRetryDelayMs ?? 30_000;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const policy: AddressPolicy = opts.allowPrivateNetworks ? metadataOnly : (opts.addressPolicy ?? isForbiddenAddress);
  /** A wait between attempts that the caller's signal cuts short (a shutting-down job must not sit out a backoff). */
  const pause = async (ms: number, signal: AbortSignal | undefined): Promise<void> => {
    if (!signal) return sleep(ms);
    const cancelled = () => new OutboundError('aborted', 'Request was cancelled while waiting to retry', '');
    if (signal.aborted) throw cancelled();
    let onAbort: () => void = () => {};
    try {
      await Promise.race([sleep(ms), new Promise<never>((_, reject) => signal.addEventListener('abort', (onAbort = () => reject(cancelled())), { once: true }))]);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  };

  // One pool for the client; the vetting lookup runs for every new connection it opens. undici
  // (~1 MB of code: its index loads every part) is loaded at the first request, not at start
  // (docs/performance.md, start-up); the API serves most requests without calling out.
  // Through `default` (CommonJS's module.exports): the bundled build's import() of a CommonJS
  // package has no named exports (scripts/build-server.js), Node's own has both.
  let transport: Promise<{ agent: Agent; request: typeof import('undici').request }> | null = null;
  const connect = () =>
    (transport ??= import('undici').then(({ default: undici }) => ({
      agent: new undici.Agent({
        connect: { lookup: vettingLookup(opts.lookup ?? systemLookup, policy), timeout: timeoutMs },
        keepAliveTimeout: 10_000,
      }),
      request: undici.request,
    })));

  /** One request/response exchange, body read. Literal IPs are vetted here, names by the lookup. */
  async function exchange(url: URL, method: string, headers: Record<string, string>, body: Buffer | null, limit: number, signal: AbortSignal, saveTo?: string): Promise<OutboundResponse> {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (net.isIP(host)) {
      const reason = policy(host);
      if (reason) throw forbiddenError(host, host, reason, url.toString());
    }
    let res: Dispatcher.ResponseData;
    try {
      const { agent, request } = await connect();
      res = await request(url, { method: method as Dispatcher.HttpMethod, headers, body, dispatcher: agent, signal });
    } catch (err) {
      throw toOutboundError(err, url, signal);
    }
    const flat = flattenHeaders(res.headers);
    try {
      const declared = Number(flat['content-length']);
      if (method !== 'HEAD' && Number.isFinite(declared) && declared > limit) throw new BodyTooLarge();
      // A redirect's own body is never saved: only the response the caller gets.
      const save = saveTo && !(REDIRECTS.has(res.statusCode) && flat.location !== undefined) ? saveTo : null;
      const data = method === 'HEAD' ? Buffer.alloc(0) : save ? await writeBodyToFile(res.body, flat['content-encoding'], limit, signal, save).then(() => Buffer.alloc(0)) : await readBody(res.body, flat['content-encoding'], limit, signal);
      return {
        status: res.statusCode,
        headers: flat,
        url: url.toString(),
        body: data,
        text: () => decodeText(data, flat['content-type']),
        json: <T>() => JSON.parse(decodeText(data, flat['content-type'])) as T,
      };
    } catch (err) {
      // Closes the connection rather than draining an unwanted body; undici reports that as an
      // 'error' on the stream, which nobody may be listening to any more.
      res.body.on('error', () => {}).destroy();
      if (err instanceof BodyTooLarge) throw new OutboundError('response_too_large', `The response from ${url.host} is larger than ${limit} bytes`, url.toString());
      throw toOutboundError(err, url, signal);
    }
  }

  /** One attempt: the request and every redirect hop, under a single deadline. */
  async function attempt(start: URL, init: OutboundRequestInit, baseHeaders: Record<string, string>): Promise<OutboundResponse> {
    const deadline = AbortSignal.timeout(init.timeoutMs ?? timeoutMs);
    const signal = init.signal ? AbortSignal.any([deadline, init.signal]) : deadline;
    const limit = init.maxResponseBytes ?? maxBytes;
    let method = (init.method ?? 'GET').toUpperCase();
    let body = init.body === undefined ? null : Buffer.from(init.body);
    let [url, headers] = withUrlCredentials(start, baseHeaders);
    for (let hop = 0; ; hop++) {
      const res = await exchange(url, method, headers, body, limit, signal, init.saveTo);
      const location = res.headers.location;
      if (!REDIRECTS.has(res.status) || location === undefined) return res;
      if (hop >= maxRedirects) throw new OutboundError('too_many_redirects', `More than ${maxRedirects} redirects from ${start.host}`, safeUrl(start));
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        return res; // An unusable Location: hand the 3xx to the caller.
      }
      assertHttp(next);
      // 303 always, and 301/302 after POST (what every browser does), become a bodiless GET.
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        if (method !== 'HEAD') method = 'GET';
        body = null;
        headers = omit(headers, ['content-type', 'content-encoding', 'content-language']);
      }
      if (next.origin !== url.origin) headers = omit(headers, CREDENTIAL_HEADERS);
      [url, headers] = withUrlCredentials(next, headers);
    }
  }

  return {
    async request(input, init = {}) {
      let url: URL;
      try {
        url = new URL(input);
      } catch {
        throw new OutboundError('unsupported_protocol', 'Not a valid URL', '');
      }
      assertHttp(url);
      const method = (init.method ?? 'GET').toUpperCase();
      const headers = baseHeaders(init.headers ?? {}, opts.userAgent ?? 'Rampart/1.0');
      const retryOn = new Set(init.retryOn ?? DEFAULT_RETRY_STATUSES);
      const mayRetry = IDEMPOTENT_METHODS.has(method) || init.retryNonIdempotent === true;
      const attempts = 1 + (mayRetry ? Math.max(0, init.retries ?? retries) : 0);
      for (let n = 1; ; n++) {
        let res: OutboundResponse;
        try {
          res = await attempt(url, init, headers);
        } catch (err) {
          const transient = err instanceof OutboundError && (err.code === 'network' || err.code === 'timeout');
          if (!transient || n >= attempts || init.signal?.aborted) throw err;
          await pause(delayFor(n, undefined, baseDelay, maxDelay), init.signal);
          continue;
        }
        if (n >= attempts || !retryOn.has(res.status) || init.signal?.aborted) return res;
        await pause(delayFor(n, res.headers['retry-after'], baseDelay, maxDelay), init.signal);
      }
    },
    close: async () => {
      if (transport) await (await transport).agent.close();
    },
  };
}

function assertHttp(url: URL): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError('unsupported_protocol', `Only http and https URLs are allowed, not ${url.protocol.replace(/:$/, '')}`, safeUrl(url));
  }
}

function baseHeaders(given: Record<string, string>, userAgent: string): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': userAgent, 'accept-encoding': 'gzip, deflate, br' };
  for (const [k, v] of Object.entries(given)) {
    const name = k.toLowerCase();
    if (!DROPPED_HEADERS.has(name)) headers[name] = v;
  }
  return headers;
}

/**
 * `https://user:pass@host/` becomes Basic authorization (unless the caller set one) and the
 * credentials leave the URL, so they never appear in `res.url` or an error. Since they are
 * then an ordinary Authorization header, the cross-origin redirect rule drops them too.
 */
function withUrlCredentials(url: URL, headers: Record<string, string>): [URL, Record<string, string>] {
  if (!url.username && !url.password) return [url, headers];
  const clean = new URL(url);
  clean.username = '';
  clean.password = '';
  if (headers.authorization !== undefined) return [clean, headers];
  const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return [clean, { ...headers, authorization: `Basic ${Buffer.from(pair).toString('base64')}` }];
}

function safeUrl(url: URL): string {
  if (!url.username && !url.password) return url.toString();
  const clean = new URL(url);
  clean.username = '';
  clean.password = '';
  return clean.toString();
}

function omit(headers: Record<string, string>, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !names.includes(k)));
}

function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** Maps undici/socket/DNS failures to a user-safe OutboundError (codes only, never headers). */
function toOutboundError(err: unknown, url: URL, signal: AbortSignal): OutboundError {
  const where = safeUrl(url);
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    // Raised by our lookup, which only knew the host name: re-issue with the request URL.
    if (e instanceof OutboundError) return new OutboundError(e.code, e.message, where);
  }
  if (signal.aborted && !isTimeout(signal.reason)) return new OutboundError('aborted', `Request to ${url.host} was cancelled`, where);
  if (signal.aborted) return new OutboundError('timeout', `Request to ${url.host} timed out`, where);
  const code = errorCode(err);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new OutboundError('dns', `Cannot resolve ${url.hostname} (${code})`, where);
  if (code.includes('TIMEOUT') || code === 'ETIMEDOUT') return new OutboundError('timeout', `Request to ${url.host} timed out`, where);
  const reason =
    code === 'ECONNREFUSED' ? 'connection refused'
    : code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' ? 'connection closed unexpectedly'
    : /CERT|TLS|SSL/.test(code) ? `TLS error ${code}`
    : code || 'network error';
  return new OutboundError('network', `Cannot reach ${url.host} (${reason})`, where);
}

function isTimeout(reason: unknown): boolean {
  return reason instanceof DOMException && reason.name === 'TimeoutError';
}

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown }; errors?: Array<{ code?: unknown }> } | null;
  const code = e?.code ?? e?.cause?.code ?? e?.errors?.[0]?.code;
  return typeof code === 'string' ? code : '';
}
