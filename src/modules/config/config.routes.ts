import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contextOf } from '../../platform/context.js';
import { publicResponses, withErrors } from '../../platform/http/responses.js';
import { PlanBody, PlanResult } from './config.schemas.js';
import type { ConfigService } from './config.service.js';
import type { RequestContext } from '../../platform/context.js';
import { VersionParams } from '../agents/index.js';

/**
 * Agents as code (docs/agents-as-code.md). Permissions are checked per kind inside: reading the
 * kinds a plan compares, and for apply what each change would need made by hand (403 with
 * `missingPerms`).
 */
export function registerConfigRoutes(root: FastifyInstance, service: ConfigService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Configuration as code'];
  const perKind = 'Needs the read permission of each kind the documents describe (every kind with `prune`)';

  app.post('/api/config/plan', {
    schema: {
      operationId: 'planConfig',
      tags,
      summary: 'Plan: what applying these documents would change',
      description: `${perKind}. Broken documents and references are 400 with an issue per problem at \`documents.<i>.…\`, all of them in one answer: the plan runs the apply's own writes and rolls them back, so what the apply would refuse (a technique the ATT&CK catalog does not know, a route's unknown log table) the plan refuses. Nothing is written. Secret fields are never shown (\`"(secret: will change)"\`, URLs redacted), and their values are compared only for callers with the kind's manage permission: for others they are listed in \`notCompared\`.`,
      body: PlanBody,
      response: withErrors({ 200: PlanResult }),
    },
  }, async (req) => service.plan(contextOf(req), req.body));

  app.post('/api/config/apply', {
    schema: {
      operationId: 'applyConfig',
      tags,
      summary: 'Apply documents: every change of the plan in one transaction',
      description:
        `${perKind}, plus what each change needs made by hand (e.g. \`agent.create\`, \`destination.manage\`). All or nothing: any failure writes nothing. ` +
        'What it creates or updates is marked `managedBy: "code"` (with `source` as `managedSource`); `prune` deletes only resources managed by code that no document names. Applying the same documents again answers no changes.',
      body: PlanBody,
      response: withErrors({ 200: PlanResult }, 409),
    },
  }, async (req) => service.apply(contextOf(req), req.body));

  app.get('/api/config/export', {
    schema: {
      operationId: 'exportConfig',
      tags,
      summary: 'Export the organization\'s configuration as YAML documents',
      description:
        'Every secret field is written as a `${env:RAMPART_<KIND>_<NAME>_<FIELD>}` reference, for every caller: stored tokens, API keys and signing secrets, and URLs that carry a credential (`?sig=`, `?apikey=`, a Slack webhook path, `user:pass@`). So an export never carries a secret, and every other field is what the resource\'s own GET shows the caller. Needs the read permission of every kind (403 with `missingPerms` otherwise).',
      produces: ['application/yaml'],
      response: withErrors({ 200: z.string().describe('YAML documents separated by `---`') }),
    },
  }, async (req, reply) => {
    // Built before the reply gets its YAML serializer: a refusal (403) must go out as the usual JSON error.
    const yaml = await service.export(contextOf(req));
    return reply.type('application/yaml; charset=utf-8').serializer((x) => x as string).send(yaml);
  });

  app.get('/api/docs/config.schema.json', {
    config: { public: true },
    schema: { operationId: 'getConfigSchema', tags, summary: 'JSON Schema of configuration documents', description: 'For editors: validates `rampart apply` files as people type.', security: [], response: publicResponses({ 200: z.record(z.string(), z.unknown()).describe('JSON Schema (draft 2020-12)') }) },
  }, async (_req, reply) => reply.type('application/schema+json').send(service.jsonSchema()));
}

/** GET …/versions/{version}/document: a version of an agent as the document to paste in its file (agent-version-document.ts). */
export function registerAgentVersionDocumentRoute(root: FastifyInstance, document: (ctx: RequestContext, agentId: string, version: number) => Promise<string>): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.get('/api/agents/:agentId/versions/:version/document', {
    config: { permissions: ['agent.read'] },
    schema: {
      operationId: 'getAgentVersionDocument',
      tags: ['Agents'],
      summary: 'A version of an agent as an Agent document (YAML)',
      description:
        'The `Agent` document of `rampart apply` that makes the agent what it was at `version` (output destinations by name, as in an export; `maxConcurrentRuns` as the agent has it now, since versions do not record it). ' +
        'For an agent managed by code, restoring by hand is 409: put this document in its file and apply it instead. The document is named as the agent was at that version. 404 `Agent version not found` / `Agent not found`.',
      params: VersionParams,
      produces: ['application/yaml'],
      response: withErrors({ 200: z.string().describe('One YAML document, preceded by a comment line') }, 404),
    },
  }, async (req, reply) => {
    const yaml = await document(contextOf(req), req.params.agentId, req.params.version);
    return reply.type('application/yaml; charset=utf-8').serializer((x) => x as string).send(yaml);
  });
}
