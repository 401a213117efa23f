import type { JSONSchema7, Tool, ToolSet } from 'ai';
import { loadAiSdk, type AiSdk } from '../../platform/ai-sdk.js';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { missingPermissions } from '../../platform/auth/permissions.js';
import { connectMcp, describeMcpError, type McpConnection } from './mcp-client.js';
import { findMcpServersByName, type McpServerRow } from './mcp-servers.repo.js';
import { providerSafeMcpName } from './mcp-names.fns.js';
import { parseMcpToolName } from './tool-names.js';
import type { ToolCatalog, ToolDeclaration, ToolDeps, ToolRunContext } from './tool-context.js';
import { BUILTIN_TOOLS } from './builtin-tools.js';
import { mcpDefaultPolicy, type ToolPolicy } from './tool-policy.fns.js';

export type { ToolDeps, ToolRunContext, ToolFactory } from './tool-context.js';

export interface BuiltToolSet {
  /** Keyed by the name the model sees: built-in names as they are, MCP tools as `mcp__<server>__<tool>`. */
  tools: ToolSet;
  /** Closes the MCP sessions; call it when the run ends, however it ends. */
  close(): Promise<void>;
  /** The MCP tools (as exposed) whose server declares them read-only (`readOnlyHint`): what an evaluation's sandbox may call. */
  readOnlyTools: ReadonlySet<string>;
  /** Per tool (as exposed): the name the agent lists it under, its MCP server, and its own default policy (tool-policy.fns.ts). */
  toolInfo: Readonly<Record<string, ExposedToolInfo>>;
}

export interface ExposedToolInfo {
  /** The agent's name for it: a built-in name, or `mcp:<server>/<tool>`. */
  name: string;
  mcpServer?: string;
  declaredPolicy: ToolPolicy;
}

/** Connection handshake and tool listing, per server. */
const MCP_CONNECT_TIMEOUT_MS = 15_000;
/** One MCP tool call. */
export const MCP_CALL_TIMEOUT_MS = 60_000;

/**
 * The tools of one agent run. Built-in tools check the run user's permissions at each call.
 * MCP servers named by `mcp:<server>/<tool>` or `mcp:<server>/*` are connected now (in
 * parallel) and their tools listed; an unknown or disabled server, a server that cannot be
 * reached, or a named tool the server does not offer fails the whole build with a message that
 * says which (and nothing stays connected).
 */
export async function buildToolSet(deps: ToolDeps, ctx: ToolRunContext, toolNames: readonly string[]): Promise<BuiltToolSet> {
  const catalog: ToolCatalog = deps.catalog ?? BUILTIN_TOOLS;
  const tools: ToolSet = {};
  const readOnlyTools = new Set<string>();
  const toolInfo: Record<string, ExposedToolInfo> = {};
  const wanted = new Map<string, { all: boolean; names: string[] }>();
  for (const name of new Set(toolNames)) {
    const declared = Object.hasOwn(catalog, name) ? catalog[name] : undefined;
    if (declared) {
      tools[name] = withPermissionCheck(name, declared, deps, ctx);
      toolInfo[name] = { name, declaredPolicy: declared.defaultPolicy ?? 'allow' };
      continue;
    }
    const mcp = parseMcpToolName(name);
    if (!mcp) throw new Error(`Unknown tool "${name}"`);
    const entry = wanted.get(mcp.server) ?? { all: false, names: [] };
    if (mcp.tool === '*') entry.all = true;
    else entry.names.push(mcp.tool);
    wanted.set(mcp.server, entry);
  }
  if (wanted.size === 0) return { tools, close: async () => {}, readOnlyTools, toolInfo };

  const rows = new Map((await findMcpServersByName(deps.db, ctx.organizationId, [...wanted.keys()])).map((r) => [r.name, r]));
  for (const server of wanted.keys()) {
    const row = rows.get(server);
    if (!row) throw new Error(`No MCP server named "${server}" in this organization`);
    if (!row.enabled) throw new Error(`MCP server "${server}" is disabled`);
  }

  const ai = await loadAiSdk();
  const connections: McpConnection[] = [];
  const close = async () => {
    await Promise.all(connections.splice(0).map((c) => c.close()));
  };
  try {
    // allSettled, not all: a failure must not leave a slower connection to open after close().
    const settled = await Promise.allSettled(
      [...wanted.entries()].map(async ([server, want]) => {
        const row = rows.get(server)!;
        const conn = await connectMcp(deps.http, { name: row.name, url: row.url, token: row.tokenCiphertext ? deps.secrets.decrypt(row.tokenCiphertext) : null }, {
          signal: ctx.signal,
          timeoutMs: MCP_CONNECT_TIMEOUT_MS,
          maxCallMs: MCP_CALL_TIMEOUT_MS,
        });
        connections.push(conn);
        const offered = await conn.listTools({ signal: ctx.signal });
        const byName = new Map(offered.map((t) => [t.name, t]));
        const missing = want.names.filter((n) => !byName.has(n));
        if (missing.length) {
          throw new Error(`MCP server "${server}" has no tool ${missing.map((n) => `"${n}"`).join(', ')} (it offers ${offered.map((t) => t.name).join(', ') || 'none'})`);
        }
        const selected = want.all ? offered : want.names.map((n) => byName.get(n)!);
        return { row, conn, selected };
      }),
    );
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    const listed = settled.map((r) => (r as PromiseFulfilledResult<{ row: McpServerRow; conn: McpConnection; selected: McpTool[] }>).value);
    for (const { row, conn, selected } of listed) {
      for (const t of selected) {
        const exposed = providerSafeMcpName(row.name, t.name);
        if (tools[exposed]) throw new Error(`Two tools would both be named "${exposed}"`);
        tools[exposed] = mcpTool(ai, conn, row, t, ctx);
        if (t.annotations?.readOnlyHint === true) readOnlyTools.add(exposed);
        toolInfo[exposed] = { name: `mcp:${row.name}/${t.name}`, mcpServer: row.name, declaredPolicy: mcpDefaultPolicy(t.annotations) };
      }
    }
  } catch (err) {
    await close();
    throw err;
  }
  deps.logger.debug({ runId: ctx.runId, tools: Object.keys(tools) }, 'tool set built');
  return { tools, close, readOnlyTools, toolInfo };
}

/**
 * The declared tool, refusing each call (→ a tool error the model sees) when the run's user lacks
 * a permission it declares. Checked at each call, not when the set is built: a role can change
 * mid-run.
 */
function withPermissionCheck(name: string, declared: ToolDeclaration, deps: ToolDeps, ctx: ToolRunContext): Tool {
  const built = declared.factory(deps, ctx);
  const execute = built.execute;
  if (!execute) return built;
  return {
    ...built,
    execute: async (input: unknown, options: Parameters<typeof execute>[1]) => {
      const missing = missingPermissions(ctx.actor.permissions, declared.permissions);
      if (missing.length > 0) throw new Error(`Permission denied: ${name} needs ${missing.join(', ')}, which the user this run acts for does not have`);
      return execute(input, options);
    },
  } as Tool;
}

function mcpTool({ dynamicTool, jsonSchema }: AiSdk, conn: McpConnection, server: McpServerRow, t: McpTool, ctx: ToolRunContext): Tool {
  const schema = { ...t.inputSchema, properties: t.inputSchema.properties ?? {} } as JSONSchema7;
  return dynamicTool({
    description: t.description?.trim() || `Tool "${t.name}" of the MCP server "${server.name}"`,
    inputSchema: jsonSchema(schema),
    execute: async (input, options) => {
      const missing = missingPermissions(ctx.actor.permissions, ['tool.use']);
      if (missing.length) throw new Error(`Permission denied: MCP tools need ${missing.join(', ')}, which the user this run acts for does not have`);
      const signals = [ctx.signal, options.abortSignal].filter((s): s is AbortSignal => s !== undefined);
      let res: Awaited<ReturnType<typeof conn.client.callTool>>;
      try {
        res = await conn.client.callTool({ name: t.name, arguments: (input ?? {}) as Record<string, unknown> }, undefined, {
          timeout: MCP_CALL_TIMEOUT_MS,
          ...(signals.length ? { signal: signals.length === 1 ? signals[0]! : AbortSignal.any(signals) } : {}),
        });
      } catch (err) {
        throw new Error(`MCP tool ${server.name}/${t.name} failed: ${describeMcpError(err, server.url)}`);
      }
      return mcpResultToOutput(res as CallToolResult | { toolResult: unknown });
    },
  });
}

/**
 * What the model gets back: the structured content when the tool gives one, else the text, or
 * the parts (binary data left out: the model cannot read base64 images here anyway). An
 * `isError` result throws its text, which the run reports as a tool error.
 */
export function mcpResultToOutput(res: CallToolResult | { toolResult: unknown }): unknown {
  if ('toolResult' in res) return res.toolResult;
  const content = res.content ?? [];
  const text = content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
  if (res.isError) throw new Error(text || 'The MCP tool reported an error');
  if (res.structuredContent) return res.structuredContent;
  if (content.every((c) => c.type === 'text')) return text;
  return content.map((c) => {
    switch (c.type) {
      case 'text':
        return { type: 'text', text: c.text };
      case 'resource':
        return { type: 'resource', uri: c.resource.uri, ...('text' in c.resource ? { text: c.resource.text } : {}) };
      case 'resource_link':
        return { type: 'resource_link', uri: c.uri, name: c.name };
      default:
        return { type: c.type, mimeType: c.mimeType };
    }
  });
}
