import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contextOf } from '../../platform/context.js';
import { ForceQuery } from '../../platform/managed.js';
import { LimitOffsetQuery } from '../../platform/http/pagination.js';
import { DeleteResult, withErrors } from '../../platform/http/responses.js';
import { deferred, later } from '../../platform/http/lazy-schemas.js';
import { agentSchemas, agentWriteSchema, AgentIdParams } from './agents.schemas.js';
import type { AgentsService } from './agents.service.js';

const { Agent, AgentList } = deferred(agentSchemas);

/** `builtinTools`: the names of the service's built-in tools, which an agent's `toolNames` may list. */
export function registerAgentsRoutes(root: FastifyInstance, service: AgentsService, builtinTools: readonly string[]): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const AgentWrite = later(() => agentWriteSchema(builtinTools));
  const tags = ['Agents'];

  app.get('/api/agents', {
    config: { permissions: ['agent.read'] },
    schema: { operationId: 'listAgents', tags, summary: 'List agents', querystring: LimitOffsetQuery, response: withErrors({ 200: AgentList }) },
  }, async (req) => service.list(contextOf(req), req.query.limit, req.query.offset));

  app.post('/api/agents', {
    config: { permissions: ['agent.create'] },
    schema: {
      operationId: 'createAgent',
      tags,
      summary: 'Create an agent',
      description:
        'Output destination ids and MCP servers named in `toolNames` must belong to the organization (400 otherwise). The model alias is resolved when a run starts: an alias with no provider fails the run with a clear `statusMessage`. ' +
        'With an `openai` or `openai-compatible` model the `structuredOutputSchema` is sent in OpenAI strict mode, rewritten for it (every property required, optional ones nullable, every object closed; the nulls are dropped before validation); ' +
        'a schema strict mode cannot express is sent non-strict, and the answer\'s `warnings` says so. The new agent is `version` 1 (GET /api/agents/{agentId}/versions).',
      body: AgentWrite,
      response: withErrors({ 200: Agent }),
    },
  }, async (req) => service.create(contextOf(req), req.body));

  app.get('/api/agents/:agentId', {
    config: { permissions: ['agent.read'] },
    schema: { operationId: 'getAgent', tags, summary: 'Get an agent', params: AgentIdParams, response: withErrors({ 200: Agent }, 404) },
  }, async (req) => service.get(contextOf(req), req.params.agentId));

  app.put('/api/agents/:agentId', {
    config: { permissions: ['agent.manage'] },
    schema: {
      operationId: 'replaceAgent',
      tags,
      summary: 'Replace an agent',
      description:
        'Omitted optional fields take their defaults. A change appends the agent\'s next version (GET /api/agents/{agentId}/versions; `version` answers it); a replace that changes nothing appends none. An agent managed by code is 409 without `force=true`.',
      params: AgentIdParams,
      querystring: ForceQuery,
      body: AgentWrite,
      response: withErrors({ 200: Agent }, 404, 409),
    },
  }, async (req) => service.update(contextOf(req), req.params.agentId, req.body, { force: req.query.force }));

  app.delete('/api/agents/:agentId', {
    config: { permissions: ['agent.manage'] },
    schema: { operationId: 'deleteAgent', tags, summary: 'Delete an agent with its triggers and runs', description: 'An agent managed by code is 409 without `force=true`.', params: AgentIdParams, querystring: ForceQuery, response: withErrors({ 200: DeleteResult }, 404, 409) },
  }, async (req) => service.remove(contextOf(req), req.params.agentId, { force: req.query.force }));
}
