import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ForceQuery } from '../../platform/managed.js';
import { contextOf } from '../../platform/context.js';
import { IdParams, LimitOffsetQuery } from '../../platform/http/pagination.js';
import { DeleteResult, withErrors } from '../../platform/http/responses.js';
import {
  AlertIdParams, AlertList, AlertListQuery, AlertOnly, AlertWithTimeline, AssignBody, AssignResult, BulkStatusBody, BulkStatusResult, CommentBody,
  CommentResult, CreateAlertBody, CreateAlertResult, ForRunParams, ForRunResult, PatchAlertBody, SeverityBody, StatusBody, StatusResult, TimelinePage,
} from './alerts.schemas.js';
import { deferred } from '../../platform/http/lazy-schemas.js';
import { routingSchemas } from './routing.schemas.js';
import { CodeDetection, CodeDetectionInput, CodeDetectionList, HitBody, HitResult, ImportBody, ImportResult, QueryParams, QueryResult, SavedTestsResult, TestBody, TestResult } from './code-detections.schemas.js';
import type { AlertsService } from './alerts.service.js';
import { alertCommands, answering } from './alerts.fns.js';
import type { RoutingService } from './routing.service.js';
import type { CodeDetectionsService } from './code-detections.service.js';

export interface AlertServices {
  alerts: AlertsService;
  routing: RoutingService;
  codeDetections: CodeDetectionsService;
}

const { RoutesBody, RoutesView, SimulateBody, SimulateResult } = deferred(routingSchemas);

export function registerAlertsRoutes(root: FastifyInstance, s: AlertServices): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Alerts'];
  // Each command's permissions are declared once (alertCommands), shared with its agent tool.
  const read = alertCommands.read;
  const manage = { permissions: ['alert.manage' as const] };

  app.get('/api/alerts', {
    config: read,
    schema: { operationId: 'listAlerts', tags, summary: 'List alerts, newest first', querystring: AlertListQuery, response: withErrors({ 200: AlertList }) },
  }, async (req) => s.alerts.list(contextOf(req), req.query));

  app.post('/api/alerts', {
    config: answering(alertCommands.create),
    schema: {
      operationId: 'createAlert',
      tags,
      summary: 'Create an alert by hand (deduplicated by `dedupeKey`, routed like any alert)',
      body: CreateAlertBody,
      response: withErrors({ 200: CreateAlertResult }),
    },
  }, async (req) => s.alerts.create(contextOf(req), req.body));

  app.post('/api/alerts/bulk/status', {
    config: alertCommands.setStatus,
    schema: {
      operationId: 'bulkSetAlertStatus',
      tags,
      summary: 'Change the status of up to 200 alerts',
      description: 'Each alert changes in its own transaction; refused or unknown ones are listed in `failed` and the others still change.',
      body: BulkStatusBody,
      response: withErrors({ 200: BulkStatusResult }),
    },
  }, async (req) => s.alerts.bulkStatus(contextOf(req), req.body));

  app.get('/api/agent-runs/:runId/alert', {
    config: read,
    schema: { operationId: 'getAgentRunAlert', tags, summary: 'The alert a run triages (or created), or null', params: ForRunParams, response: withErrors({ 200: ForRunResult }) },
  }, async (req) => s.alerts.forRun(contextOf(req), req.params.runId));

  app.get('/api/alerts/:alertId', {
    config: read,
    schema: { operationId: 'getAlert', tags, summary: 'One alert (uuid or display id) with its original payload and first timeline page', params: AlertIdParams, response: withErrors({ 200: AlertWithTimeline }, 404) },
  }, async (req) => s.alerts.get(contextOf(req), req.params.alertId));

  app.patch('/api/alerts/:alertId', {
    config: answering(alertCommands.update),
    schema: { operationId: 'updateAlert', tags, summary: 'Change the title or description', params: AlertIdParams, body: PatchAlertBody, response: withErrors({ 200: AlertOnly }, 404) },
  }, async (req) => s.alerts.patch(contextOf(req), req.params.alertId, req.body));

  app.get('/api/alerts/:alertId/timeline', {
    config: read,
    schema: { operationId: 'listAlertTimeline', tags, summary: 'The activity timeline, oldest first', params: AlertIdParams, querystring: LimitOffsetQuery, response: withErrors({ 200: TimelinePage }, 404) },
  }, async (req) => s.alerts.timeline(contextOf(req), req.params.alertId, req.query.limit, req.query.offset));

  app.post('/api/alerts/:alertId/status', {
    config: answering(alertCommands.setStatus),
    schema: {
      operationId: 'setAlertStatus',
      tags,
      summary: 'Change the status (reopening a closed alert is allowed and recorded)',
      params: AlertIdParams,
      body: StatusBody,
      response: withErrors({ 200: StatusResult }, 404),
    },
  }, async (req) => s.alerts.setStatus(contextOf(req), req.params.alertId, req.body));

  app.post('/api/alerts/:alertId/severity', {
    config: answering(alertCommands.update),
    schema: { operationId: 'setAlertSeverity', tags, summary: 'Change the severity', params: AlertIdParams, body: SeverityBody, response: withErrors({ 200: AlertOnly }, 404) },
  }, async (req) => s.alerts.setSeverity(contextOf(req), req.params.alertId, req.body));

  app.post('/api/alerts/:alertId/comments', {
    config: alertCommands.comment,
    schema: { operationId: 'createAlertComment', tags, summary: 'Comment on the timeline (Markdown)', params: AlertIdParams, body: CommentBody, response: withErrors({ 200: CommentResult }, 404) },
  }, async (req) => s.alerts.comment(contextOf(req), req.params.alertId, req.body.bodyMarkdown));

  app.post('/api/alerts/:alertId/assign', {
    config: answering(alertCommands.assign),
    schema: {
      operationId: 'assignAlert',
      tags,
      summary: 'Assign to a response agent and start its triage run',
      description: 'The run acts as the caller. One active triage run per alert: 409 while one is waiting or running.',
      params: AlertIdParams,
      body: AssignBody,
      response: withErrors({ 200: AssignResult }, 404, 409),
    },
  }, async (req) => s.alerts.assign(contextOf(req), req.params.alertId, req.body.agentId));

  app.get('/api/alert-triage-routes', {
    config: read,
    schema: { operationId: 'getAlertTriageRoutes', tags, summary: 'The ordered triage routes, default and hunt agents', response: withErrors({ 200: RoutesView }) },
  }, async (req) => s.routing.get(contextOf(req)));

  app.put('/api/alert-triage-routes', {
    config: manage,
    schema: {
      operationId: 'replaceAlertTriageRoutes',
      tags,
      summary: 'Replace the ordered routes that choose which agent triages a new alert',
      description:
        'Routes are checked top to bottom; the first enabled route whose conditions all match wins, else the default agent, else the alert stays unassigned. ' +
        'At most 50 routes, or as many as are already saved when more. 400 when routes and default would send alerts between agents in a loop (an agent with the `create_alert` tool whose alerts come back to it); the issues name the agent, severities and routes. 400 for a `source` condition naming an unknown source (the message lists the valid ones); routes saved before sources were checked are still shown as saved.',
      querystring: ForceQuery,
      body: RoutesBody,
      response: withErrors({ 200: RoutesView }, 409),
    },
  }, async (req) => s.routing.replace(contextOf(req), req.body, { force: req.query.force }));

  app.post('/api/alert-triage-routes/simulate', {
    config: read,
    schema: { operationId: 'simulateAlertTriageRoutes', tags, summary: 'What would happen to a sample alert from an origin (a trigger\'s own agent, the hunt agent, or the routes), and why (nothing is created)', body: SimulateBody, response: withErrors({ 200: SimulateResult }) },
  }, async (req) => s.routing.simulate(contextOf(req), req.body));

  const detectionTags = ['Detections'];
  app.get('/api/code-detections', {
    config: read,
    schema: { operationId: 'listCodeDetections', tags: detectionTags, summary: 'List code detections', querystring: LimitOffsetQuery, response: withErrors({ 200: CodeDetectionList }) },
  }, async (req) => s.codeDetections.list(contextOf(req), req.query.limit, req.query.offset));
  app.post('/api/code-detections', {
    config: manage,
    schema: { operationId: 'createCodeDetection', tags: detectionTags, summary: 'Register a detection rule that lives outside Rampart', body: CodeDetectionInput, response: withErrors({ 200: CodeDetection }) },
  }, async (req) => s.codeDetections.create(contextOf(req), req.body));
  app.post('/api/code-detections/import', {
    config: manage,
    schema: {
      operationId: 'importCodeDetections',
      tags: detectionTags,
      summary: 'Import Sigma rules as code detections (re-import by rule id updates)',
      description: 'One rule, a multi-document YAML or a JSON array. Each rule is checked against the Sigma rule specification; invalid ones are listed in `errors` and do not stop the others. See docs/coverage.md.',
      body: ImportBody,
      response: withErrors({ 200: ImportResult }),
    },
  }, async (req) => s.codeDetections.importRules(contextOf(req), req.body));
  app.get('/api/code-detections/:id', {
    config: read,
    schema: { operationId: 'getCodeDetection', tags: detectionTags, summary: 'One code detection', params: IdParams, response: withErrors({ 200: CodeDetection }, 404) },
  }, async (req) => s.codeDetections.get(contextOf(req), req.params.id));
  app.put('/api/code-detections/:id', {
    config: manage,
    schema: { operationId: 'replaceCodeDetection', tags: detectionTags, summary: 'Replace a code detection', description: '409 when it moves the only detection of a log table that saved triage routes name (change the routes first).', params: IdParams, querystring: ForceQuery, body: CodeDetectionInput, response: withErrors({ 200: CodeDetection }, 404, 409) },
  }, async (req) => s.codeDetections.update(contextOf(req), req.params.id, req.body, { force: req.query.force }));
  app.delete('/api/code-detections/:id', {
    config: manage,
    schema: { operationId: 'deleteCodeDetection', tags: detectionTags, summary: 'Delete a code detection (409 while a triage route names it or its log table, when no other detection has that table)', params: IdParams, querystring: ForceQuery, response: withErrors({ 200: DeleteResult }, 404, 409) },
  }, async (req) => s.codeDetections.remove(contextOf(req), req.params.id, { force: req.query.force }));
  app.post('/api/code-detections/:id/hits', {
    config: answering(alertCommands.create),
    schema: {
      operationId: 'reportCodeDetectionHit',
      tags: detectionTags,
      summary: 'Report a hit of the detection: creates an alert, or counts a duplicate of the open one',
      params: IdParams,
      body: HitBody,
      response: withErrors({ 200: HitResult }, 404),
    },
  }, async (req) => s.codeDetections.hit(contextOf(req), req.params.id, req.body));
  app.get('/api/code-detections/:id/query', {
    config: read,
    schema: {
      operationId: 'convertCodeDetection',
      tags: detectionTags,
      summary: 'The detection\'s Sigma rule as a query of a SIEM\'s language (Splunk, Lucene, ES|QL, Kusto)',
      description: 'Written as pySigma\'s backend for the target writes it (docs/detections.md#conversion). 422 when the detection has no Sigma rule, the engine refuses it, or the target cannot express one of its constructs (the body names it in `construct`).',
      params: IdParams,
      querystring: QueryParams,
      response: withErrors({ 200: QueryResult }, 404, 422),
    },
  }, async (req) => s.codeDetections.query(contextOf(req), req.params.id, req.query.target, req.query.pipeline, req.query.format));
  app.post('/api/code-detections/:id/test', {
    config: read,
    schema: {
      operationId: 'testCodeDetection',
      tags: detectionTags,
      summary: 'Run events through the detection\'s Sigma rule (nothing is stored, no alert)',
      description: 'Each event answers whether the rule matched and which of its selections did. 422 when the detection has no Sigma rule or the engine refuses it.',
      params: IdParams,
      body: TestBody,
      response: withErrors({ 200: TestResult }, 404, 422),
    },
  }, async (req) => s.codeDetections.test(contextOf(req), req.params.id, req.body.events));
  app.get('/api/code-detections/:id/tests', {
    config: read,
    schema: {
      operationId: 'runCodeDetectionTests',
      tags: detectionTags,
      summary: 'The detection\'s own tests (the `tests:` its Sigma text carries), run now against the stored rule',
      description: 'Each test with its verdict and, per event, whether the rule matched and which selections did (docs/detections.md#tests-as-code). The tests and the rule are both stored in the detection, so this is also the result of their last run; nothing is stored. 422 when the detection has no Sigma rule or the engine refuses it.',
      params: IdParams,
      response: withErrors({ 200: SavedTestsResult }, 404, 422),
    },
  }, async (req) => s.codeDetections.savedTests(contextOf(req), req.params.id));
}
