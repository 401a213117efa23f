import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contextOf } from '../../platform/context.js';
import { withErrors } from '../../platform/http/responses.js';
import { AvailableToolList } from './tool-catalog.schemas.js';
import type { createToolCatalogService } from './tool-catalog.service.js';

export function registerToolCatalogRoutes(root: FastifyInstance, service: ReturnType<typeof createToolCatalogService>): void {
  root.withTypeProvider<ZodTypeProvider>().get('/api/tools', {
    config: { permissions: ['tool.read' as const] },
    schema: {
      operationId: 'listTools',
      tags: ['Tools'],
      summary: 'List the tools agents may use',
      description: 'Extension: every built-in tool (with the permissions it needs) and, per registered MCP server, `mcp:<server>/*` (all its tools). The tools of one MCP server are listed live by `GET /api/mcp-servers/{id}/tools`.',
      response: withErrors({ 200: AvailableToolList }),
    },
  }, async (req) => service.list(contextOf(req)));
}
