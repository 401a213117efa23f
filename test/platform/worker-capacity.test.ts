import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobCatalog } from '../../src/platform/jobs/catalog.js';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { createDeliveryJob } from '../../src/modules/delivery/index.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { agentRunJob, configureModel, createAgent, waitForRun } from '../support/agents.js';
import { createDestination, deliveryDeps } from '../support/delivery.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fakes/openai-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/fakes/webhook-receiver.js';
import { startTestWorker } from '../support/worker.js';
import { until } from '../support/until.js';

/**
 * Issue 46 point 2: slots kept for deliveries. Every shared worker slot runs an agent run whose
 * model call the fake model server holds; an `alert.created` delivery must still reach its
 * receiver before any of those runs ends (before the model answers at all).
 */
const TOKEN = 'whsec_' + Buffer.from('a-signing-secret-of-32-bytes-abc').toString('base64');
const RUN_SLOTS = 4;

let t: TestContext;
let key: string;
let openai: FakeOpenAI;
let rx: WebhookReceiver;
let worker: WorkerRunner;
const events: string[] = [];
let release!: () => void;
const held = new Promise<void>((r) => (release = r));

/** How this file's waits poll; a failure lists the events seen so far. */
const polling = { everyMs: 20, context: () => `events: ${events.join(', ')}` };

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true', RAMPART_RATE_LIMIT_PER_MINUTE: '0' } });
  key = t.orgA.apiKey.key;
  // Every model call is held until the test releases them.
  openai = await startFakeOpenAI({
    apiKey: 'sk-test',
    script: async () => {
      events.push('model call');
      await held;
      return { text: 'Triaged.' };
    },
  });
  rx = await startWebhookReceiver({ secret: TOKEN });
  await configureModel(t, key, { name: 'held', type: 'openai', baseUrl: openai.url, apiKey: 'sk-test', alias: 'default', modelId: 'gpt-4o-mini' });
  const catalog = new JobCatalog().register(
    agentRunJob(t),
    createDeliveryJob(deliveryDeps(t)),
  );
  worker = await startTestWorker(t, catalog, { concurrency: RUN_SLOTS, reservedConcurrency: 1 });
});
afterAll(async () => {
  release?.();
  await worker?.stop();
  await openai?.close();
  await rx?.close();
  await t?.close();
});

describe('slots kept for deliveries', () => {
  it('an alert.created delivery reaches its receiver while every run slot waits on a model call', async () => {
    const agentId = await createAgent(t, key, { name: 'Slow model' });
    const runIds: string[] = [];
    for (let i = 0; i < RUN_SLOTS; i++) {
      const res = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-async`, headers: bearer(key), payload: { input: `run ${i}` } });
      expect(res.statusCode, res.body).toBe(200);
      runIds.push(res.json().runId as string);
    }
    // Every shared slot is busy: four model calls are in flight, none answered.
    await until('every run slot to be busy', () => openai.requests.length === RUN_SLOTS, polling);

    await createDestination(t, key, { type: 'webhook', name: 'SOAR', config: { url: rx.url, authType: 'bearer' }, token: TOKEN, eventSubscriptions: ['alert.created'] });
    const alert = await t.app.inject({ method: 'POST', url: '/api/alerts', headers: bearer(key), payload: { title: 'Delivered while busy', severity: 'high' } });
    expect(alert.statusCode, alert.body).toBe(200);
    await until('the delivery to reach the receiver', () => rx.requests.length > 0, polling);
    events.push('delivered');
    const delivered = JSON.parse(rx.requests[0]!.body) as { type: string; data: { alert?: { title?: string } } };
    expect(delivered.type).toBe('alert.created');

    // Only now do the runs get their answers: the delivery came before any run ended.
    for (const id of runIds) {
      const s = await t.app.inject({ url: `/api/agents/${agentId}/run-async/${id}/status`, headers: bearer(key) });
      expect(s.json().status).toBe('running');
    }
    release();
    for (const id of runIds) expect((await waitForRun(t, key, agentId, id, ['done', 'error', 'interrupted'], 60_000)).status).toBe('done');
    expect(events).toEqual([...Array(RUN_SLOTS).fill('model call'), 'delivered']);
  });
});
