import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contextOf } from '../../platform/context.js';
import { withErrors } from '../../platform/http/responses.js';
import { AgentIdParams } from '../agents/index.js';
import {
  InterruptResult,
  RunList,
  RunListQuery,
  RunParams,
  RunRequest,
  RunResultView,
  RunStarted,
  RunStatusView,
  RunSyncRequest,
  RunSyncResponse,
} from './runs.schemas.js';
import type { RunsService } from './runs.service.js';

export function registerRunsRoutes(root: FastifyInstance, service: RunsService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Agent Runs'];
  const execute = { permissions: ['agent.execute' as const] };
  const read = { permissions: ['agent.read' as const] };

  app.post('/api/agents/:agentId/run-sync', {
    config: execute,
    schema: {
      tags: ['Agents'],
      summary: 'Run an agent and wait for the result',
      description:
        'Queues a run and waits up to `timeoutMs` (default 60 s). Answers `{runId, status, statusMessage?, result?}`: `result` (the §2.8 run result) when the run is `done`; ' +
        'a run that is still going after the wait answers its status, and can be polled with the async status endpoint. Tools act with the caller\'s permissions.',
      params: AgentIdParams,
      body: RunSyncRequest,
      response: withErrors({ 200: RunSyncResponse }, 404),
    },
  }, async (req) => service.runSync(contextOf(req), req.params.agentId, req.body.input, req.body.timeoutMs));

  app.post('/api/agents/:agentId/run-async', {
    config: execute,
    schema: {
      tags: ['Agents'],
      summary: 'Start an asynchronous agent run',
      description: 'Queues the run and answers `{runId}` at once. Poll `…/run-async/{runId}/status`, then read `…/result` once the status is `done`.',
      params: AgentIdParams,
      body: RunRequest,
      response: withErrors({ 200: RunStarted }, 404),
    },
  }, async (req) => service.runAsync(contextOf(req), req.params.agentId, req.body.input));

  app.get('/api/agents/:agentId/run-async/:runId/status', {
    config: read,
    schema: { tags: ['Agents'], summary: 'Status of an asynchronous run', params: RunParams, response: withErrors({ 200: RunStatusView }, 404) },
  }, async (req) => service.status(contextOf(req), req.params.agentId, req.params.runId));

  app.get('/api/agents/:agentId/run-async/:runId/result', {
    config: read,
    schema: {
      tags: ['Agents'],
      summary: 'Result of a completed asynchronous run',
      description: 'The async agent run result (spec §2.8). Before the run is `done` (still waiting or running, or ended in error or interrupted) it answers 409 `{error}` saying which.',
      params: RunParams,
      response: withErrors({ 200: RunResultView }, 404, 409),
    },
  }, async (req) => service.result(contextOf(req), req.params.agentId, req.params.runId));

  app.post('/api/agents/:agentId/run-async/:runId/interrupt', {
    config: execute,
    schema: {
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
      tags,
      summary: 'List agent runs, newest first',
      description: 'Paged with `page` and `pageSize` (spec §8). Filters: `agentId`, `status` (comma-separated), `mode` (sync, async, trigger, cron), `triggerId`. Each run carries its step count and token usage.',
      querystring: RunListQuery,
      response: withErrors({ 200: RunList }),
    },
  }, async (req) => service.list(contextOf(req), req.query));
}
