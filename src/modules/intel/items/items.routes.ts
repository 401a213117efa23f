import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { contextOf } from '../../../platform/context.js';
import { IdParams } from '../../../platform/http/pagination.js';
import { withErrors } from '../../../platform/http/responses.js';
import type { Database } from '../../../platform/db/database.js';
import { createDetectionService } from '../detection/detection.service.js';
import { CheckBody, CheckResult, IocList, IocListQuery } from '../iocs/iocs.schemas.js';
import type { IocsService } from '../iocs/iocs.service.js';
import { IntelItemDetailSchema, ItemList, ItemListQuery } from './items.schemas.js';
import type { ItemsService } from './items.service.js';
import { feedStats } from './stats.service.js';
import { intelCommands } from '../intel-commands.fns.js';

const DetectionContextResult = z
  .object({
    chatUrl: z.string().describe('Where this context can be fetched again (GET)'),
    asset: z.object({ id: z.string(), title: z.string(), type: z.string().describe('`sigma_rule`'), content: z.string().describe('Sigma YAML (one rule per indicator family, `---`-separated)') }),
    detectionContext: z.unknown().describe('itemId, title, severity, cves, indicators (by type), techniques, affectedProducts, logSources, summary'),
  })
  .meta({ id: 'DetectionContextResult' });

const Stats = z.object({
  totalItems: z.number().int(),
  severityBreakdown: z.object({ critical: z.number().int(), high: z.number().int(), medium: z.number().int(), low: z.number().int(), none: z.number().int() }),
  platformBreakdown: z.record(z.string(), z.number().int()),
  sourcePublishers: z.array(z.string()),
  recentItems: z.array(z.object({ id: z.string(), title: z.string(), severity: z.string(), publishTime: z.string() })),
});

export function registerItemsRoutes(root: FastifyInstance, deps: { items: ItemsService; iocs: IocsService; db: Database; baseUrl: string }): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Intel'];
  // The commands' permissions, shared with the agent tools that run them (intel-commands.fns.ts).
  const read = intelCommands.read;
  const detection = createDetectionService({ db: deps.db, baseUrl: deps.baseUrl });

  app.get('/items', {
    config: read,
    schema: {
      operationId: 'listIntelItems',
      tags,
      summary: 'List intel items',
      description: 'Newest first. `validations` echoes the filters as applied (and warnings, e.g. an unknown source); `outputs` holds facets over the whole filtered set: counts by severity and by source. An unknown query parameter is a 400 (one `unrecognized_keys` issue each), never silently ignored.',
      querystring: ItemListQuery,
      response: withErrors({ 200: ItemList }),
    },
  }, async (req) => deps.items.list(contextOf(req), req.query));

  app.get('/items/:id', {
    config: read,
    schema: { operationId: 'getIntelItem', tags, summary: 'Get one intel item', description: 'The intel item (the fields of the listing) plus `annotatedText`: its text with each extracted indicator at its exact character span.', params: IdParams, response: withErrors({ 200: IntelItemDetailSchema }, 404) },
  }, async (req) => deps.items.get(contextOf(req), req.params.id));

  const detectionSchema = { tags, params: IdParams, response: withErrors({ 200: DetectionContextResult }, 404) };
  app.post('/items/:id/detection-context', {
    config: read,
    schema: { operationId: 'generateDetectionContext', ...detectionSchema, summary: 'Generate detection context and a draft Sigma rule set for an item' },
  }, async (req) => detection.build(contextOf(req), req.params.id));
  app.get('/items/:id/detection-context', {
    config: read,
    schema: { operationId: 'getDetectionContext', ...detectionSchema, summary: 'Fetch the detection context of an item again (the chatUrl)' },
  }, async (req) => detection.build(contextOf(req), req.params.id));

  app.get('/iocs', {
    config: read,
    schema: {
      operationId: 'listIocs',
      tags,
      summary: 'Indicators of all intel items, flattened, with hunt status',
      description: 'Newest first. Each row has `value` as first written (possibly defanged), `normalizedValue` (refanged, canonical) and `defanged`. `search` matches a substring of the normalized value (a defanged term is refanged first); `type` one or more indicator types or an alias (`ip`, `hash`), anything else a 400; `status` the hunt status, which belongs to the value: a check recorded through any row applies to every row of the same type and normalized value. `statusCounts` covers the filtered set whatever `status` says. An unknown query parameter is a 400 (one `unrecognized_keys` issue each).',
      querystring: IocListQuery,
      response: withErrors({ 200: IocList }),
    },
  }, async (req) => deps.iocs.list(contextOf(req), req.query));

  app.post('/iocs/:id/checks', {
    config: intelCommands.recordIndicatorCheck,
    schema: {
      operationId: 'createIocCheck',
      tags,
      summary: 'Record a check of an indicator\'s value (found, clean or unknown)',
      description: 'Hunts, agents and integrations report what they saw. The check belongs to the value (type and normalized value), not to this row: it is stored once, and every row of the value — those of other items, and those of items that arrive later — shows the outcome of the value\'s most recent check (by checkedAt).',
      params: IdParams,
      body: CheckBody,
      response: withErrors({ 200: CheckResult }, 404),
    },
  }, async (req) => deps.iocs.recordCheck(contextOf(req), req.params.id, req.body));

  app.get('/stats', {
    config: read,
    schema: { operationId: 'getIntelStats', tags, summary: 'Aggregated statistics of the intel feed', response: withErrors({ 200: Stats }) },
  }, async (req) => feedStats(deps.db, contextOf(req)));
}
