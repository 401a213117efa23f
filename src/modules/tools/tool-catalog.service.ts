import type { Database } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import { listMcpServerRows } from './mcp-servers.repo.js';
import { BUILTIN_TOOL_NAMES, BUILTIN_TOOL_PERMISSIONS } from './tool-names.js';

/**
 * The tools an agent may name: every built-in tool, and for each registered MCP server all of its
 * tools as `mcp:<server>/*`. One server's own tools are listed live by GET /api/mcp-servers/{id}/tools
 * (a network call, so not here).
 */
export function createToolCatalogService(deps: { db: Database }) {
  return {
    async list(ctx: RequestContext) {
      const servers = await listMcpServerRows(deps.db, ctx.actor.organizationId);
      return {
        tools: [
          ...BUILTIN_TOOL_NAMES.map((name) => ({ toolName: name, kind: 'builtin' as const, permissions: [...BUILTIN_TOOL_PERMISSIONS[name]], mcpServer: null, enabled: true })),
          ...servers.map((s) => ({ toolName: `mcp:${s.name}/*`, kind: 'mcp' as const, permissions: [], mcpServer: s.name, enabled: s.enabled })),
        ],
      };
    },
  };
}
