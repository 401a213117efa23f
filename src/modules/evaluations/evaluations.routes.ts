import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { contextOf } from '../../platform/context.js';
import { LimitOffsetQuery } from '../../platform/http/pagination.js';
import { DeleteResult, withErrors } from '../../platform/http/responses.js';
import { AgentIdParams } from '../agents/index.js';
import type { DatasetsService } from './datasets.service.js';
import type { EvaluationsService } from './evaluations.service.js';
import {
  Comparison,
  CompareQuery,
  Dataset,
  DatasetCreate,
  DatasetIdParams,
  DatasetList,
  Evaluation,
  EvaluationCreate,
  EvaluationIdParams,
  EvaluationList,
  FromAlertsRequest,
  ImportResult,
  Settings,
  SettingsUpdate,
} from './evaluations.schemas.js';

const JSONL_TYPES = ['application/x-ndjson', 'application/jsonl', 'application/x-jsonlines', 'text/plain'];

export function registerEvaluationsRoutes(root: FastifyInstance, datasets: DatasetsService, evaluations: EvaluationsService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Evaluations'];
  const read = { permissions: ['agent.read' as const] };
  const manage = { permissions: ['agent.manage' as const] };
  // Cases carry their alert (title, description, payload, timeline) and results carry its title:
  // every answer holding a case or a result needs `alert.read` too (docs/security.md#who-reads-alert-content),
  // a write included, since it must not show what a GET refuses.
  const readCases = { permissions: ['agent.read' as const, 'alert.read' as const] };
  const manageCases = { permissions: ['agent.manage' as const, 'alert.read' as const] };
  const executeCases = { permissions: ['agent.execute' as const, 'alert.read' as const] };

  app.get('/api/evaluation-datasets', {
    config: read,
    schema: { operationId: 'listEvaluationDatasets', tags, summary: 'List evaluation datasets', querystring: LimitOffsetQuery, response: withErrors({ 200: DatasetList }) },
  }, async (req) => datasets.list(contextOf(req), req.query.limit, req.query.offset));

  app.post('/api/evaluation-datasets', {
    config: manageCases,
    schema: {
      operationId: 'createEvaluationDataset',
      tags,
      summary: 'Create an evaluation dataset',
      description: 'Cases: `{alert | input, expected: {disposition?, criteria?}, tags}` (docs/evaluations.md). 409 when the name is taken.',
      body: DatasetCreate,
      response: withErrors({ 200: Dataset }, 409),
    },
  }, async (req) => datasets.create(contextOf(req), req.body));

  app.get('/api/evaluation-datasets/:datasetId', {
    config: readCases,
    schema: { operationId: 'getEvaluationDataset', tags, summary: 'Get an evaluation dataset with its cases', params: DatasetIdParams, response: withErrors({ 200: Dataset }, 404) },
  }, async (req) => datasets.get(contextOf(req), req.params.datasetId));

  app.put('/api/evaluation-datasets/:datasetId', {
    config: manageCases,
    schema: {
      operationId: 'replaceEvaluationDataset',
      tags,
      summary: 'Replace an evaluation dataset (name, description and every case)',
      description: 'Evaluations already run keep their own copy of the cases they ran.',
      params: DatasetIdParams,
      body: DatasetCreate,
      response: withErrors({ 200: Dataset }, 404, 409),
    },
  }, async (req) => datasets.update(contextOf(req), req.params.datasetId, req.body));

  app.delete('/api/evaluation-datasets/:datasetId', {
    config: manage,
    schema: { operationId: 'deleteEvaluationDataset', tags, summary: 'Delete an evaluation dataset', description: 'Its evaluations stay (with `datasetId` null).', params: DatasetIdParams, response: withErrors({ 200: DeleteResult }, 404) },
  }, async (req) => datasets.remove(contextOf(req), req.params.datasetId));

  // JSONL bodies are read as text in this scope only.
  void app.register(async (scope) => {
    scope.addContentTypeParser(JSONL_TYPES, { parseAs: 'string' }, (_req, body, done) => done(null, body));
    scope.withTypeProvider<ZodTypeProvider>().post('/api/evaluation-datasets/:datasetId/cases/import', {
      config: manage,
      schema: {
        operationId: 'importEvaluationCases',
        tags,
        summary: 'Add cases from JSONL',
        description: 'Body: one case per line (`Content-Type: application/x-ndjson`). Any invalid line refuses the whole import (400, issues by line).',
        params: DatasetIdParams,
        body: z.string(),
        response: withErrors({ 200: ImportResult }, 404),
      },
    }, async (req) => datasets.importJsonl(contextOf(req), req.params.datasetId, req.body));
  });

  app.post('/api/evaluation-datasets/:datasetId/cases/from-alerts', {
    config: manageCases,
    schema: {
      operationId: 'addEvaluationCasesFromAlerts',
      tags,
      summary: 'Add cases from closed alerts',
      description:
        'Each alert a person closed becomes a case: its fields and payload, its timeline up to triage, and the person\'s disposition as the label (closed_true_positive → escalate, closed_false_positive → false_positive, closed_benign → benign). ' +
        'Alerts that are not closed, were closed by an agent, or are already in the dataset are skipped, each with its reason.',
      params: DatasetIdParams,
      body: FromAlertsRequest,
      response: withErrors({ 200: ImportResult }, 404),
    },
  }, async (req) => datasets.fromAlerts(contextOf(req), req.params.datasetId, req.body));

  app.post('/api/agents/:agentId/evaluations', {
    config: executeCases,
    schema: {
      operationId: 'createEvaluation',
      tags,
      summary: 'Evaluate an agent on a dataset',
      description:
        'Runs the agent once per case in a sandbox (nothing real is touched: docs/evaluations.md#the-sandbox), `concurrency` cases at a time, as the caller. Answers 202 with the evaluation; poll GET /api/evaluations/{id} for progress and results.',
      params: AgentIdParams,
      body: EvaluationCreate,
      response: withErrors({ 202: Evaluation }, 404),
    },
  }, async (req, reply) => reply.code(202).send(await evaluations.start(contextOf(req), req.params.agentId, req.body)));

  app.get('/api/agents/:agentId/evaluations', {
    config: read,
    schema: { operationId: 'listAgentEvaluations', tags, summary: "List an agent's evaluations, newest first", params: AgentIdParams, querystring: LimitOffsetQuery, response: withErrors({ 200: EvaluationList }, 404) },
  }, async (req) => evaluations.list(contextOf(req), req.params.agentId, req.query.limit, req.query.offset));

  // Before /api/evaluations/:evaluationId, which `compare` would otherwise match.
  app.get('/api/evaluations/compare', {
    config: readCases,
    schema: {
      operationId: 'compareEvaluations',
      tags,
      summary: 'Compare two evaluations of the same dataset',
      description: 'Both summaries and the cases whose verdict changed (400 when the datasets differ).',
      querystring: CompareQuery,
      response: withErrors({ 200: Comparison }, 404),
    },
  }, async (req) => evaluations.compare(contextOf(req), req.query.a, req.query.b));

  app.get('/api/evaluations/:evaluationId', {
    config: readCases,
    schema: {
      operationId: 'getEvaluation',
      tags,
      summary: 'Get an evaluation: progress, summary and every case (wrong ones first)',
      params: EvaluationIdParams,
      response: withErrors({ 200: Evaluation }, 404),
    },
  }, async (req) => evaluations.get(contextOf(req), req.params.evaluationId));

  app.post('/api/evaluations/:evaluationId/cancel', {
    config: executeCases,
    schema: { operationId: 'cancelEvaluation', tags, summary: 'Cancel an evaluation', description: 'Cases not started end as errors; running ones finish and are recorded. 409 when it has ended.', params: EvaluationIdParams, response: withErrors({ 200: Evaluation }, 404, 409) },
  }, async (req) => evaluations.cancel(contextOf(req), req.params.evaluationId));

  app.get('/api/evaluation-settings', {
    config: read,
    schema: { operationId: 'getEvaluationSettings', tags, summary: "The organization's judge model", response: withErrors({ 200: Settings }) },
  }, async (req) => evaluations.settings(contextOf(req)));

  app.put('/api/evaluation-settings', {
    config: manage,
    schema: {
      operationId: 'updateEvaluationSettings',
      tags,
      summary: "Set the organization's judge model",
      description: 'Any configured model alias (400 otherwise); null turns grading off. The judge grades agents\' acceptance criteria after each run and evaluation cases\' criteria.',
      body: SettingsUpdate,
      response: withErrors({ 200: Settings }),
    },
  }, async (req) => evaluations.updateSettings(contextOf(req), req.body));
}
