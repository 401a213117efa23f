import type { FastifyInstance } from 'fastify';
import { hasPermission } from '../../../platform/auth/actor.js';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contextOf } from '../../../platform/context.js';
import { deprecationDescription, type DeprecationInfo } from '../../../platform/http/deprecation.js';
import { NotFoundError } from '../../../platform/http/errors.js';
import { IdParams } from '../../../platform/http/pagination.js';
import { withErrors } from '../../../platform/http/responses.js';
import { CreateSourceBody, CustomFeedList, DeleteResult, FeedSyncResult, SourceList, SourceSchema, SyncResult, UpdateSourceBody } from './sources.schemas.js';
import { toCustomFeedDto, toSourceDto, type SourcesService } from './sources.service.js';

/** The legacy custom-RSS listing: kept working, pointing at /sources. */
const LEGACY_FEEDS: DeprecationInfo = { replacement: '/sources', deprecatedAt: new Date('2026-11-01T00:00:00Z') };

export function registerSourcesRoutes(root: FastifyInstance, service: SourcesService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Intel'];
  const read = { permissions: ['intel.read' as const] };
  const manage = { permissions: ['intel.manage' as const] };

  app.get('/sources', {
    config: read,
    schema: { operationId: 'listIntelSources', tags, summary: 'List built-in and custom intel sources', response: withErrors({ 200: SourceList }) },
  }, async (req) => {
    const reveal = hasPermission(contextOf(req).actor, 'intel.manage');
    return { sources: (await service.listViews(contextOf(req))).map((v) => toSourceDto(v, reveal)) };
  });

  app.get('/sources/:id', {
    config: read,
    schema: {
      operationId: 'getIntelSource',
      tags,
      summary: 'Get one intel source (built-in or custom), with its sync job',
      description: 'The same object as an item of `GET /sources`: `lastStatus`, `lastError` and `syncJob` (the latest sync job: pending, running, succeeded or failed) tell how its syncs go. 404 for another organization\'s custom source.',
      params: IdParams,
      response: withErrors({ 200: SourceSchema }, 404),
    },
  }, async (req) => {
    const ctx = contextOf(req);
    return toSourceDto(await service.get(ctx, req.params.id), hasPermission(ctx.actor, 'intel.manage'));
  });

  app.post('/sources', {
    config: { ...manage, outboundUrls: ['feedUrl', 'serverUrl'] },
    schema: {
      operationId: 'createIntelSource',
      tags,
      summary: 'Create a custom intel source (RSS/Atom/JSON Feed, MISP, MISP feed or TAXII 2.1)',
      description:
        'kind `rss` needs `feedUrl`. kind `api` needs `serverUrl` and `apiType`: `misp` (MISP REST API base URL, with `apiKey`), `misp_feed` (the directory holding `manifest.json`), `osv` (a zip of OSV records as OSV\'s per-ecosystem all.zip, a JSON array or NDJSON), `cisa_kev` (the CISA KEV catalog JSON), `epss` (the EPSS scores CSV, gzip or plain), `nvd` (an NVD CVE API 2.0 URL or file; `apiKey` as NVD\'s apiKey header), `csaf` (a CSAF 2.0 provider\'s provider-metadata.json, a ROLIE feed or one CSAF document; `apiKey` as bearer token), `taxii` (discovery URL, API root or collection URL; optional `collectionId`; `apiKey` as bearer token, or `authType: "basic"` with `username` and `apiKey` as password). `apiKey` is write-only. Defaults: `enabled` true, `scheduleCron` every 30 min (rss) or hourly (api), `maxEntries` 200.',
      body: CreateSourceBody,
      response: withErrors({ 200: SourceSchema }),
    },
  }, async (req) => service.create(contextOf(req), req.body));

  app.put('/sources/:id', {
    config: { ...manage, outboundUrls: ['feedUrl', 'serverUrl'] },
    schema: {
      operationId: 'updateIntelSource',
      tags,
      summary: 'Update a custom source, or toggle the subscription of a built-in source',
      description: 'Custom sources: any field of create except `kind`; omitted fields are kept. Built-in sources accept only `{enabled}` (this organization\'s subscription); anything else is a 400.',
      params: IdParams,
      body: UpdateSourceBody,
      response: withErrors({ 200: SourceSchema }, 404),
    },
  }, async (req) => service.update(contextOf(req), req.params.id, req.body));

  app.delete('/sources/:id', {
    config: manage,
    schema: {
      operationId: 'deleteIntelSource',
      tags,
      summary: 'Delete a custom source and its intel items',
      description: 'Items and their indicators go in the same transaction. Built-in sources cannot be deleted (400); unsubscribe instead.',
      params: IdParams,
      response: withErrors({ 200: DeleteResult }, 404),
    },
  }, async (req) => service.remove(contextOf(req), req.params.id));

  app.post('/sources/:id/sync', {
    config: manage,
    schema: {
      operationId: 'syncIntelSource',
      tags,
      summary: 'Enqueue an immediate sync',
      description: 'Returns the job. While a sync of this source is pending or running, that job is returned instead of a new one.',
      params: IdParams,
      response: withErrors({ 200: SyncResult }, 404),
    },
  }, async (req) => {
    const { view, jobId } = await service.sync(contextOf(req), req.params.id);
    return { source: toSourceDto(view, true), jobId };
  });

  app.get('/custom-rss-feeds', {
    config: { ...read, deprecated: LEGACY_FEEDS },
    schema: {
      operationId: 'listCustomRssFeeds',
      tags,
      summary: 'List custom RSS feeds (legacy)',
      deprecated: true,
      description: deprecationDescription(LEGACY_FEEDS),
      response: withErrors({ 200: CustomFeedList }),
    },
  }, async (req) => {
    const views = await service.listViews(contextOf(req));
    const reveal = hasPermission(contextOf(req).actor, 'intel.manage');
    return { feeds: views.filter((v) => !v.builtinKey && v.kind === 'rss').map((v) => toCustomFeedDto(v, reveal)) };
  });

  app.post('/custom-rss-feeds/:id/sync', {
    config: { ...manage, deprecated: LEGACY_FEEDS },
    schema: {
      operationId: 'syncCustomRssFeed',
      tags,
      summary: 'Enqueue an immediate sync of a custom RSS feed (legacy)',
      deprecated: true,
      description: deprecationDescription({ ...LEGACY_FEEDS, replacement: 'POST /sources/{id}/sync' }),
      params: IdParams,
      response: withErrors({ 200: FeedSyncResult }, 404),
    },
  }, async (req) => {
    const ctx = contextOf(req);
    const view = await service.get(ctx, req.params.id);
    if (view.builtinKey || view.kind !== 'rss') throw new NotFoundError('Custom RSS feed');
    const { view: after, jobId } = await service.sync(ctx, req.params.id);
    return { feed: toCustomFeedDto(after, true), jobId };
  });
}
