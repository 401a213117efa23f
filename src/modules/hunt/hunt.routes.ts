import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contextOf } from '../../platform/context.js';
import { IdParams } from '../../platform/http/pagination.js';
import { DeleteResult, withErrors } from '../../platform/http/responses.js';
import {
  AlertSettings, AlertSettingsInput, Asset, AssetInput, AssetList, AssetQuery, Deliverable, DeliverableParams, DeliverableUpdate, DismissInput,
  ImportInput, ImportResult, SightingsInput, SightingsResult, ThreatList, ThreatView, ThreatsQuery,
} from './hunt.schemas.js';
import type { ThreatsService } from './threats.service.js';
import type { createAssetsService } from './assets.service.js';

export function registerHuntRoutes(root: FastifyInstance, s: { threats: ThreatsService; assets: ReturnType<typeof createAssetsService> }): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Hunt'];
  const read = { permissions: ['hunt.read' as const] };
  const manage = { permissions: ['hunt.manage' as const] };
  const VIEW = 'The full threat view: `{threat, runs, deliverables, intelItems, alerts, activeHuntAlert, latestAlert, activityEvents, capabilities}`.';

  app.get('/api/assets', { config: read, schema: { operationId: 'listAssets', tags, summary: 'List inventory assets with their software', querystring: AssetQuery, response: withErrors({ 200: AssetList }) } },
    async (req) => s.assets.list(contextOf(req), req.query));
  app.post('/api/assets', { config: manage, schema: { operationId: 'createAsset', tags, summary: 'Create an asset', description: '409 when the identifier exists (use PUT or an import to replace).', body: AssetInput, response: withErrors({ 200: Asset }, 409) } },
    async (req) => s.assets.create(contextOf(req), req.body));
  app.get('/api/assets/:id', { config: read, schema: { operationId: 'getAsset', tags, summary: 'Get an asset', params: IdParams, response: withErrors({ 200: Asset }, 404) } },
    async (req) => s.assets.get(contextOf(req), req.params.id));
  app.put('/api/assets/:id', { config: manage, schema: { operationId: 'replaceAsset', tags, summary: 'Replace an asset and its software list', params: IdParams, body: AssetInput, response: withErrors({ 200: Asset }, 404, 409) } },
    async (req) => s.assets.update(contextOf(req), req.params.id, req.body));
  app.delete('/api/assets/:id', { config: manage, schema: { operationId: 'deleteAsset', tags, summary: 'Delete an asset', params: IdParams, response: withErrors({ 200: DeleteResult }, 404) } },
    async (req) => s.assets.remove(contextOf(req), req.params.id));
  app.post('/api/assets/import', {
    config: manage,
    schema: {
      operationId: 'importAssets',
      tags,
      summary: 'Import inventory: CSV, CycloneDX JSON SBOM or osquery results',
      description: 'Idempotent by asset identifier: an asset is created or its software list replaced. Every row is held to the rules of `POST /api/assets`; bad rows are reported in `errors` and skipped. 400 (code `invalid_import`, naming the field) when the content is not the format; 413 beyond 5,000 assets, 20,000 software entries per asset or 100,000 in all per import.',
      body: ImportInput,
      response: withErrors({ 200: ImportResult }, 413),
    },
  }, async (req) => s.assets.import(contextOf(req), req.body));
  app.post('/api/sightings', {
    config: manage,
    schema: { operationId: 'reportSightings', tags, summary: 'Report observed values (bulk) from a log pipeline', description: 'Threats whose indicators match are reassessed in the background (trigger `sighting`).', body: SightingsInput, response: withErrors({ 200: SightingsResult }) },
  }, async (req) => s.assets.sightings(contextOf(req), req.body));

  app.get('/api/threats', { config: read, schema: { operationId: 'listThreats', tags, summary: 'List CVE threats, most relevant first', querystring: ThreatsQuery, response: withErrors({ 200: ThreatList }) } },
    async (req) => s.threats.list(contextOf(req), req.query));
  app.get('/api/threats/:id', { config: read, schema: { operationId: 'getThreat', tags, summary: 'The full view of a threat', description: VIEW, params: IdParams, response: withErrors({ 200: ThreatView }, 404) } },
    async (req) => s.threats.view(contextOf(req), req.params.id));
  app.post('/api/threats/:id/dismiss', { config: manage, schema: { operationId: 'dismissThreat', tags, summary: 'Dismiss a threat explicitly', description: `409 when already dismissed. ${VIEW}`, params: IdParams, body: DismissInput, response: withErrors({ 200: ThreatView }, 404, 409) } },
    async (req) => s.threats.dismiss(contextOf(req), req.params.id, req.body.reason));
  app.post('/api/threats/:id/restore', { config: manage, schema: { operationId: 'restoreThreat', tags, summary: 'Clear an explicit dismissal', description: `The threat returns to its derived status. 409 when it is not dismissed. ${VIEW}`, params: IdParams, response: withErrors({ 200: ThreatView }, 404, 409) } },
    async (req) => s.threats.restore(contextOf(req), req.params.id));
  app.post('/api/threats/:id/reassess', { config: manage, schema: { operationId: 'reassessThreat', tags, summary: 'Reassess a threat now (run kind reassess, trigger manual)', description: VIEW, params: IdParams, response: withErrors({ 200: ThreatView }, 404) } },
    async (req) => s.threats.reassess(contextOf(req), req.params.id));
  app.put('/api/threats/:id/deliverables/:deliverableId', {
    config: manage,
    schema: { operationId: 'updateThreatDeliverable', tags, summary: 'Move a rule proposal along its lifecycle', description: 'authoring → review → deployed; review → authoring; any → retired. Only deployed proposals count as detection coverage.', params: DeliverableParams, body: DeliverableUpdate, response: withErrors({ 200: Deliverable }, 404) },
  }, async (req) => s.threats.updateDeliverable(contextOf(req), req.params.id, req.params.deliverableId, req.body));

  app.get('/api/hunt/alert-creation-settings', { config: read, schema: { operationId: 'getHuntAlertSettings', tags, summary: 'Hunt alert creation settings', response: withErrors({ 200: AlertSettings }) } },
    async (req) => s.threats.getSettings(contextOf(req)));
  app.put('/api/hunt/alert-creation-settings', {
    config: manage,
    schema: { operationId: 'updateHuntAlertSettings', tags, summary: 'Update the minimum exposure band and the compromise-signal override for hunt alerts', description: 'Bands by exposure score: low ≥ 1, medium ≥ 40, high ≥ 60, critical ≥ 80. Defaults: high, true, no EPSS minimums.', body: AlertSettingsInput, response: withErrors({ 200: AlertSettings }) },
  }, async (req) => s.threats.putSettings(contextOf(req), req.body));
}
