import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startServiceWorker } from '../support/worker.js';
import { userWithPermissions } from '../support/actors.js';
import { until } from '../support/until.js';
import { configureModel, createAgent, waitForRun } from '../support/agents.js';
import { createDestination } from '../support/delivery.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fakes/openai-server.js';
import { startFakeMcp, type FakeMcp } from '../support/fakes/mcp-server.js';
import { startFakeSlack, type FakeSlack } from '../support/fakes/slack-server.js';
import { startFakeTeams } from '../support/fakes/teams-server.js';
import { startFakePagerDuty } from '../support/fakes/pagerduty-server.js';
import { startWebhookReceiver } from '../support/fakes/webhook-receiver.js';

/**
 * Issue 43's journey, through the service's own job catalog: a signed webhook opens an alert,
 * its triage run's model asks a real MCP server (the SDK's own) to isolate a host, the call
 * waits for a person, the request reaches Slack as a Block Kit message with Approve and Deny,
 * and Slack's interaction request (`payload=` form-encoded `block_actions`, signed with the
 * app's signing secret) decides it: forged and stale requests are refused, unknown Slack users
 * and users without `approval.decide` get an ephemeral refusal, and a mapped approver's click
 * runs the tool once with exactly the approved arguments and replaces the message with one
 * naming them. docs/approvals.md#slack
 */
const SIGNING_SECRET = 'slack-signing-secret-8f1c2a9d';
const BOT_TOKEN = 'xoxb-43-journey';
const BASE_URL = 'https://rampart.example.com';
let t: TestContext;
let admin: Record<string, string>;
let openai: FakeOpenAI;
let mcp: FakeMcp;
let slack: FakeSlack;
let worker: WorkerRunner;
let slackDestinationId: string;
let analystEmail: string;

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true', RAMPART_SLACK_SIGNING_SECRET: SIGNING_SECRET, RAMPART_BASE_URL: BASE_URL } });
  admin = bearer(t.orgA.apiKey.key);
  openai = await startFakeOpenAI();
  mcp = await startFakeMcp({
    tools: [
      {
        name: 'lookup_host',
        description: 'Look up a host in the EDR',
        inputSchema: { hostname: z.string() },
        annotations: { readOnlyHint: true },
        handler: ({ hostname }) => ({ content: [{ type: 'text', text: `${String(hostname)}: owner=platform-team, sensor=online` }] }),
      },
      {
        name: 'isolate_host',
        description: 'Isolate a host from the network',
        inputSchema: { hostname: z.string(), reason: z.string().optional() },
        annotations: { destructiveHint: true },
        handler: ({ hostname }) => ({ content: [{ type: 'text', text: `${String(hostname)} isolated` }] }),
      },
    ],
  });
  const analyst = await userWithPermissions(t.database.db, t.orgA.organization.id, ['approval.read', 'agent.read']);
  analystEmail = (await t.database.db.selectFrom('users').select('email').where('id', '=', analyst.userId).executeTakeFirstOrThrow()).email;
  slack = await startFakeSlack({
    token: BOT_TOKEN,
    users: [
      { id: 'U0ADMIN', email: 'ADMIN@a.test', realName: 'Ada Admin' },
      { id: 'U0ANALYST', email: analystEmail, realName: 'Ana Lyst' },
      { id: 'U0UNCONFIRMED', email: 'admin@a.test', emailConfirmed: false },
      { id: 'U0STRANGER', email: 'stranger@elsewhere.example' },
    ],
  });
  await configureModel(t, t.orgA.apiKey.key, { name: 'fake', type: 'openai-compatible', baseUrl: openai.url, alias: 'default', modelId: 'local-model' });
  const server = await t.app.inject({ method: 'POST', url: '/api/mcp-servers', headers: admin, payload: { name: 'edr', url: mcp.url } });
  expect(server.statusCode, server.body).toBe(200);
  slackDestinationId = await createDestination(t, t.orgA.apiKey.key, { type: 'slack', name: 'SOC approvals', config: { channelIds: ['C0APPROVE'], apiBaseUrl: slack.apiBaseUrl }, token: BOT_TOKEN });
  worker = await startServiceWorker(t, { deps: { baseUrl: BASE_URL } });
});
afterAll(async () => {
  await worker?.stop();
  await openai?.close();
  await mcp?.close();
  await slack?.close();
  await t?.close();
});

const isolateCalls = () => mcp.calls.filter((c) => c.name === 'isolate_host');
/** How this file's waits poll (15 s bounds a hang). */
const polling = { timeoutMs: 15_000, everyMs: 50 };

/** An agent behind a signed webhook trigger; the delivered alert starts its triage run. */
async function alertAskingIsolation(final: string) {
  const agentId = await createAgent(t, t.orgA.apiKey.key, { name: 'EDR responder', toolNames: ['mcp:edr/*'], outputDestinationIds: [slackDestinationId] });
  const { secret, webhookUrl } = (await t.app.inject({ url: `/api/agents/${agentId}/trigger/webhook/fields`, headers: admin })).json().data;
  const triggerId = webhookUrl.split('/').pop() as string;
  const saved = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/trigger/save`, headers: admin, payload: { triggerId, source: 'webhook', name: 'EDR detections' } });
  expect(saved.statusCode, saved.body).toBe(200);
  openai.setScript([
    { text: 'web-01 beacons to a known C2 every 60 s; isolating it.', toolCalls: [{ name: 'mcp__edr__lookup_host', args: { hostname: 'web-01' } }, { name: 'mcp__edr__isolate_host', args: { hostname: 'web-01', reason: 'C2 beacon to 203.0.113.50' } }] },
    { text: final },
  ]);
  const raw = JSON.stringify({ title: 'C2 beacon from web-01', severity: 'high', host: 'web-01', remote_ip: '203.0.113.50', id: `det-${Date.now()}-${Math.random()}` });
  const delivered = await t.app.inject({
    method: 'POST',
    url: `/api/trigger/webhook/${triggerId}`,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}` },
    payload: raw,
  });
  expect(delivered.statusCode, delivered.body).toBe(200);
  const runId = delivered.json().executionId as string;
  expect((await waitForRun(t, t.orgA.apiKey.key, agentId, runId, ['awaiting_approval', 'done', 'error'])).status).toBe('awaiting_approval');
  const [approval] = (await t.app.inject({ url: `/api/approvals?status=pending&runId=${runId}`, headers: admin })).json().approvals;
  expect(approval).toMatchObject({ toolName: 'mcp:edr/isolate_host', args: { hostname: 'web-01', reason: 'C2 beacon to 203.0.113.50' }, status: 'pending', runId, alertId: expect.any(String) });
  // The request reaches Slack as a Block Kit message with Approve and Deny buttons.
  const message = await until('the Slack approval message', () => slack.posted.find((p) => JSON.stringify(p.blocks).includes(approval.id)), polling);
  return { agentId, runId, approval, message };
}

interface Button {
  type: 'button';
  action_id: string;
  value: string;
  text: { type: 'plain_text'; text: string };
  style?: string;
}

/** What Slack posts to the Request URL when `user` clicks `label` in `message`: `payload=<JSON>` of a `block_actions`. */
function blockActions(message: FakeSlack['posted'][number], label: 'Approve' | 'Deny', user: string) {
  const actions = (message.blocks as Array<{ type: string; block_id?: string; elements?: Button[] }>).find((b) => b.type === 'actions')!;
  const button = actions.elements!.find((e) => e.text.text === label)!;
  const responseUrl = slack.responseUrl();
  const payload = {
    type: 'block_actions',
    user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: 'T0ACME' },
    api_app_id: 'A0RAMPART',
    token: 'verification-token-deprecated',
    container: { type: 'message', message_ts: message.ts, channel_id: message.channel, is_ephemeral: false },
    trigger_id: '1234567890123.1234567890123.abcdef0123456789abcdef0123456789',
    team: { id: 'T0ACME', domain: 'acme-soc' },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: message.channel, name: 'soc-approvals' },
    message: { type: 'message', user: 'U0BOT', ts: message.ts, bot_id: 'B1', text: message.text, blocks: message.blocks },
    state: { values: {} },
    response_url: responseUrl,
    actions: [{ action_id: button.action_id, block_id: actions.block_id, text: { ...button.text, emoji: true }, value: button.value, style: button.style, type: 'button', action_ts: `${Math.floor(Date.now() / 1000)}.000200` }],
  };
  return { body: new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), responseUrl };
}

function signed(body: string, { secret = SIGNING_SECRET, timestamp = Math.floor(Date.now() / 1000) } = {}) {
  return {
    'content-type': 'application/x-www-form-urlencoded',
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`,
  };
}

const interact = (body: string, headers: Record<string, string>) => t.app.inject({ method: 'POST', url: '/slack/interactions', headers, payload: body });
const responsesTo = (url: string) => slack.responses.filter((r) => r.url === url).map((r) => r.body);
const getApproval = async (id: string) => (await t.app.inject({ url: `/api/approvals/${id}`, headers: admin })).json();

describe('issue 43 journey: an alert, its run asks approval, Slack decides', () => {
  it('approve: forged, stale, unknown and unauthorized clicks are refused; a mapped approver runs the tool once and the message names them', async () => {
    const before = isolateCalls().length;
    const { agentId, runId, approval, message } = await alertAskingIsolation('web-01 is isolated; the C2 beacon is contained.');

    // The message as Slack got it: the request, Approve (primary) and Deny (danger), the console link.
    expect(message.channel).toBe('C0APPROVE');
    expect(message.text).toContain('Approval needed: EDR responder wants to call mcp:edr/isolate_host');
    const actions = (message.blocks as Array<{ type: string; elements?: unknown[] }>).find((b) => b.type === 'actions');
    expect(actions?.elements).toEqual([
      { type: 'button', action_id: 'rampart_approval_approve', text: { type: 'plain_text', text: 'Approve' }, style: 'primary', value: approval.id },
      { type: 'button', action_id: 'rampart_approval_deny', text: { type: 'plain_text', text: 'Deny' }, style: 'danger', value: approval.id },
    ]);
    expect(JSON.stringify(message.blocks)).toContain(`<${BASE_URL}/approvals/${approval.id}|Review the request>`);
    expect(JSON.stringify(message.blocks)).toContain('C2 beacon to 203.0.113.50');
    // The read-only lookup ran; nothing of the destructive call reached the MCP server.
    expect(mcp.calls.some((c) => c.name === 'lookup_host')).toBe(true);
    expect(isolateCalls().length).toBe(before);

    // Forged: signed with another secret.
    const forged = blockActions(message, 'Approve', 'U0ADMIN');
    const wrongSignature = await interact(forged.body, signed(forged.body, { secret: 'not-the-signing-secret-at-all' }));
    expect(wrongSignature.statusCode).toBe(401);
    expect(wrongSignature.json()).toEqual({ error: 'Invalid X-Slack-Signature' });
    // A body changed after signing.
    const tampered = await interact(forged.body.replace('U0ADMIN', 'U0ADMIM'), signed(forged.body));
    expect(tampered.statusCode).toBe(401);
    // Correctly signed, but 6 minutes old (a replay).
    const stale = await interact(forged.body, signed(forged.body, { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 }));
    expect(stale.statusCode).toBe(401);
    expect(stale.json()).toEqual({ error: 'Stale request: X-Slack-Request-Timestamp is more than 5 minutes away' });
    const unsigned = await interact(forged.body, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(unsigned.statusCode).toBe(401);
    expect(unsigned.json()).toEqual({ error: 'Missing X-Slack-Signature or X-Slack-Request-Timestamp' });
    expect(responsesTo(forged.responseUrl)).toEqual([]);

    // Signed, but from people Rampart cannot map or who may not decide: an ephemeral refusal each, no decision.
    for (const [user, refusal] of [
      ['U0STRANGER', /Rampart does not know you/],
      ['U0NOBODY', /Rampart does not know you/],
      ['U0UNCONFIRMED', /Rampart does not know you/],
      ['U0ANALYST', /lacks approval\.decide/],
    ] as const) {
      const click = blockActions(message, 'Approve', user);
      const answer = await interact(click.body, signed(click.body));
      expect(answer.statusCode, answer.body).toBe(200);
      expect(responsesTo(click.responseUrl)).toEqual([{ response_type: 'ephemeral', replace_original: false, text: expect.stringMatching(refusal) }]);
    }
    expect(await getApproval(approval.id)).toMatchObject({ status: 'pending', decidedBy: null });
    expect(isolateCalls().length).toBe(before);

    // The approver: the Slack user whose confirmed email is the Super Admin's (matched case-insensitively).
    const click = blockActions(message, 'Approve', 'U0ADMIN');
    const answer = await interact(click.body, signed(click.body));
    expect(answer.statusCode, answer.body).toBe(200);
    expect(await waitForRun(t, t.orgA.apiKey.key, agentId, runId)).toEqual({ status: 'done' });
    expect(isolateCalls().slice(before)).toEqual([expect.objectContaining({ name: 'isolate_host', arguments: { hostname: 'web-01', reason: 'C2 beacon to 203.0.113.50' } })]);
    expect(await getApproval(approval.id)).toMatchObject({ status: 'executed', decidedVia: 'slack', decidedBy: { name: 'admin' }, outcome: { result: 'web-01 isolated' } });
    // The message is replaced (Slack's response_url, replace_original) by one naming the approver, without buttons.
    const [update] = responsesTo(click.responseUrl);
    expect(update).toMatchObject({ replace_original: true, text: expect.stringMatching(/^Approved by admin: mcp:edr\/isolate_host/) });
    // It keeps the request (header, arguments, console link), loses the buttons, and ends with the decision.
    const blocks = update!.blocks as Array<{ type: string; text?: { text: string } }>;
    expect(blocks[0]).toEqual((message.blocks as unknown[])[0]);
    expect(JSON.stringify(blocks)).toContain(`${BASE_URL}/approvals/${approval.id}`);
    expect(blocks.some((b) => b.type === 'actions')).toBe(false);
    expect(blocks.at(-1)).toEqual({ type: 'section', text: { type: 'plain_text', text: update!.text } });
    const result = (await t.app.inject({ url: `/api/agents/${agentId}/run-async/${runId}/result`, headers: admin })).json();
    expect(result.finalAssistantMessage).toBe('web-01 is isolated; the C2 beacon is contained.');

    // A second click (another channel member, or the same one again) is refused: decided already; still one call.
    const late = blockActions(message, 'Deny', 'U0ADMIN');
    expect((await interact(late.body, signed(late.body))).statusCode).toBe(200);
    expect(responsesTo(late.responseUrl)).toEqual([{ response_type: 'ephemeral', replace_original: false, text: expect.stringMatching(/already decided \(executed\)/) }]);
    expect(isolateCalls().length).toBe(before + 1);

    // Audited with its source; the alert's timeline shows the request and the decision.
    const audit = await t.database.db.selectFrom('auditLogs').select(['action', 'metadata']).where('resourceId', '=', approval.id).execute();
    expect(audit).toEqual([{ action: 'approval.approve', metadata: expect.objectContaining({ source: 'slack', toolName: 'mcp:edr/isolate_host' }) }]);
    const timeline = (await t.app.inject({ url: `/api/alerts/${approval.alertId}/timeline`, headers: admin })).json();
    expect(JSON.stringify(timeline)).toContain('approval_requested');
    expect(JSON.stringify(timeline)).toContain('approval_decided');
  });

  it('deny: zero calls, the run goes on with the model\'s answer to the denial, the message names who denied', async () => {
    const before = isolateCalls().length;
    const { agentId, runId, approval, message } = await alertAskingIsolation('Understood: web-01 stays online; escalating to the platform team.');
    const click = blockActions(message, 'Deny', 'U0ADMIN');
    const answer = await interact(click.body, signed(click.body));
    expect(answer.statusCode, answer.body).toBe(200);
    expect(await waitForRun(t, t.orgA.apiKey.key, agentId, runId)).toEqual({ status: 'done' });
    expect(isolateCalls().length).toBe(before);
    expect(await getApproval(approval.id)).toMatchObject({ status: 'denied', decidedVia: 'slack' });
    expect(responsesTo(click.responseUrl)).toEqual([expect.objectContaining({ replace_original: true, text: expect.stringMatching(/^Denied by admin: mcp:edr\/isolate_host/) })]);
    expect(JSON.stringify(openai.requests.at(-1)!.body.messages)).toMatch(/denied by admin/);
    const result = (await t.app.inject({ url: `/api/agents/${agentId}/run-async/${runId}/result`, headers: admin })).json();
    expect(result.finalAssistantMessage).toBe('Understood: web-01 stays online; escalating to the platform team.');
  });

  it('a payload that is not JSON is a 400; a signed interaction that is not one of our buttons is acknowledged and ignored', async () => {
    const notJson = 'payload=%7Bnot-json';
    const bad = await interact(notJson, signed(notJson));
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'The payload field is not JSON' });
    const other = new URLSearchParams({ payload: JSON.stringify({ type: 'block_actions', user: { id: 'U0ADMIN' }, actions: [{ action_id: 'someone_elses_button', value: 'x' }] }) }).toString();
    const ignored = await interact(other, signed(other));
    expect(ignored.statusCode).toBe(200);
    expect(ignored.json()).toEqual({});
  });
});

describe('Teams, webhook and PagerDuty: the request carries its console link', () => {
  it('each product\'s message names the tool and links to <RAMPART_BASE_URL>/approvals/<id>', async () => {
    const teams = await startFakeTeams();
    const pd = await startFakePagerDuty({ routingKey: 'R0UTINGKEY43' });
    const secret = `whsec_${Buffer.from('approvals-receiver').toString('base64')}`;
    const receiver = await startWebhookReceiver({ secret });
    try {
      const destinations = [
        await createDestination(t, t.orgA.apiKey.key, { type: 'teams', name: 'SOC Teams', config: { url: teams.url } }),
        await createDestination(t, t.orgA.apiKey.key, { type: 'pagerduty', name: 'On-call', config: { severity: 'warning', apiBaseUrl: pd.apiBaseUrl }, token: 'R0UTINGKEY43' }),
        await createDestination(t, t.orgA.apiKey.key, { type: 'webhook', name: 'SOAR', config: { url: receiver.url, authType: 'bearer' }, token: secret }),
      ];
      const agentId = await createAgent(t, t.orgA.apiKey.key, { name: 'EDR responder (everywhere)', toolNames: ['mcp:edr/*'], outputDestinationIds: destinations });
      openai.setScript([{ text: 'Isolating web-02.', toolCalls: [{ name: 'mcp__edr__isolate_host', args: { hostname: 'web-02' } }] }, { text: 'ok' }]);
      const { runId } = (await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-async`, headers: admin, payload: { input: 'web-02' } })).json();
      expect((await waitForRun(t, t.orgA.apiKey.key, agentId, runId, ['awaiting_approval', 'done', 'error'])).status).toBe('awaiting_approval');
      const [approval] = (await t.app.inject({ url: `/api/approvals?runId=${runId}`, headers: admin })).json().approvals;
      const link = `${BASE_URL}/approvals/${approval.id}`;
      expect(approval.consoleUrl).toBe(link);

      const card = await until('the Teams card', () => teams.cards[0], polling);
      expect(JSON.stringify(card)).toContain('Approval needed: EDR responder (everywhere) wants to call mcp:edr/isolate_host');
      expect(card.actions).toEqual(expect.arrayContaining([{ type: 'Action.OpenUrl', title: 'Review the request', url: link }]));

      const event = await until('the PagerDuty event', () => pd.events[0], polling);
      expect(event).toMatchObject({
        routing_key: 'R0UTINGKEY43',
        event_action: 'trigger',
        client: 'Rampart',
        client_url: link,
        links: expect.arrayContaining([{ href: link, text: 'Review the request' }]),
        payload: { summary: 'Approval needed: EDR responder (everywhere) wants to call mcp:edr/isolate_host', severity: 'error', class: 'approval.requested', custom_details: expect.objectContaining({ tool: 'mcp:edr/isolate_host', arguments: '{"hostname":"web-02"}' }) },
      });

      const hook = await until('the signed webhook', () => receiver.verified[0], polling);
      expect(hook.body).toMatchObject({
        type: 'approval.requested',
        data: { approvalId: approval.id, runId, agentId, toolName: 'mcp:edr/isolate_host', args: { hostname: 'web-02' }, reason: 'Isolating web-02.', approvalUrl: link, expiresAt: approval.expiresAt },
      });
      // Decided elsewhere, the run goes on: the link points at a request that exists.
      expect((await t.app.inject({ method: 'POST', url: `/api/approvals/${approval.id}/deny`, headers: admin, payload: {} })).statusCode).toBe(200);
      expect((await waitForRun(t, t.orgA.apiKey.key, agentId, runId)).status).toBe('done');
    } finally {
      await Promise.all([teams.close(), pd.close(), receiver.close()]);
    }
  });
});
