import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { configureModel, createAgent, startRunWorker } from '../support/agents.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fakes/openai-server.js';
import { until } from '../support/until.js';

/**
 * The sandbox fails closed: a worker whose run job has no evaluation sandbox (scripted tools,
 * no `loadSandbox`) ends an evaluation's runs in error without calling the model or a tool,
 * and the evaluation records them as error cases and ends.
 */
let t: TestContext;
let openai: FakeOpenAI;
let worker: WorkerRunner;

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  openai = await startFakeOpenAI({ script: () => ({ toolCalls: [{ name: 'http_request', args: { url: 'https://example.com/' } }] }) });
  await configureModel(t, t.orgA.apiKey.key, { name: 'fake', type: 'openai-compatible', baseUrl: openai.url, alias: 'default', modelId: 'm' });
  worker = await startRunWorker(t);
});
afterAll(async () => {
  await worker?.stop();
  await openai?.close();
  await t?.close();
});

describe('an evaluation run without its sandbox', () => {
  it('does not run: no model call, the case ends in error and the evaluation ends', async () => {
    const admin = bearer(t.orgA.apiKey.key);
    const agentId = await createAgent(t, t.orgA.apiKey.key, { toolNames: ['http_request'] });
    const dataset = await t.app.inject({ method: 'POST', url: '/api/evaluation-datasets', headers: admin, payload: { name: 'One', cases: [{ alert: { title: 'A' }, expected: { disposition: 'benign' } }] } });
    const started = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/evaluations`, headers: admin, payload: { datasetId: dataset.json().id } });
    expect(started.statusCode, started.body).toBe(202);
    const { id } = started.json() as { id: string };
    const body = await until(
      'the evaluation to end',
      async () => {
        const current: Record<string, any> = (await t.app.inject({ url: `/api/evaluations/${id}`, headers: admin })).json();
        return current.status !== 'running' && current;
      },
      { timeoutMs: 15_000, everyMs: 100 },
    );
    expect(body.status).toBe('done');
    expect(body.cases[0]).toMatchObject({ status: 'error', verdict: null, toolCalls: [], error: expect.stringContaining('has no sandbox') });
    expect(openai.requests).toHaveLength(0);
  });
});
