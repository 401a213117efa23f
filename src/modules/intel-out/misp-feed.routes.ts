import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../platform/http/request-hooks.js';
import { NotFoundError } from '../../platform/http/errors.js';
import { withErrors } from '../../platform/http/responses.js';
import type { MispFeedService } from './misp-feed.service.js';

const FeedParams = z.object({ collectionId: z.string().min(1).max(100).describe('A TAXII collection id: the organization\'s "all indicators" collection or a source id') });
const EventParams = FeedParams.extend({ file: z.string().min(1).max(100).describe('`<event uuid>.json`') });
const EVENT_FILE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.json$/i;

/** A MISP feed ("Add feed", source format MISP) per collection; auth as TAXII (Basic or Bearer), `intel.read`. */
export function registerMispFeedRoutes(root: FastifyInstance, deps: { feed: MispFeedService }): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Intel'];
  const config = { permissions: ['intel.read' as const], basicAuth: true };

  app.get('/misp-feed/:collectionId/manifest.json', {
    config,
    schema: { operationId: 'getMispFeedManifest', tags, summary: 'MISP feed manifest (one event per intel item, keyed by uuid)', params: FeedParams, response: withErrors({ 200: z.record(z.string(), z.unknown()) }, 404) },
  }, async (req, reply) => reply.header('content-type', 'application/json').send(await deps.feed.manifest(actorOf(req).organizationId, req.params.collectionId)));

  app.get('/misp-feed/:collectionId/hashes.csv', {
    config,
    schema: { operationId: 'getMispFeedHashes', tags, summary: 'MISP feed hashes.csv (md5 of each attribute value, event uuid)', params: FeedParams, response: withErrors({ 200: z.string() }, 404) },
  }, async (req, reply) => reply.header('content-type', 'text/csv; charset=utf-8').send(await deps.feed.hashes(actorOf(req).organizationId, req.params.collectionId)));

  app.get('/misp-feed/:collectionId/:file', {
    config,
    schema: { operationId: 'getMispFeedEvent', tags, summary: 'One MISP feed event (`<uuid>.json`)', params: EventParams, response: withErrors({ 200: z.record(z.string(), z.unknown()) }, 404) },
  }, async (req, reply) => {
    const m = EVENT_FILE.exec(req.params.file);
    if (!m) throw new NotFoundError('Event');
    return reply.header('content-type', 'application/json').send(await deps.feed.event(actorOf(req).organizationId, req.params.collectionId, m[1]!.toLowerCase()));
  });
}
