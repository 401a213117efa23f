import { createHmac, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';
import { runTriggerSchedulerPass, scheduleDueCronTriggers } from '../../src/modules/triggers/cron.js';
import { createOrganization } from '../../src/modules/organizations/organizations.service.js';

let t: TestContext;
let admin: Record<string, string>;
let agentId: string;

const BODY_LIMIT = 4096;

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_BODY_LIMIT_BYTES: String(BODY_LIMIT) } });
  admin = bearer(t.orgA.apiKey.key);
  const res = await t.app.inject({ method: 'POST', url: '/api/agents', headers: admin, payload: { name: 'Intake', systemPrompt: 'Handle the webhook.' } });
  agentId = res.json().id;
});
afterAll(() => t.close());

interface Active {
  id: string;
  secret: string;
  path: string;
}

async function activeTrigger(source: string, save: Record<string, unknown> = {}, org = t.orgA, agent = agentId): Promise<Active> {
  const fields = await t.app.inject({ url: `/api/agents/${agent}/trigger/${source}/fields`, headers: bearer(org.apiKey.key) });
  const { secret, webhookUrl } = fields.json().data;
  const id = webhookUrl.split('/').pop();
  const saved = await t.app.inject({ method: 'POST', url: `/api/agents/${agent}/trigger/save`, headers: bearer(org.apiKey.key), payload: { triggerId: id, source, ...save } });
  expect(saved.statusCode).toBe(200);
  return { id, secret, path: `/api/trigger/${source}/${id}` };
}

function post(path: string, body: string | Buffer, headers: Record<string, string> = {}, contentType = 'application/json') {
  return t.app.inject({ method: 'POST', url: path, headers: { 'content-type': contentType, ...headers }, payload: body });
}

async function runsOf(triggerId: string) {
  // The input as stored (read as text: Kysely's CamelCasePlugin would rename keys inside jsonb).
  const rows = await t.database.db
    .selectFrom('agentRuns')
    .selectAll()
    .select(sql<string>`input::text`.as('inputText'))
    .where('triggerId', '=', triggerId)
    .orderBy('queuedAt')
    .execute();
  return rows.map(({ inputText, ...r }) => ({ ...r, input: JSON.parse(inputText) as unknown }));
}

async function jobFor(runId: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = 'agents:run' AND key = ${`agent-run:${runId}`}`.execute(t.database.db);
  return rows[0]!.n;
}

const hmacHex = (key: string | Buffer, ...parts: Array<string | Buffer>) => {
  const h = createHmac('sha256', key);
  for (const p of parts) h.update(p);
  return h.digest('hex');
};
const nowS = () => Math.floor(Date.now() / 1000);

describe('bearer trigger secret', () => {
  it('queues exactly one waiting run with its job and answers {executionId}', async () => {
    const trig = await activeTrigger('jira-automation');
    const body = JSON.stringify({ issue: { key: 'SEC-1' } });
    const res = await post(trig.path, body, { authorization: `Bearer ${trig.secret}` });
    expect(res.statusCode).toBe(200);
    const { executionId } = res.json();
    expect(res.json()).toEqual({ executionId: expect.any(String) });
    const runs = await runsOf(trig.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ id: executionId, status: 'waiting', mode: 'trigger', agentId, triggerSource: 'jira-automation', input: { issue: { key: 'SEC-1' } }, organizationId: t.orgA.organization.id });
    expect(await jobFor(executionId)).toBe(1);
    const row = await t.database.db.selectFrom('agentTriggers').select('lastRunAttemptedAt').where('id', '=', trig.id).executeTakeFirstOrThrow();
    expect(row.lastRunAttemptedAt).not.toBeNull();
  });

  it('accepts the secret in X-Rampart-Secret (Zscaler, Darktrace)', async () => {
    for (const source of ['zscaler', 'darktrace']) {
      const trig = await activeTrigger(source);
      const res = await post(trig.path, '{"alert":1}', { 'x-rampart-secret': trig.secret });
      expect(res.statusCode, source).toBe(200);
      expect(res.json().executionId).toBeDefined();
    }
  });

  it('refuses a wrong or missing secret with 401 and WWW-Authenticate, and starts nothing', async () => {
    const trig = await activeTrigger('darktrace');
    const wrong = await post(trig.path, '{}', { authorization: `Bearer ${trig.secret}x` });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(wrong.json()).toEqual({ error: 'Invalid credentials' });
    const other = await activeTrigger('darktrace');
    expect((await post(trig.path, '{}', { authorization: `Bearer ${other.secret}` })).statusCode).toBe(401);
    const none = await post(trig.path, '{}');
    expect(none.statusCode).toBe(401);
    expect(none.json().error).toMatch(/^Missing credentials/);
    expect(await runsOf(trig.id)).toEqual([]);
  });
});

describe('API key authentication', () => {
  it('accepts a key of the trigger\'s organization with agent.execute', async () => {
    const trig = await activeTrigger('webhook');
    const executor = await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.execute']);
    const res = await post(trig.path, '{"a":1}', bearer(executor.key));
    expect(res.statusCode).toBe(200);
    const [run] = await runsOf(trig.id);
    expect(run).toMatchObject({ actorUserId: executor.userId, actorApiKeyId: executor.keyId });
  });

  it('answers 403 naming agent.execute for a key without it', async () => {
    const trig = await activeTrigger('webhook');
    const reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.read']);
    const res = await post(trig.path, '{}', bearer(reader.key));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['agent.execute'] });
  });

  it('answers 404 to a key of another organization, and 401 to an unknown key', async () => {
    const trig = await activeTrigger('webhook');
    const res = await post(trig.path, '{}', bearer(t.orgB.apiKey.key));
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Trigger not found' });
    const fake = await post(trig.path, '{}', bearer(`rmp_abcdefgh_${randomBytes(32).toString('base64url')}`));
    expect(fake.statusCode).toBe(401);
    expect(await runsOf(trig.id)).toEqual([]);
  });
});

describe('which triggers answer', () => {
  it('404 for unknown ids, non-UUID ids, drafts and a source that is not the trigger\'s', async () => {
    const trig = await activeTrigger('webhook');
    const fields = (await t.app.inject({ url: `/api/agents/${agentId}/trigger/webhook/fields`, headers: admin })).json().data;
    const draftPath = new URL(fields.webhookUrl).pathname;
    for (const [path, secret] of [
      ['/api/trigger/webhook/0190f2a0-0000-7000-8000-000000000000', trig.secret],
      ['/api/trigger/webhook/not-a-uuid', trig.secret],
      [draftPath, fields.secret],
      [`/api/trigger/jira/${trig.id}`, trig.secret],
    ]) {
      const res = await post(path, '{}', { authorization: `Bearer ${secret}` });
      expect(res.statusCode, path).toBe(404);
      expect(res.json()).toEqual({ error: 'Trigger not found' });
    }
  });

  it('400 for an unknown source', async () => {
    const res = await post('/api/trigger/github/0190f2a0-0000-7000-8000-000000000000', '{}');
    expect(res.statusCode).toBe(400);
    expect(res.json().issues[0]).toMatchObject({ path: 'source', location: 'params' });
  });

  it('a disabled trigger answers skipped and starts nothing', async () => {
    const trig = await activeTrigger('webhook', { enabled: false });
    const res = await post(trig.path, '{}', { authorization: `Bearer ${trig.secret}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ skipped: true, message: 'Trigger is disabled' });
    expect(await runsOf(trig.id)).toEqual([]);
  });

  it('every change intake depends on applies to the very next delivery, though intake reads its trigger from a cache', async () => {
    const agent = (await t.app.inject({ method: 'POST', url: '/api/agents', headers: admin, payload: { name: 'Cached', systemPrompt: 'x' } })).json().id as string;
    const trig = await activeTrigger('webhook', {}, t.orgA, agent);
    const deliver = (secret = trig.secret) => post(trig.path, '{}', { authorization: `Bearer ${secret}` });
    expect((await deliver()).json()).toHaveProperty('executionId'); // cached now
    const status = (enabled: boolean) => t.app.inject({ method: 'PATCH', url: `/api/agents/${agent}/trigger/${trig.id}/status`, headers: admin, payload: { enabled } });
    expect((await status(false)).statusCode).toBe(200);
    expect((await deliver()).json()).toEqual({ skipped: true, message: 'Trigger is disabled' });
    expect((await status(true)).statusCode).toBe(200);
    expect((await deliver()).json()).toHaveProperty('executionId');
    const rotated = await t.app.inject({ method: 'POST', url: `/api/agents/${agent}/trigger/${trig.id}/rotate-secret`, headers: admin });
    expect((await deliver()).statusCode).toBe(401);
    expect((await deliver(rotated.json().secret)).json()).toHaveProperty('executionId');
    // The agent changed by another user: the runs act as that user from the next delivery on.
    const editor = await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.read', 'agent.manage', 'agent.execute']);
    const put = await t.app.inject({ method: 'PUT', url: `/api/agents/${agent}`, headers: bearer(editor.key), payload: { name: 'Cached', systemPrompt: 'y' } });
    expect(put.statusCode, put.body).toBe(200);
    const { executionId } = (await deliver(rotated.json().secret)).json();
    expect((await runsOf(trig.id)).find((r) => r.id === executionId)).toMatchObject({ actorUserId: editor.userId });
    // The agent deleted (its triggers with it): 404 at once.
    expect((await t.app.inject({ method: 'DELETE', url: `/api/agents/${agent}`, headers: admin })).statusCode).toBe(200);
    expect((await deliver(rotated.json().secret)).statusCode).toBe(404);
  });

  it('a deleted trigger answers 404', async () => {
    const trig = await activeTrigger('webhook');
    await t.app.inject({ method: 'DELETE', url: `/api/agents/${agentId}/trigger/${trig.id}`, headers: admin });
    expect((await post(trig.path, '{}', { authorization: `Bearer ${trig.secret}` })).statusCode).toBe(404);
  });
});

describe('bodies', () => {
  it('413 over the body limit, 400 for malformed JSON, 415 for other content types', async () => {
    const trig = await activeTrigger('webhook');
    const auth = { authorization: `Bearer ${trig.secret}` };
    const big = await post(trig.path, JSON.stringify({ x: 'a'.repeat(BODY_LIMIT) }), auth);
    expect(big.statusCode).toBe(413);
    expect(big.json()).toEqual({ error: expect.stringContaining('larger than') });
    const bad = await post(trig.path, '{"a":', auth);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'Validation failed', issues: [{ code: 'invalid_json' }] });
    const xml = await post(trig.path, '<a/>', auth, 'application/xml');
    expect(xml.statusCode).toBe(415);
    expect(xml.json()).toEqual({ error: expect.stringContaining('application/xml') });
    expect(await runsOf(trig.id)).toEqual([]);
  });

  it('accepts any JSON value and form bodies', async () => {
    const trig = await activeTrigger('webhook');
    const auth = { authorization: `Bearer ${trig.secret}` };
    expect((await post(trig.path, '[1,2]', auth)).statusCode).toBe(200);
    expect((await post(trig.path, '"text"', auth, 'application/json; charset=utf-8')).statusCode).toBe(200);
    expect((await post(trig.path, 'a=1&b=two+words', auth, 'application/x-www-form-urlencoded')).statusCode).toBe(200);
    const inputs = (await runsOf(trig.id)).map((r) => r.input);
    expect(inputs).toEqual(expect.arrayContaining([[1, 2], 'text', { a: '1', b: 'two words' }]));
  });
});

describe('Slack', () => {
  const signingSecret = 'slack-app-signing-secret';
  const slackHeaders = (raw: string, ts = nowS(), key = signingSecret) => ({
    'x-slack-request-timestamp': String(ts),
    'x-slack-signature': `v0=${hmacHex(key, `v0:${ts}:`, raw)}`,
  });

  it('answers the url_verification challenge after checking the signature', async () => {
    const trig = await activeTrigger('slack', { signingSecret });
    const raw = JSON.stringify({ type: 'url_verification', challenge: 'ch-123', token: 'x' });
    const res = await post(trig.path, raw, slackHeaders(raw));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ challenge: 'ch-123' });
    const unsigned = await post(trig.path, raw, slackHeaders(raw, nowS(), 'wrong'));
    expect(unsigned.statusCode).toBe(401);
    expect(unsigned.json()).toEqual({ error: 'Signature mismatch' });
    expect(await runsOf(trig.id)).toEqual([]);
  });

  it('runs events, skips bot messages, dedupes retries by event_id, refuses stale timestamps', async () => {
    const trig = await activeTrigger('slack', { signingSecret });
    const event = JSON.stringify({ type: 'event_callback', event_id: 'Ev01', event: { type: 'message', text: 'help' } });
    const first = await post(trig.path, event, slackHeaders(event));
    expect(first.statusCode).toBe(200);
    const retry = await post(trig.path, event, { ...slackHeaders(event), 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' });
    expect(retry.json()).toEqual({ skipped: true, message: expect.stringMatching(/^Duplicate/), executionId: first.json().executionId });

    const bot = JSON.stringify({ type: 'event_callback', event_id: 'Ev02', event: { type: 'message', bot_id: 'B1', text: 'echo' } });
    const skipped = await post(trig.path, bot, slackHeaders(bot));
    expect(skipped.json()).toEqual({ skipped: true, message: expect.stringContaining('bot') });

    const stale = await post(trig.path, event, slackHeaders(event, nowS() - 600));
    expect(stale.statusCode).toBe(401);
    expect(stale.json().error).toMatch(/^Stale timestamp/);
    expect(await runsOf(trig.id)).toHaveLength(1);
  });

  it('decodes interactivity payload forms and checks the signature over the raw form', async () => {
    const trig = await activeTrigger('slack', { signingSecret });
    const raw = `payload=${encodeURIComponent(JSON.stringify({ type: 'block_actions', actions: [{ action_id: 'ack' }] }))}`;
    const res = await post(trig.path, raw, slackHeaders(raw), 'application/x-www-form-urlencoded');
    expect(res.statusCode).toBe(200);
    const [run] = await runsOf(trig.id);
    expect(run!.input).toEqual({ type: 'block_actions', actions: [{ action_id: 'ack' }] });
  });

  it('signs with the trigger secret when no signing secret is saved', async () => {
    const trig = await activeTrigger('slack');
    const raw = JSON.stringify({ type: 'event_callback', event_id: 'Ev9', event: { type: 'app_mention' } });
    expect((await post(trig.path, raw, slackHeaders(raw, nowS(), trig.secret))).statusCode).toBe(200);
  });
});

describe('Linear', () => {
  it('verifies Linear-Signature and webhookTimestamp, dedupes Linear-Delivery', async () => {
    const trig = await activeTrigger('linear', { signingSecret: 'lin_wh_secret' });
    const raw = JSON.stringify({ action: 'create', type: 'Issue', webhookTimestamp: Date.now() });
    const headers = { 'linear-signature': hmacHex('lin_wh_secret', raw), 'linear-delivery': 'del-1' };
    const first = await post(trig.path, raw, headers);
    expect(first.statusCode).toBe(200);
    const again = await post(trig.path, raw, headers);
    expect(again.json()).toMatchObject({ skipped: true, executionId: first.json().executionId });
    expect(await runsOf(trig.id)).toHaveLength(1);

    const wrong = await post(trig.path, raw, { 'linear-signature': hmacHex('other', raw) });
    expect(wrong.statusCode).toBe(401);
    const staleRaw = JSON.stringify({ action: 'create', webhookTimestamp: Date.now() - 10 * 60_000 });
    const stale = await post(trig.path, staleRaw, { 'linear-signature': hmacHex('lin_wh_secret', staleRaw) });
    expect(stale.statusCode).toBe(401);
    expect(stale.json().error).toMatch(/^Stale timestamp/);
  });
});

describe('HackerOne, Jira, Bugcrowd, generic webhook', () => {
  it('HackerOne X-H1-Signature with X-H1-Delivery dedupe', async () => {
    const trig = await activeTrigger('hackerone');
    const raw = JSON.stringify({ data: { report: { id: '1' } } });
    const headers = { 'x-h1-signature': `sha256=${hmacHex(trig.secret, raw)}`, 'x-h1-delivery': 'h1-1' };
    const first = await post(trig.path, raw, headers);
    expect(first.statusCode).toBe(200);
    expect((await post(trig.path, raw, headers)).json()).toMatchObject({ skipped: true, executionId: first.json().executionId });
    expect((await post(trig.path, raw, { 'x-h1-signature': `sha256=${hmacHex('x', raw)}` })).statusCode).toBe(401);
    expect(await runsOf(trig.id)).toHaveLength(1);
  });

  it('Jira X-Hub-Signature with X-Atlassian-Webhook-Identifier dedupe', async () => {
    const trig = await activeTrigger('jira');
    const raw = JSON.stringify({ webhookEvent: 'jira:issue_created' });
    const headers = { 'x-hub-signature': `sha256=${hmacHex(trig.secret, raw)}`, 'x-atlassian-webhook-identifier': '777' };
    const first = await post(trig.path, raw, headers);
    expect(first.statusCode).toBe(200);
    expect((await post(trig.path, raw, headers)).json()).toMatchObject({ skipped: true, executionId: first.json().executionId });
    expect((await post(trig.path, `${raw} `, headers)).statusCode).toBe(401);
  });

  it('Bugcrowd X-Bugcrowd-Digest with the saved Bugcrowd secret', async () => {
    const trig = await activeTrigger('bugcrowd', { signingSecret: 'bugcrowd-generated' });
    const raw = JSON.stringify({ event: 'submission.created' });
    expect((await post(trig.path, raw, { 'x-bugcrowd-digest': `sha256=${hmacHex('bugcrowd-generated', raw)}` })).statusCode).toBe(200);
    expect((await post(trig.path, raw, { 'x-bugcrowd-digest': `sha256=${hmacHex(trig.secret, raw)}` })).statusCode).toBe(401);
  });

  it('generic webhook: GitHub style and Standard Webhooks with webhook-id dedupe', async () => {
    const trig = await activeTrigger('webhook');
    const raw = JSON.stringify({ alert: 'x' });
    const gh = await post(trig.path, raw, { 'x-hub-signature-256': `sha256=${hmacHex(trig.secret, raw)}`, 'x-github-delivery': 'gh-1' });
    expect(gh.statusCode).toBe(200);

    const key = Buffer.from(trig.secret.slice('whsec_'.length), 'base64');
    const ts = String(nowS());
    const sig = createHmac('sha256', key).update(`msg_1.${ts}.`).update(raw).digest('base64');
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': ts, 'webhook-signature': `v1,${createHmac('sha256', 'old').update('x').digest('base64')} v1,${sig}` };
    const sw = await post(trig.path, raw, headers);
    expect(sw.statusCode).toBe(200);
    const replay = await post(trig.path, raw, headers);
    expect(replay.json()).toEqual({ skipped: true, message: expect.any(String), executionId: sw.json().executionId });
    const staleTs = String(nowS() - 3600);
    const staleSig = createHmac('sha256', key).update(`msg_2.${staleTs}.`).update(raw).digest('base64');
    const stale = await post(trig.path, raw, { 'webhook-id': 'msg_2', 'webhook-timestamp': staleTs, 'webhook-signature': `v1,${staleSig}` });
    expect(stale.statusCode).toBe(401);
    expect(stale.json().error).toMatch(/^Stale timestamp/);
    expect(await runsOf(trig.id)).toHaveLength(2);
  });

  it('generic Idempotency-Key dedupe, also under concurrent duplicates', async () => {
    const trig = await activeTrigger('webhook');
    const headers = { authorization: `Bearer ${trig.secret}`, 'idempotency-key': 'same-1' };
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(trig.path, '{"n":1}', headers)));
    const ids = new Set(answers.map((a) => a.json().executionId));
    expect(ids.size).toBe(1);
    expect(answers.filter((a) => !a.json().skipped)).toHaveLength(1);
    expect(await runsOf(trig.id)).toHaveLength(1);
  });

  it('concurrent signals with one dedupe key: one alert, one run with its job, the others answer that run', async () => {
    // The alert, its timeline and the trigger's run are one statement: a signal that loses the
    // race for the alert (ON CONFLICT on the open dedupe key) must write no run and no job.
    const trig = await activeTrigger('webhook', { alertMapping: { title: '/rule', dedupeKey: '/host' } });
    const headers = { authorization: `Bearer ${trig.secret}` };
    for (const host of ['race-a', 'race-b']) {
      const answers = await Promise.all(Array.from({ length: 6 }, () => post(trig.path, JSON.stringify({ rule: 'Beacon', host }), headers)));
      expect(answers.map((a) => a.statusCode)).toEqual(Array(6).fill(200));
      const started = answers.filter((a) => !a.json().skipped);
      expect(started).toHaveLength(1);
      const runId = started[0]!.json().executionId as string;
      for (const a of answers.filter((x) => x.json().skipped)) expect(a.json()).toEqual({ skipped: true, message: expect.stringMatching(/^Duplicate of RMP-\d+/), executionId: runId });
      expect(await jobFor(runId)).toBe(1);
    }
    const runs = await runsOf(trig.id);
    expect(runs).toHaveLength(2);
    const { rows } = await sql<{ n: number; signals: number }>`
      SELECT count(*)::int AS n, sum(duplicate_count)::int AS signals FROM alerts WHERE origin_trigger_id = ${trig.id}`.execute(t.database.db);
    expect(rows[0]).toEqual({ n: 2, signals: 12 });
    for (const r of runs) expect(r).toMatchObject({ alertId: expect.any(String), alertDisplayId: expect.stringMatching(/^RMP-\d+$/), status: 'waiting' });
  });
});

describe('one-statement intake and alert events', () => {
  it("a plain webhook's alert reaches a destination subscribed to alert.created, and none before it subscribed", async () => {
    // Without a delivery id, dedupe key or routing, a delivery is one statement run without a
    // transaction, chosen only when no subscriber of alert.created would act for the organization.
    const org = await createOrganization(t.database.db, { name: 'Plain webhook org', adminEmail: 'admin@plain.test' });
    const key = bearer(org.apiKey.key);
    const agent = (await t.app.inject({ method: 'POST', url: '/api/agents', headers: key, payload: { name: 'Plain', systemPrompt: 'Handle it.' } })).json().id as string;
    const trig = await activeTrigger('webhook', {}, org, agent);
    const deliver = async (n: number) => {
      const res = await post(trig.path, JSON.stringify({ n }), { authorization: `Bearer ${trig.secret}` });
      expect(res.statusCode, res.body).toBe(200);
      const runId = res.json().executionId as string;
      expect(await jobFor(runId)).toBe(1);
      const alert = await t.database.db.selectFrom('alerts').select(['id', 'triageRunId', 'status']).where('originRunId', '=', runId).executeTakeFirstOrThrow();
      expect(alert).toMatchObject({ triageRunId: runId, status: 'in_progress' });
      return alert.id;
    };
    const deliveries = async (id: string) => (await t.app.inject({ url: `/api/output-destinations/${id}/deliveries`, headers: key })).json().totalCount as number;

    await deliver(1);
    const created = await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers: key, payload: { type: 'slack', name: 'alerts', config: { channelIds: ['C1'] }, eventSubscriptions: ['alert.created'] } });
    expect(created.statusCode, created.body).toBe(200);
    const destination = created.json().id as string;
    expect(await deliveries(destination)).toBe(0);
    await deliver(2);
    expect(await deliveries(destination)).toBe(1);
    expect(await runsOf(trig.id)).toHaveLength(2);
  });
});

describe('cron triggers', () => {
  async function cronTrigger(payload: Record<string, unknown>) {
    const res = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/trigger/save`, headers: admin, payload: { source: 'cron', ...payload } });
    expect(res.statusCode).toBe(200);
    return res.json() as { id: string; nextRunAt: string };
  }
  const setNext = (id: string, at: Date) => t.database.db.updateTable('agentTriggers').set({ nextRunAt: at }).where('id', '=', id).execute();
  const row = (id: string) => t.database.db.selectFrom('agentTriggers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('queues one run for a due trigger, advances next_run_at past now (no pile-up); not due does nothing', async () => {
    const trig = await cronTrigger({ cronSchedule: '*/5 * * * *', input: { check_name: 'vpn' } });
    expect(await scheduleDueCronTriggers(t.database.db, new Date())).toBe(0);
    expect(await runsOf(trig.id)).toEqual([]);

    // Missed many times (a day of downtime): one run, then the next future time.
    await setNext(trig.id, new Date(Date.now() - 24 * 3600_000));
    const now = new Date();
    expect(await scheduleDueCronTriggers(t.database.db, now)).toBe(1);
    const runs = await runsOf(trig.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ mode: 'cron', status: 'waiting', input: { check_name: 'vpn' }, triggerSource: 'cron' });
    expect(await jobFor(runs[0]!.id)).toBe(1);
    const after = await row(trig.id);
    expect(after.nextRunAt!.getTime()).toBeGreaterThan(now.getTime());
    expect(after.nextRunAt!.getUTCMinutes() % 5).toBe(0);
    expect(after.lastRunAttemptedAt!.getTime()).toBe(now.getTime());
    expect(await scheduleDueCronTriggers(t.database.db, now)).toBe(0);
  });

  it('uses {trigger: "cron", scheduledAt} without a configured input', async () => {
    const trig = await cronTrigger({ cronSchedule: '0 * * * *' });
    // An hour of the schedule, ticked a minute later (a fixed time: not the latest missed hour).
    const due = new Date(Math.floor(Date.now() / 3600_000) * 3600_000 - 3600_000);
    await setNext(trig.id, due);
    await scheduleDueCronTriggers(t.database.db, new Date(due.getTime() + 60_000));
    const [run] = await runsOf(trig.id);
    expect(run!.input).toEqual({ trigger: 'cron', scheduledAt: due.toISOString() });
  });

  it('skips disabled triggers', async () => {
    const trig = await cronTrigger({ cronSchedule: '0 * * * *', enabled: false });
    await setNext(trig.id, new Date(Date.now() - 60_000));
    await scheduleDueCronTriggers(t.database.db, new Date());
    expect(await runsOf(trig.id)).toEqual([]);
  });

  it('two concurrent passes queue a due trigger once', async () => {
    const trig = await cronTrigger({ cronSchedule: '0 * * * *' });
    await setNext(trig.id, new Date(Date.now() - 60_000));
    const now = new Date();
    const counts = await Promise.all([scheduleDueCronTriggers(t.database.db, now), scheduleDueCronTriggers(t.database.db, now)]);
    expect(await runsOf(trig.id)).toHaveLength(1);
    expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
  });

  it('the pass deletes drafts older than 24 h and keeps younger ones', async () => {
    const old = (await t.app.inject({ url: `/api/agents/${agentId}/trigger/linear/fields`, headers: admin })).json().data;
    const young = (await t.app.inject({ url: `/api/agents/${agentId}/trigger/linear/fields`, headers: admin })).json().data;
    const oldId = old.webhookUrl.split('/').pop();
    const youngId = young.webhookUrl.split('/').pop();
    await t.database.db.updateTable('agentTriggers').set({ createdAt: new Date(Date.now() - 25 * 3600_000) }).where('id', '=', oldId).execute();
    await runTriggerSchedulerPass(t.database.db, new Date());
    const ids = (await t.database.db.selectFrom('agentTriggers').select('id').where('id', 'in', [oldId, youngId]).execute()).map((r) => r.id);
    expect(ids).toEqual([youngId]);
  });
});
