import type { Permission } from '../../platform/auth/permissions.js';

/**
 * Built-in tool names and the permissions each needs from the user a run acts for. Agents list
 * tools by these names; MCP tools are named `mcp:<server>/<tool>` (or `mcp:<server>/*` for all
 * tools of a registered server).
 */
export const BUILTIN_TOOL_PERMISSIONS = {
  search_intel_items: ['intel.read'],
  lookup_indicator: ['intel.read'],
  record_indicator_check: ['intel.manage'],
  send_to_destination: ['destination.read'],
  http_request: ['tool.use'],
  // Alert tools: implemented by the alerts module, passed into the tool set at composition (src/jobs.ts).
  get_alert: ['alert.read'],
  comment_on_alert: ['alert.triage'],
  update_alert: ['alert.triage'],
  set_alert_status: ['alert.triage'],
  create_alert: ['alert.triage'],
} as const satisfies Record<string, readonly Permission[]>;

export type BuiltinToolName = keyof typeof BUILTIN_TOOL_PERMISSIONS;
export const BUILTIN_TOOL_NAMES = Object.keys(BUILTIN_TOOL_PERMISSIONS) as BuiltinToolName[];

export function isBuiltinTool(name: string): name is BuiltinToolName {
  return Object.hasOwn(BUILTIN_TOOL_PERMISSIONS, name);
}

/** `mcp:<server>/<tool>` → its parts; the tool part may be `*`. */
export const MCP_TOOL_RE = /^mcp:([a-z0-9][a-z0-9_-]{0,63})\/([A-Za-z0-9_.*-]{1,128})$/;

export function parseMcpToolName(name: string): { server: string; tool: string } | null {
  const m = MCP_TOOL_RE.exec(name);
  return m ? { server: m[1]!, tool: m[2]! } : null;
}
