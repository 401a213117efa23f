import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { TOOLS } from '../../src/composition.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startServiceWorker } from '../support/worker.js';
import { configureModel, createAgent, waitForRun } from '../support/agents.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fakes/openai-server.js';

/**
 * An agent responds to an alert by blocking an address: the service's own job catalog (the
 * block-list tools as wired in production) and an OpenAI-compatible model server. The agent's
 * call runs directly: the approval a person gives (its `defaultPolicy: 'approve'`) is enforced
 * by the tool policies of issue 43 items 1-5, not by the tool.
 */
let t: TestContext;
let key: string;
let openai: FakeOpenAI;
let worker: WorkerRunner;
const basic = (k: string) => ({ authorization: `Basic ${Buffer.from(`paloalto:${k}`).toString('base64')}` });

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  key = t.orgA.apiKey.key;
  openai = await startFakeOpenAI();
  await configureModel(t, key, { name: 'fake', type: 'openai-compatible', baseUrl: openai.url, alias: 'default', modelId: 'local-model' });
  worker = await startServiceWorker(t);
});
afterAll(async () => {
  await worker?.stop();
  await openai?.close();
  await t?.close();
});

describe('block lists in a response', () => {
  it('declares block_indicator as needing approval and unblock_indicator as allowed', () => {
    expect(TOOLS.block_indicator).toMatchObject({ permissions: ['blocklist.manage'], defaultPolicy: 'approve' });
    expect(TOOLS.unblock_indicator).toMatchObject({ permissions: ['blocklist.manage'], defaultPolicy: 'allow' });
  });

  it('an alert\'s run blocks a C2 address (an RFC 1918 one is refused), the firewall list serves it, the timeline says until when, and it leaves at expiry', async () => {
    const list = await t.app.inject({ method: 'POST', url: '/api/blocklists', headers: bearer(key), payload: { name: 'perimeter', indicatorTypes: ['ipv4', 'domain'], defaultTtlSeconds: 86_400 } });
    expect(list.statusCode, list.body).toBe(201);
    // block_indicator waits for a person by default (test/approvals/approvals.test.ts covers that path); this team lets it run.
    const agentId = await createAgent(t, key, { name: 'Containment', toolNames: ['get_alert', 'block_indicator'], toolPolicies: { block_indicator: 'allow' } });
    const routes = await t.app.inject({ method: 'PUT', url: '/api/alert-triage-routes', headers: bearer(key), payload: { routes: [], defaultResponseAgentId: agentId } });
    expect(routes.statusCode, routes.body).toBe(200);

    openai.setScript([
      {
        toolCalls: [
          { name: 'block_indicator', args: { value: '10.4.2.17', reason: 'The infected host itself' } },
          { name: 'block_indicator', args: { value: '198.51.100[.]66', list: 'perimeter', reason: 'Cobalt Strike beacon from laptop-042 every 60 s', ttlSeconds: 7200 } },
        ],
      },
      { text: 'Blocked 198.51.100.66 at the perimeter for two hours; 10.4.2.17 is internal and was not blocked.' },
    ]);
    const created = await t.app.inject({ method: 'POST', url: '/api/alerts', headers: bearer(key), payload: { title: 'Beaconing to 198.51.100.66', severity: 'high', payload: { host: 'laptop-042', dst: '198.51.100.66' } } });
    const alert = created.json().alert;
    expect(await waitForRun(t, key, agentId, alert.triageRunId)).toEqual({ status: 'done' });

    // The firewall's next fetch has the address: nothing is cached between the tool's commit and the list.
    const txt = await t.app.inject({ url: '/blocklists/perimeter.txt', headers: basic(key) });
    expect(txt.statusCode).toBe(200);
    expect(txt.body).toBe('198.51.100.66\n');

    const result = (await t.app.inject({ url: `/api/agents/${agentId}/run-async/${alert.triageRunId}/result`, headers: bearer(key) })).json();
    const calls = result.allToolResultsReceived as Array<{ toolName: string; isError: boolean; result: unknown }>;
    const refused = calls.find((c) => c.isError);
    expect(refused?.toolName).toBe('block_indicator');
    expect(String(refused?.result)).toContain('10.4.2.17 must never be blocked: the allow list protects 10.0.0.0/8 (private network (RFC 1918))');
    const blocked = calls.find((c) => !c.isError)!.result as { expiresAt: string };
    expect(blocked).toMatchObject({ blocked: true, renewed: false, list: 'perimeter', type: 'ipv4', value: '198.51.100.66' });
    const hours = (new Date(blocked.expiresAt).getTime() - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(1.9);
    expect(hours).toBeLessThanOrEqual(2);

    const entries = (await t.app.inject({ url: `/api/blocklists/${list.json().id}/entries`, headers: bearer(key) })).json().entries;
    expect(entries).toEqual([
      expect.objectContaining({ value: '198.51.100.66', reason: 'Cobalt Strike beacon from laptop-042 every 60 s', expiresAt: blocked.expiresAt, addedBy: { type: 'run', runId: alert.triageRunId, agentId, alertId: alert.id } }),
    ]);

    const view = (await t.app.inject({ url: `/api/alerts/${alert.id}`, headers: bearer(key) })).json();
    const note = view.timeline.find((e: { kind: string }) => e.kind === 'blocked');
    expect(note).toMatchObject({
      actorType: 'agent',
      actorAgentId: agentId,
      runId: alert.triageRunId,
      body: `Blocked ipv4 198.51.100.66 on block list "perimeter" until ${blocked.expiresAt}: Cobalt Strike beacon from laptop-042 every 60 s`,
      data: { blocklistName: 'perimeter', type: 'ipv4', value: '198.51.100.66', expiresAt: blocked.expiresAt },
    });
    expect(view.timeline.filter((e: { kind: string }) => e.kind === 'blocked')).toHaveLength(1);

    // Two hours later (the database's clock moved): the address leaves the list.
    await sql`UPDATE blocklist_entries SET expires_at = now() - interval '1 millisecond' WHERE value = '198.51.100.66'`.execute(t.database.db);
    expect((await t.app.inject({ url: '/blocklists/perimeter.txt', headers: basic(key) })).body).toBe('');
  });
});
