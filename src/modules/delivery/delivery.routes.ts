import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contextOf } from '../../platform/context.js';
import { IdParams } from '../../platform/http/pagination.js';
import { withErrors } from '../../platform/http/responses.js';
import { DeliveriesQuery, Delivery, DeliveryList, DeliveryParams, TestResult } from './delivery.schemas.js';
import type { DeliveryService } from './delivery.service.js';

export function registerDeliveryRoutes(root: FastifyInstance, service: DeliveryService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Output Destinations'];

  app.get('/api/output-destinations/:id/deliveries', {
    config: { permissions: ['destination.read'] },
    schema: {
      operationId: 'listOutputDestinationDeliveries',
      tags,
      summary: 'Delivery log of a destination, newest first',
      description:
        'Each delivery with its status (`pending`, `sending`, `succeeded`, `retrying`, `failed`, `skipped`), attempts (status, excerpt, timing), ' +
        'and the next attempt when retrying. Stays readable after the destination is deleted. Filter with `status=failed,retrying`.',
      params: IdParams,
      querystring: DeliveriesQuery,
      response: withErrors({ 200: DeliveryList }, 404),
    },
  }, async (req) => service.list(contextOf(req), req.params.id, req.query));

  app.post('/api/output-destinations/:id/deliveries/:deliveryId/redeliver', {
    config: { permissions: ['destination.manage'] },
    schema: {
      operationId: 'redeliverDelivery',
      tags,
      summary: 'Send a delivery again',
      description: 'Queues the same event (same idempotency id) again with a fresh retry budget. 409 while it is `pending` or `sending`, or when the destination was deleted.',
      params: DeliveryParams,
      response: withErrors({ 200: Delivery }, 404, 409),
    },
  }, async (req) => service.redeliver(contextOf(req), req.params.id, req.params.deliveryId));

  app.post('/api/output-destinations/:id/test', {
    config: { permissions: ['destination.manage'] },
    schema: {
      operationId: 'testOutputDestination',
      tags,
      summary: 'Send a sample message now',
      description: 'Sends a sample message at once (not queued, not retried, not in the delivery log) and answers what the remote side said.',
      params: IdParams,
      response: withErrors({ 200: TestResult }, 404),
    },
  }, async (req) => service.test(contextOf(req), req.params.id));
}
