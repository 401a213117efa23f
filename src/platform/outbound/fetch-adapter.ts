import type { GuardedClient } from './guarded-client.js';
import { OutboundError } from './errors.js';

export interface GuardedFetchOptions {
  /** Per request; model calls are slow, so callers raise it (default: the client's). */
  timeoutMs?: number;
  maxResponseBytes?: number;
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * A WHATWG `fetch` over the guarded client, for SDKs that take a `fetch` option (the AI SDK
 * providers, the MCP client): their traffic gets the same SSRF policy, size cap and timeouts
 * as every other outbound call. Responses are buffered (the SDKs here use non-streaming calls),
 * and the SDK's own retry logic stays in charge: the client does not retry POSTs.
 * An aborted `signal` rejects with an AbortError, which is what the SDKs expect.
 */
export function guardedFetch(client: GuardedClient, opts: GuardedFetchOptions = {}): typeof fetch {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : null;
    const url = request ? request.url : input.toString();
    const method = init?.method ?? request?.method ?? 'GET';
    const headers: Record<string, string> = {};
    new Headers(init?.headers ?? request?.headers).forEach((value, key) => {
      headers[key] = value;
    });
    const body = await bodyBytes(init?.body ?? (request && request.body ? await request.arrayBuffer() : undefined));
    const signal = init?.signal ?? request?.signal ?? undefined;
    if (signal?.aborted) throw abortError(signal);
    try {
      const res = await client.request(url, {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
        ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
        ...(opts.maxResponseBytes !== undefined ? { maxResponseBytes: opts.maxResponseBytes } : {}),
        ...(signal ? { signal } : {}),
      });
      const out = new Headers();
      // The body is already decompressed and measured: drop what no longer describes it.
      for (const [k, v] of Object.entries(res.headers)) if (k !== 'content-encoding' && k !== 'content-length') out.set(k, v);
      return new Response(NULL_BODY_STATUSES.has(res.status) || method.toUpperCase() === 'HEAD' ? null : new Uint8Array(res.body), { status: res.status, headers: out });
    } catch (err) {
      if (err instanceof OutboundError && err.code === 'aborted' && signal) throw abortError(signal);
      throw err;
    }
  };
}

async function bodyBytes(body: RequestInit['body'] | ArrayBuffer | undefined): Promise<string | Uint8Array | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  // Blob, FormData, URLSearchParams, streams: let Response do the encoding.
  return new Uint8Array(await new Response(body as ConstructorParameters<typeof Response>[0]).arrayBuffer());
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The operation was aborted.', 'AbortError');
}
