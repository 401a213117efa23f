import pino from 'pino';
import { tool, type ToolSet } from 'ai';
import { z } from 'zod';
import { expect } from 'vitest';
import { JobCatalog } from '../../src/platform/jobs/catalog.js';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { createGuardedClient } from '../../src/platform/outbound/index.js';
import { createAgentRunJob, type BuildTools } from '../../src/modules/runs/run.jobs.js';
import { bearer, type TestContext } from './app.js';
import { startTestWorker } from './worker.js';
import { until } from './until.js';
import { serviceEvents } from '../../src/events.js';

/**
 * Tools with scripted behaviour under built-in names (agents may only name known tools): what
 * the run loop does with results, errors and slow tools, independent of the real tools' data.
 */
export const scriptedTools: BuildTools = async (ctx, names) => {
  const all: ToolSet = {
    lookup_indicator: tool({
      description: 'Look up an indicator',
      inputSchema: z.object({ value: z.string() }),
      execute: async ({ value }) => ({ value, status: 'found', organizationId: ctx.organizationId }),
    }),
    http_request: tool({
      description: 'Fails',
      inputSchema: z.object({ url: z.string() }),
      execute: async (): Promise<string> => {
        throw new Error('kaboom: refused');
      },
    }),
  };
  const listed = Object.keys(all).filter((n) => names.includes(n));
  // Stand-ins for built-in tools, described as the real set describes them (the run's tool policies read it).
  return {
    tools: Object.fromEntries(listed.map((n) => [n, all[n]!])),
    toolInfo: Object.fromEntries(listed.map((n) => [n, { name: n, declaredPolicy: 'allow' as const }])),
    close: async () => {},
  };
};

/** The agent-run job against the test database, its tools scripted (scriptedTools) unless given, for a catalog of a test's own. */
export function agentRunJob(t: TestContext, buildTools: BuildTools = scriptedTools) {
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  return createAgentRunJob({ db: t.database.db, secrets: t.secrets, http: createGuardedClient({ allowPrivateNetworks: true, retries: 0 }), logger, buildTools, events: serviceEvents(), interruptPollMs: 100 });
}

/** A worker pool running agent-run jobs against the test database. */
export async function startRunWorker(t: TestContext, buildTools: BuildTools = scriptedTools): Promise<WorkerRunner> {
  return startTestWorker(t, new JobCatalog().register(agentRunJob(t, buildTools)));
}

/** A provider and an alias pointing at it, through the API. Returns the provider id. */
export async function configureModel(t: TestContext, key: string, p: { name: string; type: string; baseUrl: string; apiKey?: string; alias: string; modelId: string }): Promise<string> {
  const created = await t.app.inject({ method: 'POST', url: '/api/model-providers', headers: bearer(key), payload: { name: p.name, type: p.type, baseUrl: p.baseUrl, apiKey: p.apiKey ?? null } });
  expect(created.statusCode).toBe(200);
  const providerId = created.json().id as string;
  const alias = await t.app.inject({ method: 'PUT', url: `/api/model-aliases/${p.alias}`, headers: bearer(key), payload: { providerId, modelId: p.modelId } });
  expect(alias.statusCode).toBe(200);
  return providerId;
}

export async function createAgent(t: TestContext, key: string, body: Record<string, unknown>): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: '/api/agents', headers: bearer(key), payload: { name: 'Agent', systemPrompt: 'You are a SOC analyst.', ...body } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id as string;
}

/**
 * Polls the status endpoint until the run reaches one of `statuses`. The bound only turns a hang
 * into a failure naming the run: 45 s, under the 60 s testTimeout (15 s was set under the old
 * 20 s one; the tests that wait on runs under load already passed 60 s of their own).
 */
export async function waitForRun(t: TestContext, key: string, agentId: string, runId: string, statuses = ['done', 'error', 'interrupted'], timeoutMs = 45_000) {
  let status = 'unknown';
  return until(
    `run ${runId} to be ${statuses.join(' or ')}`,
    async () => {
      const res = await t.app.inject({ url: `/api/agents/${agentId}/run-async/${runId}/status`, headers: bearer(key) });
      const body = res.json() as { status: string; statusMessage?: string };
      status = body.status;
      return statuses.includes(body.status) && body;
    },
    { timeoutMs, everyMs: 50, context: () => `still ${status}` },
  );
}
