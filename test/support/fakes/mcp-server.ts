import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/*
 * An MCP server over Streamable HTTP (the real SDK server classes), stateless: every POST to
 * /mcp gets a fresh McpServer + transport, as the SDK's stateless example does (a stateless
 * transport refuses to be reused across requests). GET/DELETE /mcp answer 405, which clients
 * treat as "no standalone SSE stream / no session to end".
 */

export interface FakeMcpTool {
  name: string;
  description?: string;
  /** A zod raw shape of the arguments (the SDK validates calls against it); omitted: no arguments. */
  inputSchema?: z.ZodRawShape;
  /** MCP tool annotations as the server declares them (`readOnlyHint`, `destructiveHint`, …). */
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  /** Thrown errors become `isError: true` results (the SDK's McpServer does that). */
  handler: (args: Record<string, unknown>) => CallToolResult | Promise<CallToolResult>;
}

export interface FakeMcpOptions {
  /** Replaces the default tools (lookup_asset, failing_tool, throwing_tool). */
  tools?: FakeMcpTool[];
  /** Hostname → description answered by the default lookup_asset tool. */
  assets?: Record<string, string>;
  /** When set, requests without `Authorization: Bearer <token>` get a 401 (with WWW-Authenticate). */
  token?: string;
}

export interface McpToolCall {
  name: string;
  arguments: Record<string, unknown>;
  /** The Authorization header the call arrived with. */
  authorization?: string;
}

export interface FakeMcp {
  /** Endpoint URL (…/mcp) for StreamableHTTPClientTransport. */
  url: string;
  /** Every tools/call, in order (also those answered with isError). */
  calls: McpToolCall[];
  /** JSON-RPC methods received (initialize, notifications/initialized, tools/list, tools/call…). */
  methods: string[];
  close(): Promise<void>;
}

const DEFAULT_ASSETS: Record<string, string> = {
  'web-01.corp.example': 'web-01.corp.example: owner=platform-team, criticality=high, os=Ubuntu 22.04',
  'db-01.corp.example': 'db-01.corp.example: owner=data-team, criticality=critical, os=Debian 12',
};

export function defaultMcpTools(assets: Record<string, string> = DEFAULT_ASSETS): FakeMcpTool[] {
  return [
    {
      name: 'lookup_asset',
      description: 'Look up an asset in the inventory by hostname.',
      inputSchema: { hostname: z.string().describe('Fully qualified hostname') },
      handler: ({ hostname }) => {
        const found = assets[String(hostname)];
        return { content: [{ type: 'text', text: found ?? `No asset found for ${String(hostname)}` }] };
      },
    },
    {
      name: 'failing_tool',
      description: 'Always fails (returns an isError result).',
      handler: () => ({ isError: true, content: [{ type: 'text', text: 'Inventory backend unavailable' }] }),
    },
    {
      name: 'throwing_tool',
      description: 'Always throws inside the handler.',
      handler: () => {
        throw new Error('boom from throwing_tool');
      },
    },
  ];
}

function jsonRpcError(res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

export async function startFakeMcp(opts: FakeMcpOptions = {}): Promise<FakeMcp> {
  const tools = opts.tools ?? defaultMcpTools(opts.assets);
  const calls: McpToolCall[] = [];
  const methods: string[] = [];

  const buildServer = (authorization: string | undefined): McpServer => {
    const server = new McpServer({ name: 'fake-mcp', version: '1.0.0' });
    for (const tool of tools) {
      const callback = async (args: Record<string, unknown>): Promise<CallToolResult> => {
        calls.push({ name: tool.name, arguments: args, authorization });
        return tool.handler(args);
      };
      const annotations = tool.annotations ? { annotations: tool.annotations } : {};
      if (tool.inputSchema) {
        server.registerTool(tool.name, { description: tool.description, inputSchema: tool.inputSchema, ...annotations }, (args) => callback(args as Record<string, unknown>));
      } else {
        server.registerTool(tool.name, { description: tool.description, ...annotations }, () => callback({}));
      }
    }
    return server;
  };

  const httpServer = http.createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path !== '/mcp') return jsonRpcError(res, 404, 'Not found');
      const authorization = req.headers.authorization;
      if (opts.token && authorization !== `Bearer ${opts.token}`) {
        return jsonRpcError(res, 401, 'Unauthorized', { 'www-authenticate': 'Bearer error="invalid_token"' });
      }
      if (req.method !== 'POST') return jsonRpcError(res, 405, 'Method not allowed.', { allow: 'POST' });

      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return jsonRpcError(res, 400, 'Parse error');
      }
      for (const m of Array.isArray(body) ? body : [body]) {
        const method = (m as { method?: unknown } | null)?.method;
        if (typeof method === 'string') methods.push(method);
      }

      const server = buildServer(authorization);
      // sessionIdGenerator undefined = stateless (no Mcp-Session-Id header issued or required).
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    })().catch((err: unknown) => {
      if (!res.headersSent) jsonRpcError(res, 500, String(err));
      else res.end();
    });
  });

  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    methods,
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      }),
  };
}
