import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ForceQuery } from '../../platform/managed.js';
import { contextOf } from '../../platform/context.js';
import { IdParams } from '../../platform/http/pagination.js';
import { withErrors } from '../../platform/http/responses.js';
import { BadGatewayBody, DeleteResult, McpServer, McpServerInput, McpServerList, McpToolList } from './mcp-servers.schemas.js';
import type { McpServersService } from './mcp-servers.service.js';

export function registerMcpServersRoutes(root: FastifyInstance, service: McpServersService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Tools'];
  const read = { permissions: ['tool.read' as const] };
  const manage = { permissions: ['tool.manage' as const] };

  app.get('/api/mcp-servers', {
    config: read,
    schema: { operationId: 'listMcpServers', tags, summary: 'List MCP servers', description: 'Tokens are never returned; `hasToken` tells whether one is stored.', response: withErrors({ 200: McpServerList }) },
  }, async (req) => service.list(contextOf(req)));

  app.get('/api/mcp-servers/:id', {
    config: read,
    schema: { operationId: 'getMcpServer', tags, summary: 'Get an MCP server', params: IdParams, response: withErrors({ 200: McpServer }, 404) },
  }, async (req) => service.get(contextOf(req), req.params.id));

  app.post('/api/mcp-servers', {
    config: { ...manage, outboundUrls: ['url'] },
    schema: {
      operationId: 'createMcpServer',
      tags,
      summary: 'Register an MCP server',
      description:
        'A remote MCP server over Streamable HTTP. Agents use its tools as `mcp:<name>/<tool>` (or `mcp:<name>/*`). Its address goes through the guarded outbound client: a server on a private address needs `RAMPART_ALLOW_PRIVATE_NETWORKS=true`.',
      body: McpServerInput,
      response: withErrors({ 200: McpServer }, 409),
    },
  }, async (req) => service.create(contextOf(req), req.body));

  app.put('/api/mcp-servers/:id', {
    config: { ...manage, outboundUrls: ['url'] },
    schema: {
      operationId: 'replaceMcpServer',
      tags,
      summary: 'Replace an MCP server',
      description: 'Omitting `token` keeps the stored token; `token: null` clears it. Omitting `enabled` keeps it. Renaming a server that agents reference answers 409.',
      params: IdParams,
      querystring: ForceQuery,
      body: McpServerInput,
      response: withErrors({ 200: McpServer }, 404, 409),
    },
  }, async (req) => service.update(contextOf(req), req.params.id, req.body, { force: req.query.force }));

  app.delete('/api/mcp-servers/:id', {
    config: manage,
    schema: { operationId: 'deleteMcpServer', tags, summary: 'Delete an MCP server', description: 'Answers 409 while agents reference its tools.', params: IdParams, querystring: ForceQuery, response: withErrors({ 200: DeleteResult }, 404, 409) },
  }, async (req) => service.remove(contextOf(req), req.params.id, { force: req.query.force }));

  app.get('/api/mcp-servers/:id/tools', {
    config: read,
    schema: {
      operationId: 'listMcpServerTools',
      tags,
      summary: 'List the tools the MCP server offers (live)',
      description: 'Connects to the server now (15 s limit). A server that cannot be reached, refuses the token or does not speak MCP answers 502 with the reason.',
      params: IdParams,
      response: { ...withErrors({ 200: McpToolList }, 404), 502: BadGatewayBody },
    },
  }, async (req) => service.listTools(contextOf(req), req.params.id));
}
