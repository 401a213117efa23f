import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startServiceWorker } from '../support/worker.js';
import { configureModel, createAgent, waitForRun } from '../support/agents.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fakes/openai-server.js';

/**
 * Agent triage end to end, with the service's own job catalog (src/jobs.ts: the alert tools and
 * the run-ended hook as wired in production) and an OpenAI-compatible model server.
 */
let t: TestContext;
let key: string;
let openai: FakeOpenAI;
let worker: WorkerRunner;

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

describe('agent triage', () => {
  it('a routed alert is triaged by its agent: tools change the alert, closing as true positive is refused, the outcome lands on the timeline', async () => {
    const agentId = await createAgent(t, key, { name: 'Phishing responder', toolNames: ['get_alert', 'comment_on_alert', 'update_alert', 'set_alert_status'] });
    const routes = await t.app.inject({ method: 'PUT', url: '/api/alert-triage-routes', headers: bearer(key), payload: { routes: [], defaultResponseAgentId: agentId } });
    expect(routes.statusCode, routes.body).toBe(200);

    openai.setScript([
      { toolCalls: [{ name: 'get_alert', args: { alertId: 'RMP-1' } }] },
      { toolCalls: [{ name: 'set_alert_status', args: { alertId: 'RMP-1', status: 'closed_true_positive', reason: 'Credential phish' } }] },
      {
        toolCalls: [
          { name: 'update_alert', args: { alertId: 'RMP-1', severity: 'high' } },
          { name: 'comment_on_alert', args: { alertId: 'RMP-1', bodyMarkdown: 'Sender domain registered 2 days ago; link leads to a credential form.' } },
          { name: 'set_alert_status', args: { alertId: 'RMP-1', status: 'escalated', reason: 'Likely credential phishing; a person must confirm' } },
        ],
      },
      { text: 'Escalated RMP-1: likely credential phishing.' },
    ]);
    const created = await t.app.inject({ method: 'POST', url: '/api/alerts', headers: bearer(key), payload: { title: 'User reported phishing', severity: 'medium', payload: { from: 'it-support@rnicrosoft-help.example' } } });
    const alert = created.json().alert;
    expect(alert).toMatchObject({ displayId: 'RMP-1', assignedAgentId: agentId, status: 'in_progress', routing: { outcome: 'default' } });
    expect(await waitForRun(t, key, agentId, alert.triageRunId)).toEqual({ status: 'done' });

    const result = (await t.app.inject({ url: `/api/agents/${agentId}/run-async/${alert.triageRunId}/result`, headers: bearer(key) })).json();
    const refused = result.allToolResultsReceived.find((r: { toolName: string; isError: boolean }) => r.toolName === 'set_alert_status' && r.isError);
    expect(refused.result).toMatch(/cannot close an alert as a true positive/);

    const view = (await t.app.inject({ url: `/api/alerts/${alert.id}`, headers: bearer(key) })).json();
    expect(view.alert).toMatchObject({ status: 'escalated', severity: 'high', resolvedAt: null, derivedDisposition: null });
    const kinds = view.timeline.map((e: { kind: string; actorType: string }) => `${e.kind}:${e.actorType}`);
    // The three tool calls of one step run concurrently: their entries may come in any order.
    expect(kinds.slice(0, 3)).toEqual(['created:human', 'routed:system', 'triage_started:system']);
    expect(kinds.slice(3, 6).sort()).toEqual(['comment:agent', 'escalated:agent', 'severity_changed:agent']);
    expect(kinds.slice(6)).toEqual(['triage_finished:agent']);
    const finished = view.timeline.at(-1);
    expect(finished).toMatchObject({ runId: alert.triageRunId, actorAgentId: agentId, body: 'Escalated RMP-1: likely credential phishing.', data: { status: 'done' } });
    // The model saw the alert (with its payload) in the run input.
    expect(JSON.stringify(openai.requests[0]!.body.messages)).toContain('rnicrosoft-help.example');

    // Insights counts the agent's escalation as its verdict (kept on the alert by the status change).
    const insights = (await t.app.inject({ url: '/api/insights?window=7d', headers: bearer(key) })).json();
    expect(insights.alerts.agents).toEqual([
      expect.objectContaining({ agentId, agentName: 'Phishing responder', alerts: 1, escalated: 1, verdicts: 1, overturned: 0 }),
    ]);
  });
});
