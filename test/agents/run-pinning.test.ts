import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { configureModel, createAgent, startRunWorker, waitForRun } from '../support/agents.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fakes/openai-server.js';

/**
 * A run executes the agent it was queued with (issue 34 §6): an edit between queueing and the
 * worker picking the run up changes nothing of that run; runs queued after the edit use it.
 */
let t: TestContext;
let key: string;
let openai: FakeOpenAI;
let worker: WorkerRunner | undefined;

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  key = t.orgA.apiKey.key;
  openai = await startFakeOpenAI({ apiKey: 'sk-test' });
  const providerId = await configureModel(t, key, { name: 'fake-openai', type: 'openai', baseUrl: openai.url, apiKey: 'sk-test', alias: 'default', modelId: 'model-as-queued' });
  const alias = await t.app.inject({ method: 'PUT', url: '/api/model-aliases/edited', headers: bearer(key), payload: { providerId, modelId: 'model-after-edit' } });
  expect(alias.statusCode, alias.body).toBe(200);
});
afterAll(async () => {
  await worker?.stop();
  await openai?.close();
  await t?.close();
});

async function runAsync(agentId: string): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-async`, headers: bearer(key), payload: { input: 'triage this' } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().runId as string;
}

describe('runs pin their agent at enqueue', () => {
  it('executes the prompt, model, tools and limits the run was queued with, not an edit made before it ran', async () => {
    const agentId = await createAgent(t, key, { systemPrompt: 'Prompt as queued.', modelAlias: 'default', toolNames: ['lookup_indicator'], maxSteps: 5 });
    const pinned = await runAsync(agentId);

    // Edited while the run waits for a worker: another prompt, model, no tools, one step.
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/agents/${agentId}`,
      headers: bearer(key),
      payload: { name: 'Agent', systemPrompt: 'Prompt after the edit.', modelAlias: 'edited', toolNames: [], maxSteps: 1 },
    });
    expect(put.statusCode, put.body).toBe(200);
    const after = await runAsync(agentId);

    openai.setScript((req) =>
      req.body.messages?.[0]?.content === 'Prompt as queued.' && !req.body.messages.some((m: { role: string }) => m.role === 'tool')
        ? { toolCalls: [{ name: 'lookup_indicator', args: { value: '203.0.113.7' } }] }
        : { text: 'Verdict: benign.' },
    );
    worker = await startRunWorker(t);
    expect(await waitForRun(t, key, agentId, pinned)).toEqual({ status: 'done' });
    expect(await waitForRun(t, key, agentId, after)).toEqual({ status: 'done' });

    const result = async (runId: string) => (await t.app.inject({ url: `/api/agents/${agentId}/run-async/${runId}/result`, headers: bearer(key) })).json();
    const first = await result(pinned);
    expect(first.messages[0]).toEqual({ role: 'system', content: 'Prompt as queued.' });
    // The pinned tool was offered and called (the edit removed it); two steps (the edit allowed one).
    expect(first.allToolCallsMade.map((c: { toolName: string }) => c.toolName)).toEqual(['lookup_indicator']);
    expect(first.finalAssistantMessage).toBe('Verdict: benign.');
    const second = await result(after);
    expect(second.messages[0]).toEqual({ role: 'system', content: 'Prompt after the edit.' });

    const models = openai.requests.map((r) => [r.body.messages?.[0]?.content, r.body.model, (r.body.tools ?? []).length]);
    expect(models.filter((m) => m[0] === 'Prompt as queued.')).toEqual([
      ['Prompt as queued.', 'model-as-queued', 1],
      ['Prompt as queued.', 'model-as-queued', 1],
    ]);
    expect(models.filter((m) => m[0] === 'Prompt after the edit.')).toEqual([['Prompt after the edit.', 'model-after-edit', 0]]);
  });
});
