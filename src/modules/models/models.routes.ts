import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ForceQuery } from '../../platform/managed.js';
import { contextOf } from '../../platform/context.js';
import { IdParams } from '../../platform/http/pagination.js';
import { DeleteResult, withErrors } from '../../platform/http/responses.js';
import { Alias, AliasInput, AliasList, AliasParams, Provider, ProviderInput, ProviderList } from './models.schemas.js';
import type { ModelsService } from './models.service.js';

/** Model configuration is agent configuration: read with `agent.read`, change with `agent.manage`. */
export function registerModelsRoutes(root: FastifyInstance, service: ModelsService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Agents'];
  const read = { permissions: ['agent.read' as const] };
  const manage = { permissions: ['agent.manage' as const] };

  app.get('/api/model-providers', {
    config: read,
    schema: { operationId: 'listModelProviders', tags, summary: 'List model providers', description: 'API keys are never returned; `hasApiKey` tells.', response: withErrors({ 200: ProviderList }) },
  }, async (req) => service.listProviders(contextOf(req)));

  app.get('/api/model-providers/:id', {
    config: read,
    schema: { operationId: 'getModelProvider', tags, summary: 'Get a model provider', params: IdParams, response: withErrors({ 200: Provider }, 404) },
  }, async (req) => service.getProvider(contextOf(req), req.params.id));

  app.post('/api/model-providers', {
    config: { ...manage, outboundUrls: ['baseUrl'] },
    schema: {
      operationId: 'createModelProvider',
      tags,
      summary: 'Add a model provider',
      description: 'Model traffic goes through the guarded outbound client: a provider on a private address (a local Ollama or vLLM) needs `RAMPART_ALLOW_PRIVATE_NETWORKS=true`.',
      body: ProviderInput,
      response: withErrors({ 200: Provider }, 409),
    },
  }, async (req) => service.createProvider(contextOf(req), req.body));

  app.put('/api/model-providers/:id', {
    config: { ...manage, outboundUrls: ['baseUrl'] },
    schema: { operationId: 'replaceModelProvider', tags, summary: 'Replace a model provider', description: 'Omitting `apiKey` keeps the stored key; `apiKey: null` clears it. A provider managed by code is 409 without `force=true`.', params: IdParams, querystring: ForceQuery, body: ProviderInput, response: withErrors({ 200: Provider }, 404, 409) },
  }, async (req) => service.updateProvider(contextOf(req), req.params.id, req.body, { force: req.query.force }));

  app.delete('/api/model-providers/:id', {
    config: manage,
    schema: { operationId: 'deleteModelProvider', tags, summary: 'Delete a model provider and the aliases that use it', params: IdParams, querystring: ForceQuery, response: withErrors({ 200: DeleteResult }, 404, 409) },
  }, async (req) => service.removeProvider(contextOf(req), req.params.id, { force: req.query.force }));

  app.get('/api/model-aliases', {
    config: read,
    schema: { operationId: 'listModelAliases', tags, summary: 'List model aliases', description: 'Agents name a model by alias (`default` when they name none).', response: withErrors({ 200: AliasList }) },
  }, async (req) => service.listAliases(contextOf(req)));

  app.put('/api/model-aliases/:alias', {
    config: manage,
    schema: { operationId: 'putModelAlias', tags, summary: 'Point an alias at a provider\'s model (creates or replaces it)', params: AliasParams, querystring: ForceQuery, body: AliasInput, response: withErrors({ 200: Alias }, 409) },
  }, async (req) => service.putAlias(contextOf(req), req.params.alias, req.body, { force: req.query.force }));

  app.delete('/api/model-aliases/:alias', {
    config: manage,
    schema: { operationId: 'deleteModelAlias', tags, summary: 'Delete a model alias', params: AliasParams, querystring: ForceQuery, response: withErrors({ 200: DeleteResult }, 404, 409) },
  }, async (req) => service.removeAlias(contextOf(req), req.params.alias, { force: req.query.force }));
}
