import { tool } from '../../../platform/ai-sdk.js';
import { z } from 'zod';
import type { ToolDeps, ToolRunContext } from '../tool-context.js';
import { httpUrl } from '../../../platform/http/url-schemas.js';

export const HTTP_TOOL_TIMEOUT_MS = 15_000;
export const HTTP_TOOL_BODY_LIMIT = 32 * 1024;
/** Larger responses fail (the client's message says so) rather than being read whole. */
const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;
/** What the model is told about the response headers: enough to interpret it, no cookies. */
const KEPT_HEADERS = ['content-type', 'content-length', 'content-language', 'location', 'etag', 'last-modified', 'retry-after', 'www-authenticate', 'link'];

/**
 * An HTTP request through the guarded client: the same SSRF policy as every outbound call (a
 * refused address comes back as a tool error with the client's reason), a 15 s deadline, no
 * automatic retries (the model decides), the run's abort signal honoured.
 */
export function httpRequestTool(deps: ToolDeps, ctx: ToolRunContext) {
  return tool({
    description:
      'Make an HTTP(S) request to a public URL (e.g. a REST API or a web page) and get back the status, the main response headers and the body as text (truncated to 32 KiB). Private and internal addresses are refused unless the installation allows them.',
    inputSchema: z.object({
      url: httpUrl(4096),
      method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']).default('GET'),
      headers: z.record(z.string().min(1).max(256), z.string().max(8192)).optional().describe('Request headers, e.g. {"accept": "application/json"}'),
      body: z.string().max(1_000_000).optional().describe('Request body (send a content-type header with it)'),
    }),
    execute: async ({ url, method = 'GET', headers, body }, options) => {
      if (body !== undefined && (method === 'GET' || method === 'HEAD')) throw new Error(`A ${method} request cannot have a body`);
      const signals = [ctx.signal, options.abortSignal].filter((s): s is AbortSignal => s !== undefined);
      const res = await deps.http.request(url, {
        method,
        ...(headers ? { headers } : {}),
        ...(body !== undefined ? { body } : {}),
        timeoutMs: HTTP_TOOL_TIMEOUT_MS,
        maxResponseBytes: MAX_RESPONSE_BYTES,
        retries: 0,
        ...(signals.length ? { signal: signals.length === 1 ? signals[0]! : AbortSignal.any(signals) } : {}),
      });
      const text = res.body.length > 0 ? res.text() : '';
      const { body: clipped, truncated } = truncateUtf8(text, HTTP_TOOL_BODY_LIMIT);
      return {
        status: res.status,
        url: res.url,
        headers: Object.fromEntries(KEPT_HEADERS.filter((h) => res.headers[h] !== undefined).map((h) => [h, res.headers[h]!])),
        body: clipped,
        truncated,
      };
    },
  });
}

/** At most `limit` UTF-8 bytes, never ending inside a character. */
export function truncateUtf8(text: string, limit: number): { body: string; truncated: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return { body: text, truncated: false };
  let end = limit;
  // Back up over continuation bytes (10xxxxxx) to the start of the cut character.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return { body: bytes.subarray(0, end).toString('utf8'), truncated: true };
}
