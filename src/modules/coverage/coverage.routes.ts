import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contextOf } from '../../platform/context.js';
import { IdParams } from '../../platform/http/pagination.js';
import { DeleteResult, withErrors } from '../../platform/http/responses.js';
import { CoverageQuery, CoverageReport, CoverageSummaryQuery, LayerImportResult, LayerList, LayerQuery, TechniqueDetail, TechniqueParams } from './coverage.schemas.js';
import type { CoverageService } from './coverage.service.js';
import { NavigatorLayer } from './navigator.schemas.js';

/**
 * Permissions (docs/coverage.md#permissions): reading coverage joins detections and intel, so it
 * needs both `alert.read` and `intel.read`; the imported layers are detections declared elsewhere,
 * read with `alert.read` and imported or deleted with `alert.manage` (as code detections are).
 */
export function registerCoverageRoutes(root: FastifyInstance, s: CoverageService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['MITRE Coverage'];
  const read = { permissions: ['alert.read' as const, 'intel.read' as const] };
  const readLayers = { permissions: ['alert.read' as const] };
  const manage = { permissions: ['alert.manage' as const] };

  app.get('/api/coverage/attack', {
    config: read,
    schema: { operationId: 'getAttackCoverage', tags, summary: 'ATT&CK coverage: detections against the techniques the intel names, per technique and tactic, with the top gaps', querystring: CoverageSummaryQuery, response: withErrors({ 200: CoverageReport }) },
  }, async (req) => s.report(contextOf(req), req.query));

  app.get('/api/coverage/attack/techniques/:techniqueId', {
    config: read,
    schema: { operationId: 'getTechniqueCoverage', tags, summary: "One technique's coverage: its detections and the intel behind it (a sub-technique answers for its parent)", params: TechniqueParams, querystring: CoverageQuery, response: withErrors({ 200: TechniqueDetail }, 404) },
  }, async (req) => s.technique(contextOf(req), req.params.techniqueId, req.query));

  app.get('/api/coverage/attack/navigator-layer', {
    config: read,
    schema: { operationId: 'exportNavigatorLayer', tags, summary: 'Coverage as an ATT&CK Navigator layer (format 4.5): view coverage, intel or gaps', querystring: LayerQuery, response: withErrors({ 200: NavigatorLayer }) },
  }, async (req, reply) => {
    const layer = await s.layer(contextOf(req), req.query);
    void reply.header('content-disposition', `attachment; filename="rampart-attack-${req.query.view}-${req.query.window}.json"`);
    return layer;
  });

  app.post('/api/coverage/attack/navigator-layer', {
    config: manage,
    schema: { operationId: 'importNavigatorLayer', tags, summary: 'Import a Navigator layer as declared external coverage (a layer of the same name is replaced)', body: NavigatorLayer, response: withErrors({ 200: LayerImportResult }) },
  }, async (req) => s.importLayer(contextOf(req), req.body));

  app.get('/api/coverage/attack/layers', {
    config: readLayers,
    schema: { operationId: 'listCoverageLayers', tags, summary: 'Imported Navigator layers (declared external coverage)', response: withErrors({ 200: LayerList }) },
  }, async (req) => s.listLayers(contextOf(req)));

  app.get('/api/coverage/attack/layers/:id', {
    config: readLayers,
    schema: { operationId: 'getCoverageLayer', tags, summary: 'An imported layer, as it was imported', params: IdParams, response: withErrors({ 200: NavigatorLayer }, 404) },
  }, async (req) => s.getLayer(contextOf(req), req.params.id));

  app.delete('/api/coverage/attack/layers/:id', {
    config: manage,
    schema: { operationId: 'deleteCoverageLayer', tags, summary: 'Delete an imported layer', params: IdParams, response: withErrors({ 200: DeleteResult }, 404) },
  }, async (req) => s.removeLayer(contextOf(req), req.params.id));
}
