import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contextOf } from '../../platform/context.js';
import { withErrors } from '../../platform/http/responses.js';
import { AgentIdParams } from '../agents/index.js';
import { deferred } from '../../platform/http/lazy-schemas.js';
import { runSchemas } from './runs.schemas.js';
import type { RunsService } from './runs.service.js';

const { EndedRunResultView, InterruptResult, RunDetail, RunIdParams, RunList, RunListQuery, RunParams, RunRequest, RunStarted, RunStatusView, RunSyncRequest, RunSyncResponse } = deferred(runSchemas);

export function registerRunsRoutes(root: FastifyInstance, service: RunsService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Agent Runs'];
  const execute = { permissions: ['agent.execute' as const] };
  const read = { permissions: ['agent.read' as const] };

  app.post('/api/agents/:agentId/run-sync', {
    config: execute,
    schema: {
      operationId: 'runAgentSync',
      tags: ['Agents'],
      summary: 'Run an agent and wait for the result',
      description:
        'Queues a run and waits up to `timeoutMs` (default 60 s). Answers `{runId, status, statusMessage?, result?}`: `result` (the async run result) once the run has ended (partial for `error` and `interrupted`); ' +
        'a run that is still going after the wait answers its status, and can be polled with the async status endpoint. Tools act with the caller\'s permissions.',
      params: AgentIdParams,
      body: RunSyncRequest,
      response: withErrors({ 200: RunSyncResponse }, 404),
    },
  }, async (req) => service.runSync(contextOf(req), req.params.agentId, req.body.input, req.body.timeoutMs));

  app.post('/api/agents/:agentId/run-async', {
    config: execute,
    schema: {
      operationId: 'runAgentAsync',
      tags: ['Agents'],
      summary: 'Start an asynchronous agent run',
      description: 'Queues the run and answers `{runId}` at once. Poll `…/run-async/{runId}/status`, then read `…/result` once the run has ended (`done`, `error` or `interrupted`).',
      params: AgentIdParams,
      body: RunRequest,
      response: withErrors({ 200: RunStarted }, 404),
    },
  }, async (req) => service.runAsync(contextOf(req), req.params.agentId, req.body.input));

  app.get('/api/agents/:agentId/run-async/:runId/status', {
    config: read,
    schema: { operationId: 'getAsyncRunStatus', tags: ['Agents'], summary: 'Status of an asynchronous run', params: RunParams, response: withErrors({ 200: RunStatusView }, 404) },
  }, async (req) => service.status(contextOf(req), req.params.agentId, req.params.runId));

  app.get('/api/agents/:agentId/run-async/:runId/result', {
    config: read,
    schema: {
      operationId: 'getAsyncRunResult',
      tags: ['Agents'],
      summary: 'Result of an ended asynchronous run',
      description:
        'The async agent run result of a run that has ended, with `status` (and `statusMessage`): the final result when `done`, and what the run produced until it stopped ' +
        '(its messages, tool calls and results, last text) when it ended in `error` (a step or time limit, a model failure) or `interrupted`. ' +
        'A run that is still `waiting` or `running` answers 409 `{error}` saying so. `GET /api/agent-runs/{runId}` has the same result with the run\'s input, trigger context, usage and timings.',
      params: RunParams,
      response: withErrors({ 200: EndedRunResultView }, 404, 409),
    },
  }, async (req) => service.result(contextOf(req), req.params.agentId, req.params.runId));

  app.post('/api/agents/:agentId/run-async/:runId/interrupt', {
    config: execute,
    schema: {
      operationId: 'interruptAsyncRun',
      tags: ['Agents'],
      summary: 'Interrupt a run',
      description: 'A waiting run ends `interrupted` at once; a running one stops at its next check (within about a second) and keeps its partial result. A finished run answers 409.',
      params: RunParams,
      response: withErrors({ 200: InterruptResult }, 404, 409),
    },
  }, async (req) => service.interrupt(contextOf(req), req.params.agentId, req.params.runId));

  app.get('/api/agent-runs', {
    config: read,
    schema: {
      operationId: 'listAgentRuns',
      tags,
      summary: 'List agent runs, newest first',
      description: 'Paged with `page` and `pageSize`, not `limit`/`offset`: the API contract names the agent-run listing as the exception. Filters: `agentId`, `status` (comma-separated), `mode` (sync, async, trigger, cron), `triggerId`. Each run carries its step count and token usage.',
      querystring: RunListQuery,
      response: withErrors({ 200: RunList }),
    },
  }, async (req) => service.list(contextOf(req), req.query));

  app.get('/api/agent-runs/:runId', {
    config: read,
    schema: {
      operationId: 'getAgentRun',
      tags,
      summary: 'One agent run: input, trigger context, status, steps, usage, timings and result',
      description:
        'Any run of the organization, whatever its state: the summary fields of the listing plus `input`, `triggerContext` (triggered runs: source, delivery id, event type, ' +
        'allow-listed headers, received-at), `interruptRequestedAt`, `durationMs` and `result` (final when `done`, partial when `error` or `interrupted`, null before the run ended).',
      params: RunIdParams,
      response: withErrors({ 200: RunDetail }, 404),
    },
  }, async (req) => service.get(contextOf(req), req.params.runId));
}
