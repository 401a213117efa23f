import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { guardedFetch } from '../../platform/outbound/fetch-adapter.js';
import type { GuardedClient } from '../../platform/outbound/guarded-client.js';
import { OutboundError } from '../../platform/outbound/errors.js';

/**
 * One MCP client session over Streamable HTTP. Every byte goes through the guarded client (via
 * its fetch adapter): the server's address is vetted after DNS resolution like any other
 * outbound call, and responses are size-capped.
 */
export interface McpServerTarget {
  name: string;
  url: string;
  /** Decrypted bearer token, or null. */
  token: string | null;
}

export interface McpConnection {
  client: Client;
  /** Every tool the server offers (all pages). */
  listTools(opts?: { signal?: AbortSignal }): Promise<McpTool[]>;
  close(): Promise<void>;
}

export interface McpConnectOptions {
  signal?: AbortSignal;
  /** Limit of the connection handshake and of each tool listing request (default 15 s). */
  timeoutMs?: number;
  /** The longest tool call the caller will make; HTTP exchanges may last this long (default 60 s). */
  maxCallMs?: number;
}

export class McpConnectionError extends Error {
  constructor(
    readonly server: string,
    reason: string,
  ) {
    super(`Cannot use MCP server "${server}": ${reason}`);
    this.name = 'McpConnectionError';
  }
}

const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
const MAX_TOOL_PAGES = 20;

/**
 * The MCP SDK, loaded at the first connection: it is one of the heaviest imports (~25 MiB, a
 * few hundred ms), and the API process that never tests an MCP server never needs it
 * (docs/performance.md, start-up). describeMcpError only meets SDK errors after a connection.
 */
let sdk: Awaited<ReturnType<typeof importSdk>> | undefined;
async function importSdk() {
  const [client, http, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return { Client: client.Client, StreamableHTTPClientTransport: http.StreamableHTTPClientTransport, StreamableHTTPError: http.StreamableHTTPError, McpError: types.McpError };
}

export async function connectMcp(http: GuardedClient, target: McpServerTarget, opts: McpConnectOptions = {}): Promise<McpConnection> {
  const { Client, StreamableHTTPClientTransport } = (sdk ??= await importSdk());
  const timeout = opts.timeoutMs ?? 15_000;
  // A margin over the longest MCP request, so the SDK's own timeout speaks first.
  const post = guardedFetch(http, { timeoutMs: Math.max(timeout, opts.maxCallMs ?? 60_000) + 5_000, maxResponseBytes: MAX_RESPONSE_BYTES });
  const transport = new StreamableHTTPClientTransport(new URL(target.url), {
    // The optional standalone SSE stream (a GET held open for server-initiated messages) is of
    // no use to a tool caller, and the guarded fetch buffers whole responses: answer it as a
    // server without one would (405), which the SDK accepts, instead of holding a connection.
    fetch: async (input, init) => ((init?.method ?? 'GET').toUpperCase() === 'GET' ? new Response(null, { status: 405 }) : post(input, init)),
    ...(target.token ? { requestInit: { headers: { authorization: `Bearer ${target.token}` } } } : {}),
  });
  const client = new Client({ name: 'rampart', version: '1.0.0' });
  // Transport errors also reject the request they belong to; this only keeps stray ones quiet.
  client.onerror = () => {};
  try {
    await client.connect(transport, { timeout, ...(opts.signal ? { signal: opts.signal } : {}) });
  } catch (err) {
    await client.close().catch(() => {});
    throw new McpConnectionError(target.name, describeMcpError(err, target.url));
  }
  return {
    client,
    async listTools(o = {}) {
      const tools: McpTool[] = [];
      let cursor: string | undefined;
      try {
        for (let page = 0; page < MAX_TOOL_PAGES; page++) {
          const res = await client.listTools(cursor ? { cursor } : {}, { timeout, ...(o.signal ? { signal: o.signal } : {}) });
          tools.push(...res.tools);
          cursor = res.nextCursor;
          if (!cursor) break;
        }
      } catch (err) {
        throw new McpConnectionError(target.name, `listing tools failed: ${describeMcpError(err, target.url)}`);
      }
      return tools;
    },
    close: () => client.close().catch(() => {}),
  };
}

/** A reason a person can act on; never a header value or a token. */
export function describeMcpError(err: unknown, url: string): string {
  if (sdk && err instanceof sdk.StreamableHTTPError) {
    const status = err.code;
    if (status === 401 || status === 403) return `the server refused the credentials (HTTP ${status}); check the token`;
    if (status === 404) return `no MCP endpoint at ${safeUrl(url)} (HTTP 404)`;
    if (status === -1) return 'the server did not answer with MCP (unexpected content type)';
    return typeof status === 'number' && status > 0 ? `the server answered HTTP ${status}` : clip(err.message);
  }
  if (err instanceof OutboundError) return err.message;
  if (sdk && err instanceof sdk.McpError) return clip(err.message);
  if (err instanceof Error && err.name === 'TimeoutError') return 'timed out';
  if (err instanceof Error && err.name === 'AbortError') return 'cancelled';
  if (err instanceof SyntaxError) return 'the server did not answer with MCP (invalid JSON)';
  return clip(err instanceof Error ? err.message : String(err));
}

function clip(s: string): string {
  return s.length > 300 ? `${s.slice(0, 297)}...` : s;
}

function safeUrl(u: string): string {
  try {
    const x = new URL(u);
    return `${x.origin}${x.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}
