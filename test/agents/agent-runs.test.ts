import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';
import { configureModel, createAgent, startRunWorker, waitForRun } from '../support/agents.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fakes/openai-server.js';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fakes/anthropic-server.js';

/**
 * Real agent loops: the run job drives the AI SDK against local servers speaking the OpenAI
 * Chat Completions and Anthropic Messages protocols, with scripted tool calls.
 */
let t: TestContext;
let key: string;
let openai: FakeOpenAI;
let anthropic: FakeAnthropic;
let worker: WorkerRunner;
let executor: TestUser;

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  key = t.orgA.apiKey.key;
  openai = await startFakeOpenAI({ apiKey: 'sk-test' });
  anthropic = await startFakeAnthropic({ apiKey: 'sk-ant-test' });
  await configureModel(t, key, { name: 'fake-openai', type: 'openai', baseUrl: openai.url, apiKey: 'sk-test', alias: 'default', modelId: 'gpt-4o-mini' });
  await configureModel(t, key, { name: 'fake-anthropic', type: 'anthropic', baseUrl: anthropic.url, apiKey: 'sk-ant-test', alias: 'claude', modelId: 'claude-sonnet-4-5' });
  executor = await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.read', 'agent.execute']);
  worker = await startRunWorker(t);
});
afterAll(async () => {
  await worker?.stop();
  await openai?.close();
  await anthropic?.close();
  await t?.close();
});

async function runAsync(agentId: string, input: unknown, k = key) {
  const res = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-async`, headers: bearer(k), payload: { input } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().runId as string;
}

const result = (agentId: string, runId: string) => t.app.inject({ url: `/api/agents/${agentId}/run-async/${runId}/result`, headers: bearer(key) });

describe('async runs against an OpenAI-compatible model', () => {
  it('runs the tool loop and answers the exact §2.8 result', async () => {
    openai.setScript([
      { toolCalls: [{ name: 'lookup_indicator', args: { value: '203.0.113.7' } }], usage: { inputTokens: 100, outputTokens: 20 } },
      { text: 'Verdict: malicious.', usage: { inputTokens: 150, outputTokens: 10 } },
    ]);
    const agentId = await createAgent(t, key, { systemPrompt: 'You triage alerts.', toolNames: ['lookup_indicator'] });
    // snake_case keys inside the input are data: the model sees them as sent
    const runId = await runAsync(agentId, { alert: 'beacon to 203.0.113.7', event_id: 'E1' }, executor.key);
    expect(await waitForRun(t, key, agentId, runId)).toEqual({ status: 'done' });

    const res = await result(agentId, runId);
    expect(res.statusCode).toBe(200);
    const userPrompt = 'Input (JSON):\n{\n  "alert": "beacon to 203.0.113.7",\n  "event_id": "E1"\n}';
    const toolResult = { type: 'tool-result', toolCallId: 'call_1', toolName: 'lookup_indicator', result: { value: '203.0.113.7', status: 'found', organizationId: t.orgA.organization.id }, isError: false };
    expect(res.json()).toEqual({
      status: 'done',
      finalAssistantMessage: 'Verdict: malicious.',
      allToolCallsMade: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'lookup_indicator', args: { value: '203.0.113.7' } }],
      allToolResultsReceived: [toolResult],
      messages: [
        { role: 'system', content: 'You triage alerts.' },
        { role: 'user', content: userPrompt },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'lookup_indicator', args: { value: '203.0.113.7' } }] },
        { role: 'tool', content: [toolResult] },
        { role: 'assistant', content: [{ type: 'text', text: 'Verdict: malicious.' }] },
      ],
    });

    // What the model saw: the system prompt, the input, the tool, then the tool's result.
    const [first, second] = openai.requests.slice(-2);
    expect(first!.headers.authorization).toBe('Bearer sk-test');
    expect(first!.body.messages?.[0]).toMatchObject({ role: 'system', content: 'You triage alerts.' });
    expect(first!.body.tools?.map((x) => (x as { function: { name: string } }).function.name)).toEqual(['lookup_indicator']);
    expect(second!.body.messages?.find((m) => m.role === 'tool')).toMatchObject({ tool_call_id: 'call_1' });

    const list = await t.app.inject({ url: `/api/agent-runs?agentId=${agentId}`, headers: bearer(key) });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toMatchObject({ totalCount: 1, page: 1, pageSize: 20, hasNext: false });
    expect(list.json().runs[0]).toMatchObject({
      id: runId,
      agentId,
      status: 'done',
      statusMessage: null,
      mode: 'async',
      stepCount: 2,
      usage: { inputTokens: 250, outputTokens: 30, totalTokens: 280 },
      attemptCount: 1,
    });
    expect(list.json().runs[0].finishedAt).toMatch(/Z$/);
  });

  it('reports a tool failure as a tool result with isError and goes on', async () => {
    openai.setScript([{ toolCalls: [{ name: 'http_request', args: { url: 'http://10.0.0.1/' } }] }, { text: 'The request failed.' }]);
    const agentId = await createAgent(t, key, { toolNames: ['http_request'] });
    const runId = await runAsync(agentId, 'fetch it');
    expect(await waitForRun(t, key, agentId, runId)).toEqual({ status: 'done' });
    const body = (await result(agentId, runId)).json();
    expect(body.allToolResultsReceived).toEqual([{ type: 'tool-result', toolCallId: 'call_1', toolName: 'http_request', result: 'kaboom: refused', isError: true }]);
    expect(body.messages[1]).toEqual({ role: 'user', content: 'fetch it' });
    expect(body.finalAssistantMessage).toBe('The request failed.');
  });

  it('validates structured output: present when valid, absent (with a reason) when not', async () => {
    const schema = { type: 'object', properties: { verdict: { type: 'string', enum: ['benign', 'malicious'] }, score: { type: 'integer' } }, required: ['verdict', 'score'], additionalProperties: false };
    const agentId = await createAgent(t, key, { structuredOutputSchema: schema });

    openai.setScript([{ object: { verdict: 'benign', score: 3 } }]);
    const ok = await runAsync(agentId, 'classify');
    expect(await waitForRun(t, key, agentId, ok)).toEqual({ status: 'done' });
    const good = (await result(agentId, ok)).json();
    expect(good.structuredOutputResult).toBe('{"verdict":"benign","score":3}');
    expect(openai.requests.at(-1)!.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { schema } });

    openai.setScript([{ object: { verdict: 'unsure' } }]);
    const bad = await runAsync(agentId, 'classify');
    const status = await waitForRun(t, key, agentId, bad);
    expect(status.status).toBe('done');
    expect(status.statusMessage).toMatch(/not valid structured output/);
    const body = (await result(agentId, bad)).json();
    expect(body).not.toHaveProperty('structuredOutputResult');
    expect(body.finalAssistantMessage).toBe('{"verdict":"unsure"}');
  });

  it('sends a schema with optional properties in OpenAI strict mode: all required, optional ones nullable, objects closed', async () => {
    // The README's example: `verdict` without a type, `note` optional, nothing closed.
    const schema = { type: 'object', properties: { verdict: { enum: ['benign', 'malicious'] }, note: { type: 'string' }, iocs: { type: 'array', items: { type: 'object', properties: { value: { type: 'string' } } } } }, required: ['verdict'] };
    const created = await t.app.inject({ method: 'POST', url: '/api/agents', headers: bearer(key), payload: { name: 'Strict', systemPrompt: 'Classify.', structuredOutputSchema: schema } });
    expect(created.json()).toMatchObject({ structuredOutputSchema: schema, warnings: [] });
    const agentId = created.json().id as string;

    openai.setScript([{ object: { verdict: 'malicious', note: null, iocs: [{ value: 'evil.example' }] } }]);
    const runId = await runAsync(agentId, 'classify');
    expect(await waitForRun(t, key, agentId, runId)).toEqual({ status: 'done' });
    expect((await result(agentId, runId)).json().structuredOutputResult).toBe('{"verdict":"malicious","iocs":[{"value":"evil.example"}]}');
    expect(openai.requests.at(-1)!.body.response_format!.json_schema).toEqual({
      name: 'response',
      strict: true,
      schema: {
        type: 'object',
        properties: {
          verdict: { type: 'string', enum: ['benign', 'malicious'] },
          note: { type: ['string', 'null'] },
          iocs: { type: ['array', 'null'], items: { type: 'object', properties: { value: { type: ['string', 'null'] } }, required: ['value'], additionalProperties: false } },
        },
        required: ['verdict', 'iocs', 'note'],
        additionalProperties: false,
      },
    });
  });

  it('sends a schema strict mode cannot express with strict: false, and says so when the agent is saved', async () => {
    const schema = { type: 'object', properties: { summary: { type: 'string', maxLength: 200 } }, required: ['summary'] };
    const created = await t.app.inject({ method: 'POST', url: '/api/agents', headers: bearer(key), payload: { name: 'Loose', systemPrompt: 'Summarize.', structuredOutputSchema: schema } });
    expect(created.statusCode).toBe(200);
    expect(created.json().warnings).toEqual([
      'structuredOutputSchema cannot be sent in OpenAI strict mode ("maxLength" at /properties/summary is not supported in strict mode): with an openai or openai-compatible model it is sent with strict: false, so the model is not held to it while it writes (the answer is still validated against it).',
    ]);
    const agentId = created.json().id as string;
    openai.setScript([{ object: { summary: 'short' } }]);
    const runId = await runAsync(agentId, 'summarize');
    expect(await waitForRun(t, key, agentId, runId)).toEqual({ status: 'done' });
    expect((await result(agentId, runId)).json().structuredOutputResult).toBe('{"summary":"short"}');
    expect(openai.requests.at(-1)!.body.response_format!.json_schema).toEqual({ name: 'response', strict: false, schema });
  });

  it('stops at the step limit with an error; the partial result stays readable', async () => {
    openai.setScript(() => ({ toolCalls: [{ name: 'lookup_indicator', args: { value: 'x' } }], usage: { inputTokens: 7, outputTokens: 3 } }));
    const agentId = await createAgent(t, key, { toolNames: ['lookup_indicator'], maxSteps: 2 });
    const runId = await runAsync(agentId, 'loop');
    const statusMessage = 'Step limit reached: the agent used all 2 steps without a final answer';
    expect(await waitForRun(t, key, agentId, runId)).toEqual({ status: 'error', statusMessage });
    const res = await result(agentId, runId);
    expect(res.statusCode).toBe(200);
    const partial = res.json();
    expect(partial).toMatchObject({ status: 'error', statusMessage, finalAssistantMessage: '' });
    expect(partial.allToolCallsMade.map((c: { toolCallId: string }) => c.toolCallId)).toEqual(['call_1', 'call_2']);
    expect(partial.allToolResultsReceived).toHaveLength(2);
    expect(partial.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool']);

    const detail = await t.app.inject({ url: `/api/agent-runs/${runId}`, headers: bearer(executor.key) });
    expect(detail.statusCode).toBe(200);
    const { status: _s, statusMessage: _m, ...resultOnly } = partial;
    expect(detail.json()).toMatchObject({
      id: runId,
      agentId,
      status: 'error',
      statusMessage,
      mode: 'async',
      input: 'loop',
      triggerId: null,
      triggerContext: null,
      stepCount: 2,
      usage: { inputTokens: 14, outputTokens: 6, totalTokens: 20 },
      interruptRequestedAt: null,
      result: resultOnly,
    });
    expect(detail.json().durationMs).toBeGreaterThanOrEqual(0);
    expect(detail.json().startedAt).toMatch(/Z$/);
  });

  it('stops at the time limit', async () => {
    openai.setScript([{ text: 'too late', delayMs: 10_000 }]);
    const agentId = await createAgent(t, key, { maxDurationMs: 1000 });
    const runId = await runAsync(agentId, 'slow');
    expect(await waitForRun(t, key, agentId, runId)).toEqual({ status: 'error', statusMessage: 'Time limit of 1s exceeded' });
  });

  it('interrupts a running run; a finished run cannot be interrupted (409)', async () => {
    openai.setScript([{ text: 'never', delayMs: 10_000 }]);
    const agentId = await createAgent(t, key, {});
    const runId = await runAsync(agentId, 'wait');
    await waitForRun(t, key, agentId, runId, ['running']);
    const before = await result(agentId, runId);
    expect(before.statusCode).toBe(409);
    expect(before.json()).toEqual({ error: `Run is running; its result is available once it has ended (done, error or interrupted): poll /api/agents/${agentId}/run-async/${runId}/status` });
    const detailBefore = (await t.app.inject({ url: `/api/agent-runs/${runId}`, headers: bearer(key) })).json();
    expect(detailBefore).toMatchObject({ status: 'running', result: null, finishedAt: null, durationMs: null });
    const res = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-async/${runId}/interrupt`, headers: bearer(key) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ runId, status: 'running', statusMessage: 'Interrupt requested; the run stops at its next check' });
    expect(await waitForRun(t, key, agentId, runId)).toEqual({ status: 'interrupted', statusMessage: 'Interrupted on request' });
    const after = await result(agentId, runId);
    expect(after.statusCode).toBe(200);
    expect(after.json()).toMatchObject({ status: 'interrupted', statusMessage: 'Interrupted on request', finalAssistantMessage: '', messages: [{ role: 'system' }, { role: 'user', content: 'wait' }] });
    const again = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-async/${runId}/interrupt`, headers: bearer(key) });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'Run already finished (interrupted)' });
  });

  it('fails clearly when the alias has no provider, or the provider refuses', async () => {
    const agentId = await createAgent(t, key, { modelAlias: 'nope' });
    const runId = await runAsync(agentId, 'x');
    expect(await waitForRun(t, key, agentId, runId)).toEqual({
      status: 'error',
      statusMessage: 'Model alias "nope" is not configured: add a provider (POST /api/model-providers) and point the alias at one of its models (PUT /api/model-aliases/nope)',
    });

    openai.setScript([{ status: 401, message: 'Incorrect API key provided' }]);
    const other = await createAgent(t, key, {});
    const failed = await runAsync(other, 'x');
    const status = await waitForRun(t, key, other, failed);
    expect(status.status).toBe('error');
    expect(status.statusMessage).toMatch(/^Model call to 127\.0\.0\.1:\d+ failed \(HTTP 401\): Incorrect API key provided$/);
  });

  it('queues the output for each of the agent\'s destinations when the run is done', async () => {
    const dest = await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers: bearer(key), payload: { type: 'teams', name: 'SOC channel', config: { url: 'https://example.com/hook' } } });
    const destinationId = dest.json().id as string;
    openai.setScript([{ text: 'All clear.' }]);
    const agentId = await createAgent(t, key, { name: 'Reporter', outputDestinationIds: [destinationId] });
    const runId = await runAsync(agentId, 'report');
    await waitForRun(t, key, agentId, runId);
    const deliveries = await t.database.db.selectFrom('destinationDeliveries').selectAll().where('runId', '=', runId).execute();
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ destinationId, status: 'pending', eventKind: 'agent_run.completed' });
    expect((deliveries[0]!.payload as { data: unknown }).data).toMatchObject({ runId, agentId, agentName: 'Reporter', finalAssistantMessage: 'All clear.' });
    // The run detail says where its output went.
    const detail = (await t.app.inject({ url: `/api/agent-runs/${runId}`, headers: bearer(key) })).json();
    expect(detail.deliveries).toEqual([
      expect.objectContaining({ id: deliveries[0]!.id, destinationId, destinationName: 'SOC channel', destinationType: 'teams', eventKind: 'agent_run.completed', status: 'pending', attemptCount: 0, error: null }),
    ]);
  });
});

describe('Anthropic Messages', () => {
  it('runs a tool loop with an Anthropic model', async () => {
    anthropic.setScript([{ toolCalls: [{ name: 'lookup_indicator', args: { value: 'evil.example' } }] }, { text: 'Seen before.' }]);
    const agentId = await createAgent(t, key, { modelAlias: 'claude', toolNames: ['lookup_indicator'] });
    const runId = await runAsync(agentId, 'check evil.example');
    expect(await waitForRun(t, key, agentId, runId)).toEqual({ status: 'done' });
    const body = (await result(agentId, runId)).json();
    expect(body.finalAssistantMessage).toBe('Seen before.');
    expect(body.allToolCallsMade).toEqual([{ type: 'tool-call', toolCallId: 'toolu_1', toolName: 'lookup_indicator', args: { value: 'evil.example' } }]);
    expect(body.allToolResultsReceived[0]).toMatchObject({ toolCallId: 'toolu_1', isError: false });
    const last = anthropic.requests.at(-1)!;
    expect(last.headers['x-api-key']).toBe('sk-ant-test');
    expect(last.body.system).toBeDefined();
  });
});

describe('run-sync', () => {
  it('waits for the result', async () => {
    openai.setScript([{ text: 'Done quickly.' }]);
    const agentId = await createAgent(t, key, {});
    const res = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-sync`, headers: bearer(key), payload: { input: 'go' } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ status: 'done', result: { finalAssistantMessage: 'Done quickly.' } });
    expect(body.runId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers the status when the run outlasts the wait', async () => {
    openai.setScript([{ text: 'slow', delayMs: 5_000 }]);
    const agentId = await createAgent(t, key, {});
    const res = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-sync`, headers: bearer(key), payload: { input: 'go', timeoutMs: 1000 } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(['waiting', 'running']).toContain(body.status);
    expect(body.statusMessage).toBe(`Still ${body.status} after 1000 ms; poll /api/agents/${agentId}/run-async/${body.runId}/status`);
    expect(body).not.toHaveProperty('result');
    await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-async/${body.runId}/interrupt`, headers: bearer(key) });
  });
});

describe('interrupting a waiting run', () => {
  it('ends it at once, and the worker never starts it', async () => {
    await worker.stop();
    try {
      const agentId = await createAgent(t, key, {});
      const runId = await runAsync(agentId, 'queued');
      expect(await waitForRun(t, key, agentId, runId, ['waiting'])).toEqual({ status: 'waiting' });
      const res = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-async/${runId}/interrupt`, headers: bearer(key) });
      expect(res.json()).toEqual({ runId, status: 'interrupted', statusMessage: 'Interrupted before it started' });
      const ended = await result(agentId, runId);
      expect(ended.json()).toEqual({ status: 'interrupted', statusMessage: 'Interrupted before it started', finalAssistantMessage: '', allToolCallsMade: [], allToolResultsReceived: [], messages: [] });
    } finally {
      worker = await startRunWorker(t);
    }
  });
});

describe('access and input', () => {
  it('requires agent.execute to run and agent.read to read (403 missingPerms)', async () => {
    const agentId = await createAgent(t, key, {});
    const reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.read']);
    const res = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-async`, headers: bearer(reader.key), payload: {} });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['agent.execute'] });
    const nobody = await userWithPermissions(t.database.db, t.orgA.organization.id, []);
    for (const url of ['/api/agent-runs', '/api/agent-runs/0190f2a0-0000-7000-8000-000000000000']) {
      const denied = await t.app.inject({ url, headers: bearer(nobody.key) });
      expect(denied.statusCode).toBe(403);
      expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['agent.read'] });
    }
  });

  it('hides another organization\'s agents and runs (404)', async () => {
    openai.setScript([{ text: 'ok' }]);
    const agentId = await createAgent(t, key, {});
    const runId = await runAsync(agentId, 'x');
    const other = bearer(t.orgB.apiKey.key);
    const start = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-async`, headers: other, payload: {} });
    expect(start.statusCode).toBe(404);
    expect(start.json()).toEqual({ error: 'Agent not found' });
    for (const url of [`/api/agents/${agentId}/run-async/${runId}/status`, `/api/agents/${agentId}/run-async/${runId}/result`, `/api/agent-runs/${runId}`]) {
      const res = await t.app.inject({ url, headers: other });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Run not found' });
    }
    const listed = await t.app.inject({ url: '/api/agent-runs', headers: other });
    expect(listed.json().totalCount).toBe(0);
    await waitForRun(t, key, agentId, runId);
  });

  it('validates declared inputs, the body and the list query', async () => {
    const agentId = await createAgent(t, key, { inputs: [{ name: 'alert', type: 'object', required: true }, { name: 'note', type: 'string' }] });
    const res = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-async`, headers: bearer(key), payload: { input: { note: 5 } } });
    expect(res.statusCode).toBe(400);
    expect(res.json().issues.map((i: { path: string }) => i.path)).toEqual(['input.alert', 'input.note']);
    const extra = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-async`, headers: bearer(key), payload: { input: {}, bogus: 1 } });
    expect(extra.statusCode).toBe(400);
    const badId = await t.app.inject({ url: '/api/agent-runs/not-a-uuid', headers: bearer(key) });
    expect(badId.statusCode).toBe(400);
    expect(badId.json()).toEqual({ error: 'Validation failed', issues: [{ path: 'runId', message: 'must be a UUID', code: 'invalid_format', location: 'params' }] });
    const q = await t.app.inject({ url: '/api/agent-runs?status=done,flying&pageSize=500', headers: bearer(key) });
    expect(q.statusCode).toBe(400);
    expect(q.json().issues.map((i: { path: string }) => i.path).sort()).toEqual(['pageSize', 'status']);
  });
});

describe('OpenAPI', () => {
  it('describes GET /api/agent-runs/{runId}, and states where the paging rule has its exception', async () => {
    const doc = (await t.app.inject({ url: '/api/docs/openapi.json' })).json();
    expect(doc.info.description).toContain('except the agent-run listing `GET /api/agent-runs`,\nwhich takes `page` and `pageSize`');
    const one = doc.paths['/api/agent-runs/{runId}'].get;
    expect(Object.keys(one.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404']));
    expect(doc.paths['/api/agents/{agentId}/run-async/{runId}/result'].get.responses['409']).toBeDefined();
  });
});
