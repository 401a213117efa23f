import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ForceQuery } from '../../platform/managed.js';
import { contextOf } from '../../platform/context.js';
import { IdParams } from '../../platform/http/pagination.js';
import { withErrors } from '../../platform/http/responses.js';
import { serializedAs } from '../../platform/http/serializer.js';
import { DeleteResult, Destination, DestinationInput, DestinationList, RotatedSigningSecret, RotateSigningSecretInput, type DestinationDto } from './destinations.schemas.js';
import type { DestinationsService } from './destinations.service.js';

export function registerDestinationsRoutes(root: FastifyInstance, service: DestinationsService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Output Destinations'];
  const read = { permissions: ['destination.read' as const] };
  const manage = { permissions: ['destination.manage' as const] };

  app.get('/api/output-destinations', {
    config: read,
    schema: {
      operationId: 'listOutputDestinations',
      tags,
      summary: 'List all output destinations of the organization',
      description: 'A JSON array; each element is one of the six variants. `token` appears only for callers with `destination.manage`; `hasToken` always.',
      response: withErrors({ 200: DestinationList }),
    },
  }, async (req) => serializedAs<DestinationDto[]>(await service.listJson(contextOf(req))));

  app.get('/api/output-destinations/:id', {
    config: read,
    schema: {
      operationId: 'getOutputDestination',
      tags,
      summary: 'Get one output destination',
      description: 'Also answers its delivery health: `lastDeliveryStatus`, `lastError`, `consecutiveFailures` (a failing destination keeps being tried; it is never disabled).',
      params: IdParams,
      response: withErrors({ 200: Destination }, 404),
    },
  }, async (req) => service.get(contextOf(req), req.params.id));

  app.post('/api/output-destinations', {
    config: { ...manage, outboundUrls: ['config.url', 'config.apiBaseUrl', 'config.tenantUrl'] },
    schema: { operationId: 'createOutputDestination', tags, summary: 'Create an output destination', body: DestinationInput, response: withErrors({ 200: Destination }) },
  }, async (req) => service.create(contextOf(req), req.body));

  app.put('/api/output-destinations/:id', {
    config: { ...manage, outboundUrls: ['config.url', 'config.apiBaseUrl', 'config.tenantUrl'] },
    schema: {
      operationId: 'replaceOutputDestination',
      tags,
      summary: 'Replace an output destination',
      description: 'Replaces name, type and config. Omitting `token` keeps the stored token; `token: null` clears it. A destination managed by code is 409 without `force=true`.',
      params: IdParams,
      querystring: ForceQuery,
      body: DestinationInput,
      response: withErrors({ 200: Destination }, 404, 409),
    },
  }, async (req) => service.update(contextOf(req), req.params.id, req.body, { force: req.query.force }));

  app.post('/api/output-destinations/:id/rotate-signing-secret', {
    config: manage,
    schema: {
      operationId: 'rotateDestinationSigningSecret',
      tags,
      summary: 'Rotate a webhook destination\'s signing secret',
      description:
        'Extension. Generates a new Standard Webhooks signing secret (`whsec_…`) and answers it once. For `overlapSeconds` (default a day) the previous secret signs too: `webhook-signature` carries both `v1,` signatures, space-separated, so a receiver verifies with either while it is switched. 400 for a destination that is not a webhook.',
      params: IdParams,
      body: RotateSigningSecretInput,
      response: withErrors({ 200: RotatedSigningSecret }, 404),
    },
  }, async (req) => service.rotateSigningSecret(contextOf(req), req.params.id, req.body.overlapSeconds));

  app.delete('/api/output-destinations/:id', {
    config: manage,
    schema: {
      operationId: 'deleteOutputDestination',
      tags,
      summary: 'Delete an output destination',
      description: '409 while agents name it in `outputDestinationIds` (the message names them). Its delivery log stays readable at `GET /api/output-destinations/{id}/deliveries`.',
      params: IdParams,
      querystring: ForceQuery,
      response: withErrors({ 200: DeleteResult }, 404, 409),
    },
  }, async (req) => service.remove(contextOf(req), req.params.id, { force: req.query.force }));
}
