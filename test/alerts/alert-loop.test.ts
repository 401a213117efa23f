import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { noEvents } from '../../src/platform/events.js';
import { scheduleDueCronTriggers } from '../../src/modules/triggers/cron.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startServiceWorker } from '../support/worker.js';
import { configureModel, createAgent, waitForRun } from '../support/agents.js';
import { startFakeOpenAI, type FakeOpenAI, type OpenAIRequest, type ScriptedTurn } from '../support/fakes/openai-server.js';
import { startFakeSlack, type FakeSlack } from '../support/fakes/slack-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/fakes/webhook-receiver.js';
import { createDestination } from '../support/delivery.js';
import { until } from '../support/until.js';
import { startFakePagerDuty } from '../support/fakes/pagerduty-server.js';

/**
 * The alert loop (issue 26): a trigger's alert reaches its triage run, routes and simulate
 * agree with intake for every origin, dedupe keys survive mappings, duplicate deliveries answer
 * runs that exist, cron triggers create alerts. The service's own job catalog (src/jobs.ts) and
 * an OpenAI-compatible model server scripted per agent (each agent has its own system prompt).
 */
let t: TestContext;
let admin: Record<string, string>;
let openai: FakeOpenAI;
let worker: WorkerRunner;
let slack: FakeSlack;
let receiver: WebhookReceiver;
const RECEIVER_SECRET = `whsec_${Buffer.from('alert-loop-receiver').toString('base64')}`;
const BASE_URL = 'https://rampart.example.com';
const scripts = new Map<string, ScriptedTurn[]>();

/** A real GuardDuty finding as EventBridge delivers it (see test/fixtures/guardduty/README.md). */
const GUARDDUTY = JSON.parse(fs.readFileSync(new URL('../fixtures/guardduty/ssh-brute-force.eventbridge.json', import.meta.url), 'utf8')) as {
  id: string;
  detail: { id: string; severity: number; title: string; arn: string; [k: string]: unknown };
  [k: string]: unknown;
};
const finding = (id: string, severity = GUARDDUTY.detail.severity) => ({ ...GUARDDUTY, id: `evt-${id}`, detail: { ...GUARDDUTY.detail, id, severity } });

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  admin = bearer(t.orgA.apiKey.key);
  openai = await startFakeOpenAI({
    script: (req: OpenAIRequest) => {
      const system = JSON.stringify(req.body.messages?.[0] ?? req.body.instructions ?? '');
      const entry = [...scripts.entries()].find(([prompt]) => system.includes(prompt));
      return entry?.[1].shift() ?? { text: 'Nothing more to do.' };
    },
  });
  await configureModel(t, t.orgA.apiKey.key, { name: 'fake', type: 'openai-compatible', baseUrl: openai.url, alias: 'default', modelId: 'local-model' });
  slack = await startFakeSlack({ token: 'xoxb-1-test' });
  receiver = await startWebhookReceiver({ secret: RECEIVER_SECRET });
  worker = await startServiceWorker(t, { deps: { baseUrl: BASE_URL } });
});
afterAll(async () => {
  await worker?.stop();
  await openai?.close();
  await slack?.close();
  await receiver?.close();
  await t?.close();
});

const ALERT_TOOLS = ['get_alert', 'comment_on_alert', 'update_alert', 'set_alert_status'];

async function agent(name: string, turns: ScriptedTurn[] = [], toolNames = ALERT_TOOLS): Promise<string> {
  const systemPrompt = `You are ${name}.`;
  scripts.set(systemPrompt, turns);
  return createAgent(t, t.orgA.apiKey.key, { name, systemPrompt, toolNames });
}

async function webhookTrigger(agentId: string, save: Record<string, unknown> = {}) {
  const { secret, webhookUrl } = (await t.app.inject({ url: `/api/agents/${agentId}/trigger/webhook/fields`, headers: admin })).json().data;
  const id = webhookUrl.split('/').pop() as string;
  const saved = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/trigger/save`, headers: admin, payload: { triggerId: id, source: 'webhook', name: 'GuardDuty', ...save } });
  expect(saved.statusCode, saved.body).toBe(200);
  return { id, secret, path: `/api/trigger/webhook/${id}` };
}

/** Signed as GitHub-style webhooks are (`X-Hub-Signature-256`), over the raw body. */
async function deliver(tr: { path: string; secret: string }, body: unknown, headers: Record<string, string> = {}) {
  const raw = JSON.stringify(body);
  const signature = `sha256=${createHmac('sha256', tr.secret).update(raw).digest('hex')}`;
  const res = await t.app.inject({ method: 'POST', url: tr.path, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature, ...headers }, payload: raw });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { executionId?: string; skipped?: true; message?: string };
}

const getAlert = async (id: string) => (await t.app.inject({ url: `/api/alerts/${id}`, headers: admin })).json().alert as Record<string, any>;
const getRun = (id: string, headers = admin) => t.app.inject({ url: `/api/agent-runs/${id}`, headers });
const alertOfRun = async (runId: string) => (await t.app.inject({ url: `/api/agent-runs/${runId}/alert`, headers: admin })).json().alert as Record<string, any>;
const simulate = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/api/alert-triage-routes/simulate', headers: admin, payload });
const putRoutes = (payload: Record<string, unknown>) => t.app.inject({ method: 'PUT', url: '/api/alert-triage-routes', headers: admin, payload });
/** The first user message the model got for a run of the agent whose system prompt names `name`. */
const userMessageOf = (name: string) => {
  const req = openai.requests.find((r) => JSON.stringify(r.body.messages?.[0] ?? '').includes(`You are ${name}.`));
  return String(req?.body.messages?.find((m) => m.role === 'user')?.content ?? '');
};

describe('end to end: signal → alert → triage verdict → people', () => {
  it('a signed GuardDuty webhook opens an alert, the trigger\'s run escalates it without being told its id, Slack and a webhook get one message each naming it and the verdict', async () => {
    const slackId = await createDestination(t, t.orgA.apiKey.key, { type: 'slack', name: 'SOC channel', config: { channelIds: ['C0SEC'], apiBaseUrl: slack.apiBaseUrl }, token: 'xoxb-1-test' });
    const hookId = await createDestination(t, t.orgA.apiKey.key, { type: 'webhook', name: 'SOAR', config: { url: receiver.url, authType: 'bearer' }, token: RECEIVER_SECRET });
    const systemPrompt = 'You are E2E cloud triage.';
    scripts.set(systemPrompt, [
      { toolCalls: [{ name: 'set_alert_status', args: { status: 'escalated', reason: 'Brute force against the bastion from a known scanner' } }] },
      { text: 'Escalated: SSH brute force from 203.0.113.9 against i-0abc1234def567890; block the address and check auth logs.' },
    ]);
    const agentId = await createAgent(t, t.orgA.apiKey.key, { name: 'E2E cloud triage', systemPrompt, toolNames: ALERT_TOOLS, outputDestinationIds: [slackId, hookId] });
    const tr = await webhookTrigger(agentId, { name: 'GuardDuty findings' });
    const answer = await deliver(tr, finding('e2e-finding'));
    expect(await waitForRun(t, t.orgA.apiKey.key, agentId, answer.executionId!)).toEqual({ status: 'done' });
    const alert = await alertOfRun(answer.executionId!);
    expect(alert.status).toBe('escalated');

    await until('the Slack post and the signed webhook', () => slack.posted.length >= 1 && receiver.verified.length >= 1, { timeoutMs: 15_000, everyMs: 50 });
    await new Promise((r) => setTimeout(r, 300)); // nothing more arrives
    const title = `${alert.displayId} escalated by E2E cloud triage: ${GUARDDUTY.detail.title}`;
    expect(slack.posted).toHaveLength(1);
    expect(slack.posted[0]).toMatchObject({ channel: 'C0SEC', text: expect.stringContaining(title) });
    expect(JSON.stringify(slack.posted[0]!.blocks)).toContain(`${BASE_URL}/alerts/${alert.id}|Alert ${alert.displayId}`);
    expect(receiver.verified).toHaveLength(1);
    expect(receiver.verified[0]!.body).toMatchObject({
      id: answer.executionId,
      type: 'agent_run.completed',
      data: { runId: answer.executionId, agentName: 'E2E cloud triage', alert: { id: alert.id, displayId: alert.displayId, status: 'escalated' } },
    });
  });
});

describe('PagerDuty: one incident per alert', () => {
  it('the alert, its triage run\'s output and its status changes share the alert\'s dedup_key; closing resolves it', async () => {
    const pd = await startFakePagerDuty({ routingKey: 'R0UTINGKEY' });
    try {
      const pdId = await createDestination(t, t.orgA.apiKey.key, { type: 'pagerduty', name: 'On-call', config: { severity: 'warning', apiBaseUrl: pd.apiBaseUrl }, token: 'R0UTINGKEY', eventSubscriptions: ['alert.created', 'alert.status_changed'] });
      const systemPrompt = 'You are PD triage.';
      scripts.set(systemPrompt, [{ toolCalls: [{ name: 'set_alert_status', args: { status: 'escalated' } }] }, { text: 'Escalated.' }]);
      const agentId = await createAgent(t, t.orgA.apiKey.key, { name: 'PD triage', systemPrompt, toolNames: ALERT_TOOLS, outputDestinationIds: [pdId] });
      const answer = await deliver(await webhookTrigger(agentId, { name: 'GuardDuty paging' }), finding('pd-finding', 9));
      expect(await waitForRun(t, t.orgA.apiKey.key, agentId, answer.executionId!)).toEqual({ status: 'done' });
      const alert = await alertOfRun(answer.executionId!);
      /** `n` events arrive, and no more (the 300 ms pause lets an extra one show). */
      const expectEvents = async (n: number) => {
        await until(`${n} PagerDuty events`, () => pd.events.length >= n, { timeoutMs: 15_000, everyMs: 50 });
        await new Promise((r) => setTimeout(r, 300));
        expect(pd.events).toHaveLength(n);
      };
      // alert.created, alert.status_changed (escalated) and the run's verdict: one incident.
      await expectEvents(3);
      expect(pd.events.map((e) => [e.event_action, e.dedup_key])).toEqual(Array(3).fill(['trigger', alert.id]));
      expect(pd.events.map((e) => e.payload.summary).sort()).toEqual(
        [`New alert ${alert.displayId}: ${GUARDDUTY.detail.title}`, `${alert.displayId} escalated: ${GUARDDUTY.detail.title}`, `${alert.displayId} escalated by PD triage: ${GUARDDUTY.detail.title}`].sort(),
      );
      const closed = await t.app.inject({ method: 'POST', url: `/api/alerts/${alert.id}/status`, headers: admin, payload: { status: 'closed_true_positive', reason: 'Confirmed; instance rebuilt' } });
      expect(closed.statusCode, closed.body).toBe(200);
      await expectEvents(4);
      expect(pd.events.at(-1)).toEqual({ routing_key: 'R0UTINGKEY', event_action: 'resolve', dedup_key: alert.id });
    } finally {
      await pd.close();
    }
  });
});

describe("a trigger's run knows its alert", () => {
  it('signed GuardDuty delivery → alert → the run is told the alert and escalates it without an alertId; the run shows alertId/alertDisplayId', async () => {
    const agentId = await agent('Cloud triage', [
      { toolCalls: [{ name: 'get_alert', args: {} }] },
      { toolCalls: [{ name: 'set_alert_status', args: { status: 'escalated', reason: 'SSH brute force from a known scanner against a bastion; a person must decide' } }] },
      { text: 'Escalated: SSH brute force against i-0abc1234def567890.' },
    ]);
    const tr = await webhookTrigger(agentId);
    const answer = await deliver(tr, GUARDDUTY);
    const alert = await alertOfRun(answer.executionId!);
    expect(alert).toMatchObject({ severity: 'high', status: 'in_progress', dedupeKey: `guardduty:${GUARDDUTY.detail.id}`, triageRunId: answer.executionId, routing: { outcome: 'trigger' } });
    expect(await waitForRun(t, t.orgA.apiKey.key, agentId, answer.executionId!)).toEqual({ status: 'done' });

    expect(await getAlert(alert.id)).toMatchObject({ status: 'escalated' });
    const run = (await getRun(answer.executionId!)).json();
    expect(run).toMatchObject({ alertId: alert.id, alertDisplayId: alert.displayId, mode: 'trigger' });
    // The get_alert call without an id read this alert.
    expect(run.result.allToolResultsReceived[0]).toMatchObject({ toolName: 'get_alert', isError: false, result: { alert: { id: alert.id } } });
    // Told in words and as data, before the trigger context and the payload.
    const prompt = userMessageOf('Cloud triage');
    expect(prompt).toMatch(new RegExp(`^This run triages alert ${alert.displayId} \\("${GUARDDUTY.detail.title.replace(/[.()]/g, '\\$&')}"\\): severity high, status in_progress`));
    const data = JSON.parse(prompt.slice(prompt.indexOf('Alert (JSON):\n') + 14, prompt.indexOf('\n\nTrigger context')));
    expect(data).toEqual({
      id: alert.id, displayId: alert.displayId, title: GUARDDUTY.detail.title, severity: 'high', status: 'in_progress',
      source: { category: 'trigger', name: 'GuardDuty', triggerType: 'webhook' }, dedupeKey: `guardduty:${GUARDDUTY.detail.id}`,
      duplicateCount: 1, externalRef: GUARDDUTY.detail.id, externalUrl: null,
    });
    expect(prompt.indexOf('Trigger context')).toBeLessThan(prompt.indexOf('Input (JSON)'));

    // Another organization's key does not see the run.
    expect((await getRun(answer.executionId!, bearer(t.orgB.apiKey.key))).statusCode).toBe(404);
  });

  it('a routed alert is stated the same way; another alert may be named; a run without an alert is told to give alertId', async () => {
    const responder = await agent('Generalist', [
      { toolCalls: [{ name: 'comment_on_alert', args: { bodyMarkdown: 'Looked at it.' } }, { name: 'comment_on_alert', args: { alertId: 'RMP-1', bodyMarkdown: 'Related to this one.' } }] },
      { text: 'Commented.' },
    ]);
    expect((await putRoutes({ routes: [], defaultResponseAgentId: responder })).statusCode).toBe(200);
    const created = (await t.app.inject({ method: 'POST', url: '/api/alerts', headers: admin, payload: { title: 'Impossible travel for j.doe', severity: 'medium' } })).json().alert;
    expect(await waitForRun(t, t.orgA.apiKey.key, responder, created.triageRunId)).toEqual({ status: 'done' });
    expect(userMessageOf('Generalist')).toMatch(new RegExp(`^This run triages alert ${created.displayId} \\("Impossible travel for j.doe"\\): severity medium, status in_progress, from `));
    const timeline = (await t.app.inject({ url: `/api/alerts/${created.id}/timeline`, headers: admin })).json().entries;
    expect(timeline.filter((e: { kind: string }) => e.kind === 'comment').map((e: { body: string }) => e.body)).toEqual(['Looked at it.']);
    const other = (await t.app.inject({ url: '/api/alerts/RMP-1/timeline', headers: admin })).json().entries;
    expect(other.filter((e: { kind: string }) => e.kind === 'comment').map((e: { body: string; runId: string }) => [e.body, e.runId])).toEqual([['Related to this one.', created.triageRunId]]);
    expect((await getRun(created.triageRunId)).json()).toMatchObject({ mode: 'triage', alertId: created.id, alertDisplayId: created.displayId });
    expect((await putRoutes({ routes: [], defaultResponseAgentId: null })).statusCode).toBe(200);

    const plain = await agent('Plain helper', [{ toolCalls: [{ name: 'get_alert', args: {} }] }, { text: 'No alert.' }]);
    const started = await t.app.inject({ method: 'POST', url: `/api/agents/${plain}/run-async`, headers: admin, payload: { input: 'Check things' } });
    const runId = started.json().runId as string;
    expect(await waitForRun(t, t.orgA.apiKey.key, plain, runId)).toEqual({ status: 'done' });
    const run = (await getRun(runId)).json();
    expect(run).toMatchObject({ alertId: null, alertDisplayId: null });
    expect(run.result.allToolResultsReceived[0]).toMatchObject({ toolName: 'get_alert', isError: true, result: 'Give alertId: this run triages no alert' });
    expect(userMessageOf('Plain helper')).toBe('Check things');
  });
});

describe('routes, triggers and simulate say the same thing', () => {
  it('for every origin, simulate answers what intake really did; routeAlerts routes a trigger\'s alert and starts no trigger run', async () => {
    const cloud = await agent('Cloud responder');
    const fallback = await agent('Fallback responder');
    const own = await agent('Trigger owner');
    const routes = await putRoutes({
      routes: [{ name: 'Cloud high', enabled: true, conditions: [{ type: 'severity', severities: ['high', 'critical'] }, { type: 'source', sources: ['webhook'] }], responseAgentId: cloud }],
      defaultResponseAgentId: fallback,
    });
    expect(routes.statusCode, routes.body).toBe(200);
    const agreeing = async (alert: Record<string, any>, sample: Record<string, unknown>) => {
      const sim = await simulate(sample);
      expect(sim.statusCode, sim.body).toBe(200);
      expect(sim.json()).toMatchObject({ outcome: alert.routing.outcome, responseAgentId: alert.assignedAgentId, reason: alert.routing.reason });
      return sim.json();
    };

    // A trigger (default): its own agent, whatever the routes say.
    const plain = await webhookTrigger(own, { name: 'GuardDuty direct' });
    const direct = await alertOfRun((await deliver(plain, finding('f-direct'))).executionId!);
    expect(direct).toMatchObject({ severity: 'high', assignedAgentId: own, routing: { outcome: 'trigger' } });
    expect(await agreeing(direct, { severity: 'high', source: 'webhook', triggerId: plain.id })).toMatchObject({ responseAgentName: 'Trigger owner' });

    // A trigger with routeAlerts: the route, and no run of the trigger's own agent.
    const routed = await webhookTrigger(own, { name: 'GuardDuty routed', routeAlerts: true });
    const answer = await deliver(routed, finding('f-routed'));
    const routedAlert = await alertOfRun(answer.executionId!);
    expect(routedAlert).toMatchObject({ assignedAgentId: cloud, triageRunId: answer.executionId, originTriggerId: routed.id, originRunId: null, routing: { outcome: 'route', routeName: 'Cloud high' } });
    expect((await getRun(answer.executionId!)).json()).toMatchObject({ agentId: cloud, mode: 'triage', alertId: routedAlert.id });
    const ownRuns = (await t.app.inject({ url: `/api/agent-runs?triggerId=${routed.id}`, headers: admin })).json();
    expect(ownRuns.totalCount).toBe(0);
    await agreeing(routedAlert, { severity: 'high', source: 'webhook', triggerId: routed.id });
    const listed = (await t.app.inject({ url: `/api/agents/${own}/trigger`, headers: admin })).json().triggers;
    expect(listed.map((x: { name: string; routeAlerts: boolean }) => [x.name, x.routeAlerts])).toEqual([['GuardDuty direct', false], ['GuardDuty routed', true]]);

    // The API (user) and a code detection: the routes.
    const byUser = (await t.app.inject({ method: 'POST', url: '/api/alerts', headers: admin, payload: { title: 'Reported by a person', severity: 'high' } })).json().alert;
    expect(byUser.routing).toMatchObject({ outcome: 'default' });
    await agreeing(byUser, { severity: 'high', createdBy: 'user' });
    const det = (await t.app.inject({ method: 'POST', url: '/api/code-detections', headers: admin, payload: { name: 'Root login', ruleId: 'aws_root_login', severity: 'critical', logTable: { source: 'aws', stream: 'cloudtrail' }, query: 'userIdentity.type:Root' } })).json();
    const hit = (await t.app.inject({ method: 'POST', url: `/api/code-detections/${det.id}/hits`, headers: admin, payload: { payload: { user: 'root' } } })).json().alert;
    await agreeing(hit, { severity: 'critical', codeDetectionId: det.id, logTable: { source: 'aws', stream: 'cloudtrail' } });

    // An agent's alert (the create_alert tool): the routes.
    const detector = await agent('Log detector', [{ toolCalls: [{ name: 'create_alert', args: { title: 'Odd API burst', severity: 'medium' } }] }, { text: 'Raised.' }], ['create_alert']);
    const detectorRun = (await t.app.inject({ method: 'POST', url: `/api/agents/${detector}/run-async`, headers: admin, payload: { input: 'Look at the logs' } })).json().runId;
    expect(await waitForRun(t, t.orgA.apiKey.key, detector, detectorRun)).toEqual({ status: 'done' });
    const byAgent = await alertOfRun(detectorRun);
    expect(byAgent).toMatchObject({ createdBy: 'agent', assignedAgentId: fallback });
    await agreeing(byAgent, { severity: 'medium', createdBy: 'agent' });

    // Hunt alerts: the hunt response agent (none set: unassigned).
    expect((await simulate({ severity: 'critical', createdBy: 'hunt' })).json()).toMatchObject({ outcome: 'unassigned', responseAgentId: null, reason: 'No hunt response agent is set; the hunt alert is left unassigned' });

    // A trigger type without triggerId: what routes would do, said to apply to routeAlerts triggers only.
    expect((await simulate({ severity: 'high', source: 'webhook' })).json()).toMatchObject({ outcome: 'trigger', responseAgentId: null, reason: expect.stringContaining('Route 1 "Cloud high" matched') });

    // Bad input: an unknown or foreign trigger, a triggerId with another origin.
    const foreign = (await t.app.inject({ url: `/api/agents/${(await t.app.inject({ method: 'POST', url: '/api/agents', headers: bearer(t.orgB.apiKey.key), payload: { name: 'B', systemPrompt: 'B' } })).json().id}/trigger/webhook/fields`, headers: bearer(t.orgB.apiKey.key) })).json().data.triggerId;
    const unknown = await simulate({ severity: 'high', triggerId: foreign });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().issues).toEqual([expect.objectContaining({ path: 'triggerId', code: 'unknown_reference', message: 'No such trigger in this organization' })]);
    const mixed = await simulate({ severity: 'high', triggerId: plain.id, createdBy: 'user' });
    expect(mixed.statusCode).toBe(400);
    expect(mixed.json().issues).toEqual([expect.objectContaining({ path: 'createdBy', message: 'must be "trigger" when triggerId is given' })]);
    expect((await putRoutes({ routes: [], defaultResponseAgentId: null })).statusCode).toBe(200);
  });
});

describe('dedupe keys stay the same when a mapping is added', () => {
  it('a mapping without a usable dedupeKey keeps the per-sender key; a mapped key replaces it', async () => {
    const own = await agent('Mapping owner');
    const tr = await webhookTrigger(own, { name: 'GuardDuty mapped' });
    const first = await alertOfRun((await deliver(tr, finding('f-mapped'))).executionId!);
    expect(first.dedupeKey).toBe('guardduty:f-mapped');

    for (const alertMapping of [{ title: '/detail/type' }, { title: '/detail/type', dedupeKey: '' }, { title: '/detail/type', dedupeKey: '/detail/nothing' }]) {
      const put = await t.app.inject({ method: 'PUT', url: `/api/agents/${own}/trigger/${tr.id}`, headers: admin, payload: { alertMapping } });
      expect(put.statusCode, put.body).toBe(200);
      const again = await deliver(tr, finding('f-mapped'));
      expect(again).toEqual({ skipped: true, message: `Duplicate of ${first.displayId} (dedupe key guardduty:f-mapped): counted on that alert, no new run`, executionId: first.triageRunId });
    }
    // duplicateCount counts the signals, the first included.
    expect((await getAlert(first.id)).duplicateCount).toBe(4);

    // A pointer that finds a value replaces the key, prefixed with the trigger source.
    await t.app.inject({ method: 'PUT', url: `/api/agents/${own}/trigger/${tr.id}`, headers: admin, payload: { alertMapping: { dedupeKey: '/detail/arn' } } });
    const mapped = await alertOfRun((await deliver(tr, finding('f-mapped'))).executionId!);
    expect(mapped.dedupeKey).toBe(`webhook:${GUARDDUTY.detail.arn}`);
  });
});

describe('duplicate deliveries and cron', () => {
  it('a repeated delivery answers the run that really exists, or none', async () => {
    const own = await agent('Delivery owner');
    const tr = await webhookTrigger(own, { name: 'GuardDuty deliveries' });
    const first = await deliver(tr, finding('f-deliv'), { 'x-github-delivery': 'd-1' });
    // A second delivery of the same finding is counted on its open alert: the answer names that alert's run.
    const counted = await deliver(tr, finding('f-deliv'), { 'x-github-delivery': 'd-2' });
    expect(counted).toMatchObject({ skipped: true, executionId: first.executionId });
    // The sender retries that second delivery: the run it points to exists.
    const retried = await deliver(tr, finding('f-deliv'), { 'x-github-delivery': 'd-2' });
    expect(retried).toEqual({ skipped: true, message: 'Duplicate delivery: already received', executionId: first.executionId });
    expect((await getRun(retried.executionId!)).statusCode).toBe(200);

    // Routed and left unassigned (no route, no default): no run, and its retry names none.
    const routed = await webhookTrigger(own, { name: 'GuardDuty unassigned', routeAlerts: true });
    const unassigned = await deliver(routed, finding('f-unassigned', 2), { 'x-github-delivery': 'u-1' });
    expect(unassigned).toMatchObject({ skipped: true, message: expect.stringMatching(/^RMP-\d+ created and routed: No enabled route and no default response agent is set/) });
    expect(unassigned.executionId).toBeUndefined();
    expect(await deliver(routed, finding('f-unassigned', 2), { 'x-github-delivery': 'u-1' })).toEqual({ skipped: true, message: 'Duplicate delivery: already received (it started no run)' });
  });

  it('a cron trigger with createAlert creates one alert per firing, triaged by its run', async () => {
    const own = await agent('Cron owner');
    const saved = await t.app.inject({ method: 'POST', url: `/api/agents/${own}/trigger/save`, headers: admin, payload: { source: 'cron', name: 'Nightly exposure sweep', cronSchedule: '0 3 * * *', createAlert: true, input: { title: 'Nightly exposure sweep', severity: 'low' } } });
    expect(saved.statusCode, saved.body).toBe(200);
    const trig = saved.json();
    expect(trig).toMatchObject({ createAlert: true, routeAlerts: false });
    // Each firing ticks a minute after its time: the run is for that time (a later tick would
    // fire once, for the latest time missed).
    const fire = async (at: string) => {
      await t.database.db.updateTable('agentTriggers').set({ nextRunAt: new Date(at) }).where('id', '=', trig.id).execute();
      expect(await scheduleDueCronTriggers(t.database.db, new Date(Date.parse(at) + 60_000), { events: noEvents })).toBe(1);
    };
    await fire('2026-11-24T03:00:00Z');
    await fire('2026-11-25T03:00:00Z');
    const runs = (await t.app.inject({ url: `/api/agent-runs?triggerId=${trig.id}`, headers: admin })).json().runs as Array<{ id: string; alertId: string; alertDisplayId: string; mode: string }>;
    expect(runs).toHaveLength(2);
    const alerts = await Promise.all(runs.map((r) => getAlert(r.alertId)));
    expect(alerts.map((a) => a.dedupeKey).sort()).toEqual([`cron:${trig.id}:2026-11-24T03:00`, `cron:${trig.id}:2026-11-25T03:00`]);
    for (const [i, a] of alerts.entries()) {
      expect(a).toMatchObject({ title: 'Nightly exposure sweep', severity: 'low', createdBy: 'trigger', source: { category: 'trigger', name: 'Nightly exposure sweep', triggerType: 'cron' }, triageRunId: runs[i]!.id, assignedAgentId: own, routing: { outcome: 'trigger' } });
      expect(runs[i]).toMatchObject({ mode: 'cron', alertDisplayId: a.displayId });
    }
  });

  it('duplicateOfAlertId names the closed alert a new one recurs', async () => {
    const post = async () => (await t.app.inject({ method: 'POST', url: '/api/alerts', headers: admin, payload: { title: 'Beacon to 198.51.100.20', dedupeKey: 'beacon:198.51.100.20' } })).json();
    const first = await post();
    expect(first).toMatchObject({ created: true, alert: { duplicateOfAlertId: null } });
    expect(await post()).toMatchObject({ created: false, alert: { id: first.alert.id, duplicateCount: 2, duplicateOfAlertId: null } });
    const closed = await t.app.inject({ method: 'POST', url: `/api/alerts/${first.alert.id}/status`, headers: admin, payload: { status: 'closed_benign', reason: 'Known CDN' } });
    expect(closed.statusCode, closed.body).toBe(200);
    const recurred = await post();
    expect(recurred).toMatchObject({ created: true, alert: { duplicateOfAlertId: first.alert.id } });
    expect((await getAlert(recurred.alert.id)).duplicateOfAlertId).toBe(first.alert.id);
  });
});
