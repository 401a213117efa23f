import type { Database } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import { listMcpServerRows } from './mcp-servers.repo.js';
import type { ToolCatalog } from './tool-context.js';
import { HTTP_REQUEST_TOOL } from './tool-policy.fns.js';

/**
 * The tools an agent may name: every built-in tool, and for each registered MCP server all of its
 * tools as `mcp:<server>/*`. One server's own tools are listed live by GET /api/mcp-servers/{id}/tools
 * (a network call, so not here).
 */
export function createToolCatalogService(deps: { db: Database; tools: ToolCatalog }) {
  return {
    async list(ctx: RequestContext) {
      const servers = await listMcpServerRows(deps.db, ctx.actor.organizationId);
      return {
        tools: [
          ...Object.entries(deps.tools).map(([name, t]) => ({
            toolName: name,
            kind: 'builtin' as const,
            permissions: [...t.permissions],
            mcpServer: null,
            enabled: true,
            // As the run decides a call (toolset.ts, callPolicy): the declaration's default, `allow` when it declares none; http_request's depends on its method.
            defaultPolicy: name === HTTP_REQUEST_TOOL ? null : (t.defaultPolicy ?? 'allow'),
          })),
          ...servers.map((s) => ({ toolName: `mcp:${s.name}/*`, kind: 'mcp' as const, permissions: [], mcpServer: s.name, enabled: s.enabled, defaultPolicy: null })),
        ],
      };
    },
  };
}
