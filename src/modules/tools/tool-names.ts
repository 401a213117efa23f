/**
 * Agents list built-in tools by the names modules declare in their manifests (`tools`, assembled
 * by src/composition.ts), and MCP tools as `mcp:<server>/<tool>` (or `mcp:<server>/*` for all
 * tools of a registered server).
 */

/** `mcp:<server>/<tool>` → its parts; the tool part may be `*`. */
export const MCP_TOOL_RE = /^mcp:([a-z0-9][a-z0-9_-]{0,63})\/([A-Za-z0-9_.*-]{1,128})$/;

export function parseMcpToolName(name: string): { server: string; tool: string } | null {
  const m = MCP_TOOL_RE.exec(name);
  return m ? { server: m[1]!, tool: m[2]! } : null;
}
