import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { attemptDelivery, createDestination, deliveryDeps, deliveryLog, makeDue, queue } from '../support/delivery.js';
import { newEvent, recordOutboundEvent } from '../../src/modules/delivery/index.js';
import { startFakeSlack, type FakeSlack } from '../support/fakes/slack-server.js';
import { startFakePagerDuty, type FakePagerDuty } from '../support/fakes/pagerduty-server.js';
import { startFakeLinear, type FakeLinear } from '../support/fakes/linear-server.js';
import { startFakeTines, type FakeTines } from '../support/fakes/tines-server.js';
import { startFakeTeams, type FakeTeams } from '../support/fakes/teams-server.js';

/**
 * Each product adapter against a fake speaking that product's documented protocol: the exact
 * request, success, permanent and transient failures, Retry-After, and the product-specific
 * behaviour (archived Slack channels, PagerDuty trigger/resolve pairing by dedup_key).
 */
let t: TestContext;
let key: string;
let org: string;
let slack: FakeSlack;
let pd: FakePagerDuty;
let linear: FakeLinear;
let tines: FakeTines;
let teams: FakeTeams;

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true', RAMPART_RATE_LIMIT_PER_MINUTE: '0' } });
  key = t.orgA.apiKey.key;
  org = t.orgA.organization.id;
  [slack, pd, linear, tines, teams] = await Promise.all([
    startFakeSlack({ token: 'xoxb-1-test' }),
    startFakePagerDuty({ routingKey: 'R0UTINGKEY' }),
    startFakeLinear({ apiKey: 'lin_api_TESTKEY', teams: { 'team-1': 'SEC' } }),
    startFakeTines({ apiKey: 'tines-key', teamIds: [42] }),
    startFakeTeams(),
  ]);
});
afterAll(async () => {
  await Promise.all([slack, pd, linear, tines, teams].map((f) => f?.close()));
  await t?.close();
});

const deps = () => deliveryDeps(t);
const longText = 'x'.repeat(50_000);

describe('slack', () => {
  it('posts Block Kit with a text fallback to every channel with the bot token, within Slack\'s limits', async () => {
    const id = await createDestination(t, key, { type: 'slack', name: 'SOC', config: { channelIds: ['C1', 'C2'], apiBaseUrl: slack.apiBaseUrl }, token: 'xoxb-1-test' });
    const { ids } = await queue(t, org, [id], 'agent.message', { title: 'Beacon found', message: `**Bold** see [run](https://x.test/r) ${longText}` });
    expect(await attemptDelivery(deps(), ids[0]!)).toBe('succeeded');
    const reqs = slack.requests.slice(-2);
    for (const r of reqs) {
      expect(r.method).toBe('POST');
      expect(r.url).toBe('/api/chat.postMessage');
      expect(r.headers.authorization).toBe('Bearer xoxb-1-test');
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    }
    expect(slack.posted.slice(-2).map((p) => p.channel)).toEqual(['C1', 'C2']);
    const msg = slack.posted.at(-1)!;
    expect(msg.text.length).toBeLessThanOrEqual(4000);
    expect(msg.text.endsWith('… [truncated]')).toBe(true);
    expect(msg.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Beacon found', emoji: true } });
    // A link in the agent's text shows its address but is not live (only Rampart's own links are).
    expect((msg.blocks[1] as { text: { text: string; verbatim: boolean } }).text).toMatchObject({ verbatim: true, text: expect.stringMatching(/^\*Bold\* see run \(https:\/\/x\.test\/r\) x+… \[truncated\]$/) });
  });

  it('blocks archived and missing channels (and skips them afterwards); a PUT by a user clears them', async () => {
    slack.archived.add('C-ARCH');
    slack.missing.add('C-GONE');
    const id = await createDestination(t, key, { type: 'slack', name: 'Mixed', config: { channelIds: ['C-ARCH', 'C-OK', 'C-GONE'], apiBaseUrl: slack.apiBaseUrl }, token: 'xoxb-1-test' });
    const { ids } = await queue(t, org, [id]);
    expect(await attemptDelivery(deps(), ids[0]!)).toBe('succeeded');
    const dest = (await t.app.inject({ url: `/api/output-destinations/${id}`, headers: bearer(key) })).json();
    expect(Object.keys(dest.config.blockedChannels).sort()).toEqual(['C-ARCH', 'C-GONE']);
    expect(dest.config.blockedChannels['C-ARCH']).toEqual({ reason: 'archived', blockedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
    expect(dest.updatedAt).toBe(dest.createdAt);

    const before = slack.requests.length;
    const second = await queue(t, org, [id]);
    expect(await attemptDelivery(deps(), second.ids[0]!)).toBe('succeeded');
    expect(slack.requests.slice(before).map((r) => JSON.parse(r.body).channel)).toEqual(['C-OK']);

    const onlyArchived = await createDestination(t, key, { type: 'slack', name: 'Archived', config: { channelIds: ['C-ARCH'], apiBaseUrl: slack.apiBaseUrl }, token: 'xoxb-1-test' });
    const third = await queue(t, org, [onlyArchived]);
    expect(await attemptDelivery(deps(), third.ids[0]!)).toBe('skipped');
    expect((await deliveryLog(t, key, onlyArchived)).deliveries[0]).toMatchObject({ status: 'skipped', error: 'Every channel of the destination is blocked; blocked (archived or not found): C-ARCH' });

    const put = await t.app.inject({ method: 'PUT', url: `/api/output-destinations/${id}`, headers: bearer(key), payload: { type: 'slack', name: 'Mixed', config: { channelIds: ['C-OK'], apiBaseUrl: slack.apiBaseUrl } } });
    expect(put.statusCode).toBe(200);
    expect(put.json().config.blockedChannels).toBeUndefined();
  });

  it('honours Retry-After on ratelimited and does not post twice to a channel already done', async () => {
    const id = await createDestination(t, key, { type: 'slack', name: 'Limited', config: { channelIds: ['C-A', 'C-B'], apiBaseUrl: slack.apiBaseUrl }, token: 'xoxb-1-test' });
    const { ids } = await queue(t, org, [id]);
    const n = slack.posted.length;
    slack.rateLimitChannelOnce('C-B', 7);
    // The retry is due Retry-After (7 s) after the answer, which came between `started` and
    // `ended`: bracketing it by both, not by `started` plus a margin, holds however long the attempt
    // takes on a loaded machine (the default backoff, 27 s at least, falls outside either way).
    const started = Date.now();
    expect(await attemptDelivery(deps(), ids[0]!)).toBe('retrying');
    const ended = Date.now();
    const d = (await deliveryLog(t, key, id)).deliveries[0]!;
    expect(d).toMatchObject({ status: 'retrying', responseStatus: 429, error: 'Slack refused the message to C-B: ratelimited' });
    expect(Date.parse(d.nextAttemptAt) - started).toBeGreaterThanOrEqual(7_000);
    expect(Date.parse(d.nextAttemptAt) - ended).toBeLessThanOrEqual(7_000);
    await makeDue(t, ids[0]!);
    expect(await attemptDelivery(deps(), ids[0]!)).toBe('succeeded');
    // C-A once (first attempt), C-B once (second): the retry did not post to C-A again.
    expect(slack.posted.slice(n).map((x) => x.channel)).toEqual(['C-A', 'C-B']);
  });

  it('fails permanently on invalid_auth, never logging the token', async () => {
    const id = await createDestination(t, key, { type: 'slack', name: 'BadTok', config: { channelIds: ['C1'], apiBaseUrl: slack.apiBaseUrl }, token: 'xoxb-wrong' });
    const { ids } = await queue(t, org, [id]);
    expect(await attemptDelivery(deps(), ids[0]!)).toBe('failed');
    const d = (await deliveryLog(t, key, id)).deliveries[0]!;
    expect(d).toMatchObject({ status: 'failed', responseStatus: 200, error: 'Slack refused the message to C1: invalid_auth' });
    expect(JSON.stringify(d)).not.toContain('xoxb-wrong');
  });
});

describe('pagerduty', () => {
  it('triggers on alert.created and resolves the same dedup_key when the alert closes (event subscriptions)', async () => {
    const id = await createDestination(t, key, { type: 'pagerduty', name: 'On-call', config: { severity: 'warning', apiBaseUrl: pd.apiBaseUrl }, token: 'R0UTINGKEY', eventSubscriptions: ['alert.created', 'alert.status_changed'] });
    const unsubscribed = await createDestination(t, key, { type: 'pagerduty', name: 'Quiet', config: { severity: 'info', apiBaseUrl: pd.apiBaseUrl }, token: 'R0UTINGKEY' });
    expect((await t.app.inject({ url: `/api/output-destinations/${id}`, headers: bearer(key) })).json().eventSubscriptions).toEqual(['alert.created', 'alert.status_changed']);
    // A PUT without the field keeps the subscriptions; a bad event type is a 400.
    const put = await t.app.inject({ method: 'PUT', url: `/api/output-destinations/${id}`, headers: bearer(key), payload: { type: 'pagerduty', name: 'On-call', config: { severity: 'warning', apiBaseUrl: pd.apiBaseUrl } } });
    expect(put.json().eventSubscriptions).toEqual(['alert.created', 'alert.status_changed']);
    const bad = await t.app.inject({ method: 'PUT', url: `/api/output-destinations/${id}`, headers: bearer(key), payload: { type: 'pagerduty', name: 'On-call', config: { severity: 'warning' }, eventSubscriptions: ['Alert Created'] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'Validation failed', issues: [expect.objectContaining({ path: 'eventSubscriptions.0', message: 'must be an event type such as alert.created' })] });
    const alertId = '0190a8e0-1111-7000-8000-00000000a1e7';
    const alert = { id: alertId, displayId: 'ALR-7', title: 'Impossible travel for jdoe', severity: 'high', status: 'open', source: 'okta', detectionName: 'Impossible travel' };
    await t.database.db.transaction().execute((tx) => recordOutboundEvent(tx, newEvent(org, 'alert.created', { alert })));
    const created = await deliveryLog(t, key, id);
    expect(created.totalCount).toBe(1);
    expect((await deliveryLog(t, key, unsubscribed)).totalCount).toBe(0);
    expect(await attemptDelivery(deps(), created.deliveries[0]!.id)).toBe('succeeded');
    const trigger = pd.events.at(-1)!;
    expect(pd.requests.at(-1)!.url).toBe('/v2/enqueue');
    expect(pd.requests.at(-1)!.headers['content-type']).toBe('application/json');
    expect(trigger).toMatchObject({
      routing_key: 'R0UTINGKEY',
      event_action: 'trigger',
      dedup_key: alertId,
      payload: { summary: 'New alert ALR-7: Impossible travel for jdoe', source: 'Impossible travel', severity: 'error', component: 'okta', class: 'alert.created' },
      client: 'Rampart',
      client_url: `https://rampart.example.com/alerts/${alertId}`,
    });
    expect(pd.alerts.get(alertId)).toBe('triggered');

    await t.database.db.transaction().execute((tx) => recordOutboundEvent(tx, newEvent(org, 'alert.status_changed', { alert: { ...alert, status: 'closed' }, previousStatus: 'open' })));
    const log = await deliveryLog(t, key, id, '?status=pending');
    expect(await attemptDelivery(deps(), log.deliveries[0]!.id)).toBe('succeeded');
    expect(pd.events.at(-1)).toEqual({ routing_key: 'R0UTINGKEY', event_action: 'resolve', dedup_key: alertId });
    expect(pd.alerts.get(alertId)).toBe('resolved');
  });

  it('end to end through the alerts API: created → trigger, closed → resolve, one dedup_key', async () => {
    const id = await createDestination(t, key, { type: 'pagerduty', name: 'Alerts PD', config: { severity: 'info', apiBaseUrl: pd.apiBaseUrl }, token: 'R0UTINGKEY', eventSubscriptions: ['alert.created', 'alert.status_changed'] });
    const created = await t.app.inject({ method: 'POST', url: '/api/alerts', headers: bearer(key), payload: { title: 'Ransomware note on FS-01', severity: 'critical' } });
    expect(created.statusCode, created.body).toBe(200);
    const alertId = created.json().alert.id as string;
    const first = (await deliveryLog(t, key, id)).deliveries[0]!;
    expect(first).toMatchObject({ eventKind: 'alert.created', status: 'pending' });
    expect(await attemptDelivery(deps(), first.id)).toBe('succeeded');
    expect(pd.events.at(-1)).toMatchObject({ event_action: 'trigger', dedup_key: alertId, payload: { severity: 'critical', summary: 'New alert RMP-1: Ransomware note on FS-01' } });
    const closed = await t.app.inject({ method: 'POST', url: `/api/alerts/${alertId}/status`, headers: bearer(key), payload: { status: 'closed_true_positive', reason: 'contained' } });
    expect(closed.statusCode, closed.body).toBe(200);
    const second = (await deliveryLog(t, key, id, '?status=pending')).deliveries[0]!;
    expect(second.eventKind).toBe('alert.status_changed');
    expect(await attemptDelivery(deps(), second.id)).toBe('succeeded');
    expect(pd.events.at(-1)).toEqual({ routing_key: 'R0UTINGKEY', event_action: 'resolve', dedup_key: alertId });
    expect(pd.alerts.get(alertId)).toBe('resolved');
  });

  it('uses config.severity and source, cuts the summary to 1,024, retries 429 and fails on 400', async () => {
    const id = await createDestination(t, key, { type: 'pagerduty', name: 'PD2', config: { severity: 'critical', source: 'rampart-prod', apiBaseUrl: pd.apiBaseUrl }, token: 'R0UTINGKEY' });
    const { ids, event } = await queue(t, org, [id], 'agent.message', { title: longText, message: 'body' });
    pd.throttleNext(1);
    expect(await attemptDelivery(deps(), ids[0]!)).toBe('retrying');
    await makeDue(t, ids[0]!);
    expect(await attemptDelivery(deps(), ids[0]!)).toBe('succeeded');
    const e = pd.events.at(-1)!;
    expect(e.payload.summary).toHaveLength(1024);
    expect(e.payload).toMatchObject({ severity: 'critical', source: 'rampart-prod' });
    expect(e.dedup_key).toBe(event.id);

    const bad = await createDestination(t, key, { type: 'pagerduty', name: 'PD-bad', config: { severity: 'info', apiBaseUrl: pd.apiBaseUrl }, token: 'WRONG' });
    const q = await queue(t, org, [bad]);
    expect(await attemptDelivery(deps(), q.ids[0]!)).toBe('failed');
    expect((await deliveryLog(t, key, bad)).deliveries[0]).toMatchObject({ status: 'failed', responseStatus: 400, error: 'PagerDuty answered HTTP 400' });
  });
});

describe('linear', () => {
  it('creates an issue with issueCreate, the API key as Authorization, teamId/labelIds/stateId from config', async () => {
    const id = await createDestination(t, key, { type: 'linear', name: 'Lin', config: { teamId: 'team-1', labelIds: ['lab-1'], workflowStateId: 'state-1', apiBaseUrl: linear.apiBaseUrl }, token: 'lin_api_TESTKEY' });
    const { ids } = await queue(t, org, [id], 'agent_run.completed', { runId: '0190a8e0-2222-7000-8000-000000000001', agentName: 'Triage', finalAssistantMessage: 'Verdict: **malicious**', severity: 'high' });
    expect(await attemptDelivery(deps(), ids[0]!)).toBe('succeeded');
    const req = linear.requests.at(-1)!;
    expect(req.url).toBe('/graphql');
    expect(req.headers.authorization).toBe('lin_api_TESTKEY');
    expect(linear.issues.at(-1)).toMatchObject({ teamId: 'team-1', labelIds: ['lab-1'], stateId: 'state-1', title: 'Triage finished a run', priority: 2, identifier: 'SEC-1' });
    expect(linear.issues.at(-1)!.description).toContain('Verdict: **malicious**');
    expect((await deliveryLog(t, key, id)).deliveries[0]!.attempts[0].outcome).toBe('succeeded');
  });

  it('retries RATELIMITED and fails on an unknown team', async () => {
    const id = await createDestination(t, key, { type: 'linear', name: 'Lin2', config: { teamId: 'team-1', apiBaseUrl: linear.apiBaseUrl }, token: 'lin_api_TESTKEY' });
    const { ids } = await queue(t, org, [id]);
    linear.rateLimitNext(1);
    expect(await attemptDelivery(deps(), ids[0]!)).toBe('retrying');
    await makeDue(t, ids[0]!);
    expect(await attemptDelivery(deps(), ids[0]!)).toBe('succeeded');
    const bad = await createDestination(t, key, { type: 'linear', name: 'Lin3', config: { teamId: 'nope', apiBaseUrl: linear.apiBaseUrl }, token: 'lin_api_TESTKEY' });
    const q = await queue(t, org, [bad]);
    expect(await attemptDelivery(deps(), q.ids[0]!)).toBe('failed');
    expect((await deliveryLog(t, key, bad)).deliveries[0]!.error).toBe('Linear refused the issue: Argument Validation Error');
  });
});

describe('tines', () => {
  it('creates a case in teamId on the tenant with a bearer API key; 429 honours Retry-After; 401 is permanent', async () => {
    const id = await createDestination(t, key, { type: 'tines', name: 'Tines', config: { teamId: '42', tenantUrl: tines.url }, token: 'tines-key' });
    const { ids } = await queue(t, org, [id], 'agent.message', { title: 'Case me', message: 'details', severity: 'critical' });
    tines.throttleNext(1, 3);
    const started = Date.now();
    expect(await attemptDelivery(deps(), ids[0]!)).toBe('retrying');
    expect(Date.parse((await deliveryLog(t, key, id)).deliveries[0]!.nextAttemptAt) - started).toBeGreaterThanOrEqual(2_500);
    await makeDue(t, ids[0]!);
    expect(await attemptDelivery(deps(), ids[0]!)).toBe('succeeded');
    const req = tines.requests.at(-1)!;
    expect(req.url).toBe('/api/v2/cases');
    expect(req.headers.authorization).toBe('Bearer tines-key');
    expect(tines.cases.at(-1)).toMatchObject({ team_id: 42, name: 'Case me', priority: 'critical', status: 'open' });
    expect((await deliveryLog(t, key, id)).deliveries[0]!.responseStatus).toBe(201);

    const bad = await createDestination(t, key, { type: 'tines', name: 'Tines-bad', config: { teamId: '42', tenantUrl: tines.url }, token: 'wrong' });
    const q = await queue(t, org, [bad]);
    expect(await attemptDelivery(deps(), q.ids[0]!)).toBe('failed');
    const noTenant = await createDestination(t, key, { type: 'tines', name: 'Tines-none', config: { teamId: '42' }, token: 'tines-key' });
    const test = await t.app.inject({ method: 'POST', url: `/api/output-destinations/${noTenant}/test`, headers: bearer(key) });
    expect(test.json()).toEqual({ ok: false, status: null, message: 'The Tines destination has no tenantUrl (e.g. https://your-tenant.tines.com)' });
  });
});

describe('teams', () => {
  it('POSTs an Adaptive Card attachment to the workflow URL, under 28 KB, and retries a 502', async () => {
    const id = await createDestination(t, key, { type: 'teams', name: 'Teams', config: { url: teams.url } });
    const { ids } = await queue(t, org, [id], 'agent.message', { title: 'Report', message: longText });
    teams.failNext(1, 502);
    expect(await attemptDelivery(deps(), ids[0]!)).toBe('retrying');
    await makeDue(t, ids[0]!);
    expect(await attemptDelivery(deps(), ids[0]!)).toBe('succeeded');
    const card = teams.cards.at(-1)!;
    expect(card).toMatchObject({ type: 'AdaptiveCard', version: '1.4', body: [{ type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: 'Report' }] }, { type: 'RichTextBlock' }] });
    expect(card.body[1].inlines[0].text.endsWith('… [truncated]')).toBe(true);
    expect(Buffer.byteLength(teams.requests.at(-1)!.body)).toBeLessThan(28 * 1024);
    expect((await deliveryLog(t, key, id)).deliveries[0]!.responseStatus).toBe(202);
    const test = await t.app.inject({ method: 'POST', url: `/api/output-destinations/${id}/test`, headers: bearer(key) });
    expect(test.json()).toEqual({ ok: true, status: 202, message: 'Delivered' });
  });

  it('fails permanently when the workflow refuses the signature, without logging the URL\'s sig', async () => {
    const id = await createDestination(t, key, { type: 'teams', name: 'Teams-bad', config: { url: teams.url.replace('sig=s3cr3t', 'sig=wrong') } });
    const { ids } = await queue(t, org, [id]);
    expect(await attemptDelivery(deps(), ids[0]!)).toBe('failed');
    const d = (await deliveryLog(t, key, id)).deliveries[0]!;
    expect(d).toMatchObject({ status: 'failed', responseStatus: 401, error: 'Teams answered HTTP 401' });
    expect(JSON.stringify(d)).not.toContain('sig=wrong');
  });
});
