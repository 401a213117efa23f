/**
 * Tool policies (docs/approvals.md#tool-policies): what happens when the model calls a tool.
 * `allow` runs it, `approve` waits for a person, `deny` refuses it (the model is told so).
 * An agent sets a policy per tool name as it lists the tool (`toolPolicies`: a built-in name,
 * `mcp:<server>/<tool>`, or `mcp:<server>/*` for every tool of a server); a tool it sets none for
 * takes the tool's own default.
 */
export const TOOL_POLICIES = ['allow', 'approve', 'deny'] as const;
export type ToolPolicy = (typeof TOOL_POLICIES)[number];

/** MCP tool annotations (the MCP specification's hints) this decision reads. */
export interface McpToolHints {
  readOnlyHint?: boolean | undefined;
  destructiveHint?: boolean | undefined;
}

/**
 * An MCP tool's default: `allow` only when its server declares it read-only. A destructive tool,
 * one without annotations, and one declared neither read-only nor destructive (an additive write)
 * wait for a person: a hint is the server's claim, and only "reads nothing but reads" is safe to
 * take at its word.
 */
export function mcpDefaultPolicy(hints: McpToolHints | undefined): ToolPolicy {
  return hints?.readOnlyHint === true ? 'allow' : 'approve';
}

/** The HTTP methods that only read: any other `http_request` method waits for a person by default. */
const READ_METHODS = new Set(['GET', 'HEAD']);

/** The built-in tool whose default depends on the call (its method), not on the tool. */
export const HTTP_REQUEST_TOOL = 'http_request';

/**
 * The policy of one call. `configured`: the agent's policy for the tool (exact name first, then
 * its server's `mcp:<server>/*`), undefined when it set none; `declared`: the tool's default.
 */
export function callPolicy(args: { toolName: string; configured: ToolPolicy | undefined; declared: ToolPolicy; input: unknown }): ToolPolicy {
  if (args.configured) return args.configured;
  if (args.toolName === HTTP_REQUEST_TOOL) {
    const method = typeof args.input === 'object' && args.input !== null ? (args.input as { method?: unknown }).method : undefined;
    return typeof method === 'string' && !READ_METHODS.has(method.toUpperCase()) ? 'approve' : args.declared;
  }
  return args.declared;
}

/** The agent's policy for a tool it lists as `toolName` (`mcp:<server>/<tool>` falls back to `mcp:<server>/*`). */
export function configuredPolicy(policies: Readonly<Record<string, string>> | null | undefined, toolName: string, mcpServer?: string): ToolPolicy | undefined {
  const own = policies?.[toolName];
  if (isToolPolicy(own)) return own;
  if (mcpServer) {
    const wildcard = policies?.[`mcp:${mcpServer}/*`];
    if (isToolPolicy(wildcard)) return wildcard;
  }
  return undefined;
}

export function isToolPolicy(v: unknown): v is ToolPolicy {
  return typeof v === 'string' && (TOOL_POLICIES as readonly string[]).includes(v);
}
