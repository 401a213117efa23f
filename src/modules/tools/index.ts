import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule, type ModuleServices, type ServiceDeps } from '../../platform/module.js';
import { registerMcpServersRoutes } from './mcp-servers.routes.js';
import { createMcpServersService, type McpServersService } from './mcp-servers.service.js';
import { registerToolCatalogRoutes } from './tool-catalog.routes.js';
import { createToolCatalogService } from './tool-catalog.service.js';
import { BUILTIN_TOOLS } from './builtin-tools.js';
import type { FastifyInstance } from 'fastify';

export { buildToolSet, type ToolDeps, type ToolRunContext, type BuiltToolSet, type ExposedToolInfo, type ToolFactory } from './toolset.js';
export { callPolicy, configuredPolicy, isToolPolicy, TOOL_POLICIES, type ToolPolicy } from './tool-policy.fns.js';
export { requestContextOf, type ToolCatalog } from './tool-context.js';
export { MCP_TOOL_RE, parseMcpToolName } from './tool-names.js';
export { listMcpServerRows, unknownMcpServers } from './mcp-servers.repo.js';
export { McpServerInput, type McpServerInputT } from './mcp-servers.schemas.js';
export type { McpServersService } from './mcp-servers.service.js';

/**
 * The MCP servers' service: config apply writes servers through its commands. Its live tool
 * listing leaves through the process's client (in the API, one without retries, under
 * RAMPART_ALLOW_PRIVATE_NETWORKS like every other outbound call).
 */
function toolsServices({ db, secrets, http }: Pick<ServiceDeps, 'db' | 'secrets' | 'http'>): McpServersService {
  return createMcpServersService({ db, secrets, http });
}

function registerToolsModule(app: FastifyInstance, deps: ModuleDeps, services: ModuleServices<McpServersService>): void {
  registerMcpServersRoutes(app, services.own);
  registerToolCatalogRoutes(app, createToolCatalogService({ db: deps.database.db, tools: deps.tools }));
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['mcp_servers'] as const;

/** MCP servers, the tool catalog, the per-run tool set (src/composition.ts hands it every module's `tools`) and the general built-in tools. */
export const toolsModule = defineModule({ name: 'tools', owns: ownedTables, services: toolsServices, routes: registerToolsModule, tools: BUILTIN_TOOLS });
