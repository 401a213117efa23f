import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { configureModel, createAgent, startRunWorker, waitForRun } from '../support/agents.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fakes/openai-server.js';

/**
 * What a triggered run keeps of its webhook delivery (issue 18 items 3 and 4, issue 20 item 4):
 * the trigger context (recorded, shown in GET /api/agent-runs/{runId}, given to the model), the
 * per-trigger input mapping with the required-input check, and the payload id used for dedupe.
 */
let t: TestContext;
let key: string;
let openai: FakeOpenAI;
let worker: WorkerRunner;

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  key = t.orgA.apiKey.key;
  openai = await startFakeOpenAI({ apiKey: 'sk-test' });
  await configureModel(t, key, { name: 'fake-openai', type: 'openai', baseUrl: openai.url, apiKey: 'sk-test', alias: 'default', modelId: 'gpt-4o-mini' });
  worker = await startRunWorker(t);
});
afterAll(async () => {
  await worker?.stop();
  await openai?.close();
  await t?.close();
});

async function webhookTrigger(agentId: string, save: Record<string, unknown> = {}) {
  const fields = await t.app.inject({ url: `/api/agents/${agentId}/trigger/webhook/fields`, headers: bearer(key) });
  const { triggerId, secret } = fields.json().data as { triggerId: string; secret: string };
  const saved = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/trigger/save`, headers: bearer(key), payload: { triggerId, source: 'webhook', createAlert: false, ...save } });
  expect(saved.statusCode, saved.body).toBe(200);
  return { triggerId, secret, saved: saved.json() };
}

async function deliver(triggerId: string, secret: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/trigger/webhook/${triggerId}`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}`, ...headers },
    payload: JSON.stringify(body),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { executionId?: string; skipped?: true; message?: string };
}

const runDetail = async (runId: string) => (await t.app.inject({ url: `/api/agent-runs/${runId}`, headers: bearer(key) })).json();

describe('trigger context', () => {
  it('records source, delivery id, event type and allow-listed headers on the run, keeps the body as input, and tells the model', async () => {
    openai.setScript([{ text: 'A push to main.' }]);
    const agentId = await createAgent(t, key, { systemPrompt: 'Review repository events.' });
    const { triggerId, secret } = await webhookTrigger(agentId);
    const body = { ref: 'refs/heads/main', commits: [{ id: 'c1' }] };
    const { executionId } = await deliver(triggerId, secret, body, { 'x-github-event': 'push', 'x-github-delivery': 'gh-d-1', 'user-agent': 'GitHub-Hookshot/abc', cookie: 'session=x' });
    expect(await waitForRun(t, key, agentId, executionId!)).toEqual({ status: 'done' });

    const run = await runDetail(executionId!);
    expect(run).toMatchObject({ id: executionId, mode: 'trigger', triggerId, triggerSource: 'webhook', input: body, status: 'done' });
    expect(run.triggerContext).toEqual({
      source: 'webhook',
      deliveryId: 'gh-d-1',
      eventType: 'push',
      headers: { 'content-type': 'application/json', 'user-agent': 'GitHub-Hookshot/abc', 'x-github-delivery': 'gh-d-1', 'x-github-event': 'push' },
      receivedAt: expect.stringMatching(/Z$/),
    });
    // Never the credentials the delivery carried.
    expect(JSON.stringify(run)).not.toContain(secret);
    // The run that succeeded stamps its trigger (triggers' subscriber of run.ended).
    const { triggers } = (await t.app.inject({ url: `/api/agents/${agentId}/trigger`, headers: bearer(key) })).json();
    const stamped = triggers.find((x: { id: string }) => x.id === triggerId);
    expect(stamped.lastRunSucceededAt).toMatch(/Z$/);

    const userMessage = openai.requests.at(-1)!.body.messages!.find((m) => m.role === 'user')!.content as string;
    expect(userMessage).toContain('"eventType": "push"');
    expect(userMessage).toContain('"deliveryId": "gh-d-1"');
    expect(userMessage).toContain('"ref": "refs/heads/main"');
    expect(userMessage).not.toContain(secret);
    expect(run.result.messages[1]).toEqual({ role: 'user', content: userMessage });
  });
});

describe('input mapping', () => {
  const inputs = [{ name: 'finding', type: 'object', required: true }, { name: 'accountId', type: 'string', required: true }];

  it('sets mapped inputs from the payload and runs', async () => {
    openai.setScript([{ text: 'Triaged.' }]);
    const agentId = await createAgent(t, key, { inputs });
    const { triggerId, secret, saved } = await webhookTrigger(agentId, { inputMapping: { finding: '/detail', accountId: '/account' } });
    expect(saved.inputMapping).toEqual({ finding: '/detail', accountId: '/account' });
    const payload = { id: 'gd-1', account: '123456789012', detail: { type: 'Recon:EC2/PortProbeUnprotectedPort', severity: 2 } };
    const { executionId } = await deliver(triggerId, secret, payload);
    expect(await waitForRun(t, key, agentId, executionId!)).toEqual({ status: 'done' });
    expect((await runDetail(executionId!)).input).toEqual({ ...payload, finding: payload.detail, accountId: '123456789012' });
  });

  it('ends the run in error, without calling the model, when a required input is still missing', async () => {
    const agentId = await createAgent(t, key, { inputs });
    const { triggerId, secret } = await webhookTrigger(agentId, { inputMapping: { finding: '/detail', accountId: '/account' } });
    const before = openai.requests.length;
    const { executionId } = await deliver(triggerId, secret, { detail: { type: 'x' } });
    const statusMessage = 'Not run: input "accountId" is required by this agent (map inputs from the payload with the trigger\'s inputMapping)';
    expect(await waitForRun(t, key, agentId, executionId!)).toEqual({ status: 'error', statusMessage });
    expect(openai.requests.length).toBe(before);

    // Without a mapping the payload itself must carry the inputs.
    const bare = await webhookTrigger(agentId);
    const second = await deliver(bare.triggerId, bare.secret, { finding: 'not an object', accountId: '1' });
    expect(await waitForRun(t, key, agentId, second.executionId!)).toEqual({
      status: 'error',
      statusMessage: 'Not run: input "finding" must be of type object (map inputs from the payload with the trigger\'s inputMapping)',
    });
  });

  it('validates the mapping, and refuses it on cron triggers', async () => {
    const agentId = await createAgent(t, key, {});
    const fields = (await t.app.inject({ url: `/api/agents/${agentId}/trigger/webhook/fields`, headers: bearer(key) })).json().data;
    const bad = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agentId}/trigger/save`,
      headers: bearer(key),
      payload: { triggerId: fields.triggerId, source: 'webhook', inputMapping: { 'not a name': '/x', ok: 'no-slash' }, deliveryIdPointer: 'id' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issues.map((i: { path: string }) => i.path).sort()).toEqual(['deliveryIdPointer', 'inputMapping.not a name', 'inputMapping.ok']);

    const cron = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/trigger/save`, headers: bearer(key), payload: { source: 'cron', cronSchedule: '0 * * * *' } });
    const put = await t.app.inject({ method: 'PUT', url: `/api/agents/${agentId}/trigger/${cron.json().id}`, headers: bearer(key), payload: { inputMapping: { a: '/a' } } });
    expect(put.statusCode).toBe(400);
    expect(put.json()).toEqual({ error: 'Validation failed', issues: [{ path: 'inputMapping', message: 'applies to webhook triggers only', code: 'not_applicable', location: 'body' }] });
  });
});

describe('payload delivery id (senders without a delivery header)', () => {
  it('dedupes by the id the trigger\'s deliveryIdPointer names; a delivery header still wins', async () => {
    openai.setScript(() => ({ text: 'ok' }));
    const agentId = await createAgent(t, key, {});
    const { triggerId, secret } = await webhookTrigger(agentId, { deliveryIdPointer: '/id' });
    const finding = { version: '0', id: 'c8c4daa7-a20c-2f03-0070-b7393dd542ad', 'detail-type': 'GuardDuty Finding', detail: { severity: 5 } };

    const first = await deliver(triggerId, secret, finding);
    const again = await deliver(triggerId, secret, finding);
    expect(again).toEqual({ skipped: true, message: 'Duplicate delivery: already received', executionId: first.executionId });
    expect((await runDetail(first.executionId!)).triggerContext.deliveryId).toBe(finding.id);

    const withHeader = await deliver(triggerId, secret, finding, { 'x-delivery-id': 'hdr-1' });
    expect(withHeader.executionId).not.toBe(first.executionId);
    expect(withHeader).not.toHaveProperty('skipped');

    // Cleared: the same payload is no longer deduplicated.
    const cleared = await t.app.inject({ method: 'PUT', url: `/api/agents/${agentId}/trigger/${triggerId}`, headers: bearer(key), payload: { deliveryIdPointer: null } });
    expect(cleared.json().deliveryIdPointer).toBeNull();
    expect(await deliver(triggerId, secret, finding)).not.toHaveProperty('skipped');
  });
});
