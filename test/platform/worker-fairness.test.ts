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
 * Issue 46 point 3: fair scheduling across agents, and each agent's own limit. A slow agent's
 * 204 runs (model calls the fake model server holds SLOW_MS each) fill the 4 run slots and queue
 * 200 more; a fast agent's run must take the next free slot, not wait behind the 200 (first in,
 * first out: about 200 / 4 × SLOW_MS). Meanwhile a delivery's first attempt still goes out at
 * once (its own slots, point 2).
 */
const TOKEN = 'whsec_' + Buffer.from('a-signing-secret-of-32-bytes-abc').toString('base64');
const RUN_SLOTS = 4;
const QUEUED = 200;
const SLOW_MS = 700;

let t: TestContext;
let key: string;
let openai: FakeOpenAI;
let rx: WebhookReceiver;
let worker: WorkerRunner;
/** Model calls in the order they arrived, by agent marker; and how many of each are in flight now. */
const calls: string[] = [];
const inFlight = new Map<string, number>();
const maxInFlight = new Map<string, number>();
let releaseLimited!: () => void;
const limitedHeld = new Promise<void>((r) => (releaseLimited = r));

/** How this file's waits poll (the 120 s bound only turns a hang into a failure naming the calls seen). */
const polling = { timeoutMs: 120_000, everyMs: 20, context: () => `calls: ${calls.length}, in flight: ${JSON.stringify([...inFlight])}` };

const count = (marker: string) => calls.filter((c) => c === marker).length;

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true', RAMPART_RATE_LIMIT_PER_MINUTE: '0' } });
  key = t.orgA.apiKey.key;
  openai = await startFakeOpenAI({
    apiKey: 'sk-test',
    script: async (req) => {
      const marker = /MARKER-(\w+)/.exec(JSON.stringify(req.body))?.[1] ?? 'unknown';
      calls.push(marker);
      inFlight.set(marker, (inFlight.get(marker) ?? 0) + 1);
      maxInFlight.set(marker, Math.max(maxInFlight.get(marker) ?? 0, inFlight.get(marker)!));
      try {
        if (marker === 'SLOW') await new Promise((r) => setTimeout(r, SLOW_MS));
        if (marker === 'LIMITED') await limitedHeld;
        return { text: 'Triaged.' };
      } finally {
        inFlight.set(marker, inFlight.get(marker)! - 1);
      }
    },
  });
  rx = await startWebhookReceiver({ secret: TOKEN });
  await configureModel(t, key, { name: 'fake', type: 'openai', baseUrl: openai.url, apiKey: 'sk-test', alias: 'default', modelId: 'gpt-4o-mini' });
  const catalog = new JobCatalog().register(
    agentRunJob(t),
    createDeliveryJob(deliveryDeps(t)),
  );
  worker = await startTestWorker(t, catalog, { concurrency: RUN_SLOTS, reservedConcurrency: 1 });
});
afterAll(async () => {
  releaseLimited?.();
  await worker?.stop();
  await openai?.close();
  await rx?.close();
  await t?.close();
});

async function runAsync(agentId: string, input: string): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-async`, headers: bearer(key), payload: { input } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().runId as string;
}

describe('fair scheduling across agents', () => {
  it("a fast agent's run takes the next free slot while 200 runs of a slow agent wait; a delivery goes out at once", async () => {
    const slow = await createAgent(t, key, { name: 'Slow', systemPrompt: 'MARKER-SLOW analyst' });
    const fast = await createAgent(t, key, { name: 'Fast', systemPrompt: 'MARKER-FAST analyst' });
    for (let i = 0; i < RUN_SLOTS + QUEUED; i++) await runAsync(slow, `slow ${i}`);
    await until('every run slot to be busy with the slow agent', () => (inFlight.get('SLOW') ?? 0) === RUN_SLOTS, polling);

    const startedAt = Date.now();
    const slowStartedBefore = count('SLOW');
    const fastRun = await runAsync(fast, 'fast');
    await createDestination(t, key, { type: 'webhook', name: 'SOAR', config: { url: rx.url, authType: 'bearer' }, token: TOKEN, eventSubscriptions: ['alert.created'] });
    const alert = await t.app.inject({ method: 'POST', url: '/api/alerts', headers: bearer(key), payload: { title: 'Delivered while busy', severity: 'high' } });
    expect(alert.statusCode, alert.body).toBe(200);

    await until('the fast run to start', () => count('FAST') > 0, polling);
    const slowStartedBeforeFast = calls.indexOf('FAST') - slowStartedBefore;
    // First in, first out would start every slow run still queued first (about 200). Fair: the fast
    // run takes one of the slots freed by the 4 runs in flight when it was queued (at most 4 more
    // slow runs slip in, their jobs fetched as it was queued).
    expect(slowStartedBeforeFast).toBeLessThanOrEqual(2 * RUN_SLOTS);
    expect((await waitForRun(t, key, fast, fastRun, ['done', 'error', 'interrupted'], 60_000)).status).toBe('done');
    await until('the delivery to reach the receiver', () => rx.requests.length > 0, polling);
    // Both while the slow agent's backlog still waits.
    const waiting = await t.database.db.selectFrom('agentRuns').select((eb) => eb.fn.countAll<string>().as('n')).where('agentId', '=', slow).where('status', '=', 'waiting').executeTakeFirstOrThrow();
    expect(Number(waiting.n)).toBeGreaterThan(QUEUED / 2);
    // Reported, not asserted (speed belongs to `npm run bench`): issue 46 asks for < 5 s.
    console.info(`fast run started ${Date.now() - startedAt} ms after it was queued, behind ${slowStartedBeforeFast} slow runs`);

    // The slow backlog goes with its agent (its runs are deleted with it).
    const del = await t.app.inject({ method: 'DELETE', url: `/api/agents/${slow}`, headers: bearer(key) });
    expect(del.statusCode, del.body).toBe(200);
    await until('the slow runs in flight to end', () => (inFlight.get('SLOW') ?? 0) === 0, polling);
  }, 240_000);

  it("never runs more of an agent's runs at once than its maxConcurrentRuns, while slots are free", async () => {
    const limited = await createAgent(t, key, { name: 'Limited', systemPrompt: 'MARKER-LIMITED analyst', maxConcurrentRuns: 2 });
    const got = await t.app.inject({ url: `/api/agents/${limited}`, headers: bearer(key) });
    expect(got.json().maxConcurrentRuns).toBe(2);
    const runs: string[] = [];
    for (let i = 0; i < 5; i++) runs.push(await runAsync(limited, `limited ${i}`));
    await until('two limited runs to hold their model calls', () => (inFlight.get('LIMITED') ?? 0) === 2, polling);
    // Two slots are still free: another agent's run takes one, the limited agent's next does not.
    const other = await createAgent(t, key, { name: 'Other', systemPrompt: 'MARKER-OTHER analyst' });
    const otherRun = await runAsync(other, 'other');
    expect((await waitForRun(t, key, other, otherRun, ['done', 'error', 'interrupted'], 60_000)).status).toBe('done');
    expect(inFlight.get('LIMITED')).toBe(2);
    expect(count('LIMITED')).toBe(2);

    releaseLimited();
    for (const id of runs) expect((await waitForRun(t, key, limited, id, ['done', 'error', 'interrupted'], 60_000)).status).toBe('done');
    expect(maxInFlight.get('LIMITED')).toBe(2);
  }, 120_000);

  it('refuses a maxConcurrentRuns below 1', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/agents', headers: bearer(key), payload: { name: 'Bad', systemPrompt: 'x', maxConcurrentRuns: 0 } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Validation failed');
    expect(res.json().issues.map((i: { path: string }) => i.path)).toEqual(['maxConcurrentRuns']);
  });
});
