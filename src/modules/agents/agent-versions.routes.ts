import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contextOf } from '../../platform/context.js';
import { LimitOffsetQuery } from '../../platform/http/pagination.js';
import { ForceQuery } from '../../platform/managed.js';
import { withErrors } from '../../platform/http/responses.js';
import { agentSchemas, AgentIdParams } from './agents.schemas.js';
import { deferred } from '../../platform/http/lazy-schemas.js';
import { agentVersionSchemas, DiffQuery, VersionParams } from './agent-versions.schemas.js';
import type { AgentVersionsService } from './agent-versions.service.js';

const RECORDED =
  'A version is the whole agent after a change (prompt, model, tools and their policies, approval settings, inputs, output schema, destinations, limits, acceptance criteria and their notification) with its triggers\' settings (never their secrets), ' +
  'appended in the change\'s transaction by every create, replace (API or console), `rampart apply` and restore, and by trigger changes; a change that changes nothing appends none. Versions are never edited or removed (they go with their agent).';

const { Agent } = deferred(agentSchemas);
const { AgentVersion, AgentVersionDiff, AgentVersionList } = deferred(agentVersionSchemas);

export function registerAgentVersionsRoutes(root: FastifyInstance, service: AgentVersionsService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Agents'];

  app.get('/api/agents/:agentId/versions', {
    config: { permissions: ['agent.read'] },
    schema: {
      operationId: 'listAgentVersions',
      tags,
      summary: "List an agent's versions",
      description: `Newest first, paged by \`limit\`/\`offset\`. ${RECORDED}`,
      params: AgentIdParams,
      querystring: LimitOffsetQuery,
      response: withErrors({ 200: AgentVersionList }, 404),
    },
  }, async (req) => service.list(contextOf(req), req.params.agentId, req.query.limit, req.query.offset));

  app.get('/api/agents/:agentId/versions/:version', {
    config: { permissions: ['agent.read'] },
    schema: {
      operationId: 'getAgentVersion',
      tags,
      summary: 'Get one version of an agent',
      description: 'The version with its snapshot. 404 `Agent version not found` for a version the agent does not have, `Agent not found` for an agent of another organization.',
      params: VersionParams,
      response: withErrors({ 200: AgentVersion }, 404),
    },
  }, async (req) => service.get(contextOf(req), req.params.agentId, req.params.version));

  app.get('/api/agents/:agentId/versions/:version/diff', {
    config: { permissions: ['agent.read'] },
    schema: {
      operationId: 'diffAgentVersion',
      tags,
      summary: 'Compare two versions of an agent',
      description:
        'What changed from `against` (default: the version before) to `version`, field by field: scalars with their two values, the prompt and description line by line, ' +
        'structured fields (tools, inputs, output schema, destinations, triggers) as indented JSON line by line. Version 1 is compared with nothing by default. Either version unknown: 404.',
      params: VersionParams,
      querystring: DiffQuery,
      response: withErrors({ 200: AgentVersionDiff }, 404),
    },
  }, async (req) => service.diff(contextOf(req), req.params.agentId, req.params.version, req.query.against));

  app.post('/api/agents/:agentId/versions/:version/restore', {
    config: { permissions: ['agent.manage'] },
    schema: {
      operationId: 'restoreAgentVersion',
      tags,
      summary: 'Restore a version of an agent',
      description:
        'Makes the agent what it was at `version` and appends a new version equal to it (`source` `restore`, `restoredFrom` the version), audited as `agent.restore`; the answer is the agent with its new `version`. ' +
        'Restoring the version the agent already is appends nothing. The agent\'s own fields are restored; its triggers are not (they keep their current settings and secrets, so the new version records them as they are). ' +
        'A version naming an output destination or MCP server that is gone fails with 400, like a replace would. ' +
        'An agent managed by code (`managedBy: "code"`) is 409: its message points at the version\'s document (GET …/versions/{version}/document) to put in the agent\'s file and apply; ' +
        'with `force=true` it is restored here anyway, like a forced replace, and marked as drifted from code (`driftedFromCodeAt`) until the next apply puts the file\'s version back.',
      params: VersionParams,
      querystring: ForceQuery,
      response: withErrors({ 200: Agent }, 404, 409),
    },
  }, async (req) => service.restore(contextOf(req), req.params.agentId, req.params.version, { force: req.query.force }));
}
