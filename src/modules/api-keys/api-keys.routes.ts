import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contextOf } from '../../platform/context.js';
import { IdParams } from '../../platform/http/pagination.js';
import { withErrors } from '../../platform/http/responses.js';
import { ApiKeyList, ApiKeyListQuery, CreateApiKeyBody, CreatedApiKey, RevokeResult } from './api-keys.schemas.js';
import type { ApiKeysService } from './api-keys.service.js';

export function registerApiKeysRoutes(root: FastifyInstance, service: ApiKeysService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Organizations'];
  const config = { permissions: ['setting.apiKey.manage' as const] };

  app.get('/api/api-keys', {
    config,
    schema: { operationId: 'listApiKeys', tags, summary: 'List the API keys of the organization (never the keys themselves)', querystring: ApiKeyListQuery, response: withErrors({ 200: ApiKeyList }) },
  }, async (req) => service.list(contextOf(req), req.query));

  app.post('/api/api-keys', {
    config,
    schema: {
      operationId: 'createApiKey',
      tags,
      summary: 'Create an API key for the calling user or another user',
      description: 'The key acts as its user (same organization, role and permissions): the caller, or `userId` (e.g. a dedicated integration user), who must be active and may not hold a permission the caller lacks. `key` is shown in this response only.',
      body: CreateApiKeyBody,
      response: withErrors({ 200: CreatedApiKey }),
    },
  }, async (req) => service.create(contextOf(req), req.body));

  app.delete('/api/api-keys/:id', {
    config,
    schema: { operationId: 'revokeApiKey', tags, summary: 'Revoke an API key', description: 'The key answers 401 from now on, in every process. Revoking twice is harmless.', params: IdParams, response: withErrors({ 200: RevokeResult }, 404) },
  }, async (req) => service.revoke(contextOf(req), req.params.id));
}
