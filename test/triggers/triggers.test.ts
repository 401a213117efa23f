import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';

let t: TestContext;
let admin: Record<string, string>;
let reader: TestUser;
let nobody: TestUser;
let agentId: string;
let otherOrgAgentId: string;

async function createAgent(headers: Record<string, string>, name = 'Triage'): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: '/api/agents', headers, payload: { name, systemPrompt: 'Triage the input.' } });
  expect(res.statusCode).toBe(200);
  return res.json().id;
}

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_BASE_URL: 'https://rampart.example.com/' } });
  admin = bearer(t.orgA.apiKey.key);
  reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.read']);
  nobody = await userWithPermissions(t.database.db, t.orgA.organization.id, []);
  agentId = await createAgent(admin);
  otherOrgAgentId = await createAgent(bearer(t.orgB.apiKey.key), 'B agent');
});
afterAll(() => t.close());

const fieldsUrl = (source: string, agent = agentId) => `/api/agents/${agent}/trigger/${source}/fields`;
const idOf = (webhookUrl: string) => webhookUrl.split('/').pop()!;

async function draft(source: string, query = '') {
  const res = await t.app.inject({ url: `${fieldsUrl(source)}${query}`, headers: admin });
  expect(res.statusCode).toBe(200);
  return res.json() as { success: boolean; data: { triggerId: string; secret: string; webhookUrl: string; additionalFields: Record<string, string> } };
}

async function saved(source: string, extra: Record<string, unknown> = {}) {
  const { data } = await draft(source);
  const res = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/trigger/save`, headers: admin, payload: { triggerId: idOf(data.webhookUrl), source, ...extra } });
  expect(res.statusCode).toBe(200);
  return { ...res.json(), secret: data.secret };
}

describe('GET /api/agents/{agentId}/trigger/{source}/fields', () => {
  it('answers the webhook field set with the trigger id, and stores a draft with the secret encrypted', async () => {
    const body = await draft('slack');
    expect(Object.keys(body).sort()).toEqual(['data', 'success']);
    expect(body.success).toBe(true);
    // The spec's field set, plus the id to save the trigger with (no need to cut it out of the URL).
    expect(Object.keys(body.data).sort()).toEqual(['additionalFields', 'secret', 'triggerId', 'webhookUrl']);
    expect(body.data.triggerId).toBe(idOf(body.data.webhookUrl));
    expect(body.data.additionalFields).toEqual({ type: 'slack' });
    expect(body.data.webhookUrl).toMatch(/^https:\/\/rampart\.example\.com\/api\/trigger\/slack\/[0-9a-f-]{36}$/);
    expect(Buffer.from(body.data.secret.replace(/^whsec_/, ''), 'base64')).toHaveLength(32);

    const row = await t.database.db.selectFrom('agentTriggers').selectAll().where('id', '=', idOf(body.data.webhookUrl)).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'draft', source: 'slack', agentId, organizationId: t.orgA.organization.id });
    expect(JSON.stringify(row)).not.toContain(body.data.secret.slice(6));
    expect(t.secrets.decrypt(row.secretCiphertext!)).toBe(body.data.secret);
    const audit = await t.database.db.selectFrom('auditLogs').selectAll().where('resourceId', '=', row.id).execute();
    expect(audit.map((a) => a.action)).toEqual(['trigger.draft']);
    expect(JSON.stringify(audit)).not.toContain(body.data.secret.slice(6));
  });

  it('gives each call a new id and secret', async () => {
    const a = await draft('linear');
    const b = await draft('linear');
    expect(a.data.secret).not.toBe(b.data.secret);
    expect(a.data.webhookUrl).not.toBe(b.data.webhookUrl);
  });

  it('answers jiraUrl for jira: the site webhook page, or ""', async () => {
    expect((await draft('jira')).data.additionalFields).toEqual({ type: 'jira', jiraUrl: '' });
    const withSite = await draft('jira', '?jiraUrl=https://acme.atlassian.net/');
    expect(withSite.data.additionalFields).toEqual({ type: 'jira', jiraUrl: 'https://acme.atlassian.net/plugins/servlet/webhooks' });
  });

  it('rejects an unknown source with an issue on source', async () => {
    const res = await t.app.inject({ url: fieldsUrl('github'), headers: admin });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Validation failed');
    expect(res.json().issues).toEqual([expect.objectContaining({ path: 'source', location: 'params' })]);
  });

  it('rejects a bad jiraUrl and a non-UUID agent id', async () => {
    const bad = await t.app.inject({ url: `${fieldsUrl('jira')}?jiraUrl=ftp://x`, headers: admin });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issues[0]).toMatchObject({ path: 'jiraUrl', location: 'query' });
    const notUuid = await t.app.inject({ url: '/api/agents/nope/trigger/slack/fields', headers: admin });
    expect(notUuid.statusCode).toBe(400);
    expect(notUuid.json().issues[0]).toMatchObject({ path: 'agentId' });
  });

  it('answers 404 for an unknown agent and for an agent of another organization (and stores nothing)', async () => {
    const before = await t.database.db.selectFrom('agentTriggers').select('id').execute();
    for (const id of ['0190f2a0-0000-7000-8000-000000000000', otherOrgAgentId]) {
      const res = await t.app.inject({ url: fieldsUrl('slack', id), headers: admin });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Agent not found' });
    }
    expect(await t.database.db.selectFrom('agentTriggers').select('id').execute()).toHaveLength(before.length);
  });

  it('needs agent.manage (403 naming it) and a key (401)', async () => {
    const res = await t.app.inject({ url: fieldsUrl('slack'), headers: bearer(reader.key) });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['agent.manage'] });
    const anon = await t.app.inject({ url: fieldsUrl('slack') });
    expect(anon.statusCode).toBe(401);
    expect(anon.headers['www-authenticate']).toMatch(/^Bearer/);
  });
});

describe('POST /api/agents/{agentId}/trigger/save', () => {
  it('activates a draft with a name and a write-only signing secret', async () => {
    const { data } = await draft('slack');
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agentId}/trigger/save`,
      headers: admin,
      payload: { triggerId: idOf(data.webhookUrl), source: 'slack', name: 'Slack alerts', signingSecret: 'slack-signing-canary-991', additionalFields: { channel_id: 'C1', type: 'x' } },
    });
    expect(res.statusCode).toBe(200);
    const trigger = res.json();
    expect(trigger).toMatchObject({
      id: idOf(data.webhookUrl),
      agentId,
      source: 'slack',
      name: 'Slack alerts',
      enabled: true,
      webhookUrl: data.webhookUrl,
      hasSecret: true,
      hasSigningSecret: true,
      cronSchedule: null,
      additionalFields: { type: 'slack', channel_id: 'C1' },
      lastRunAttemptedAt: null,
      lastRunSucceededAt: null,
    });
    expect(res.body).not.toContain('slack-signing-canary-991');
    expect(res.body).not.toContain(data.secret);
    const rows = await t.database.db.selectFrom('agentTriggers').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain('slack-signing-canary-991');
    const audit = await t.database.db.selectFrom('auditLogs').selectAll().where('resourceId', '=', trigger.id).execute();
    expect(audit.map((a) => a.action)).toEqual(['trigger.draft', 'trigger.save']);
    expect(JSON.stringify(audit)).not.toContain('slack-signing-canary-991');
  });

  it('refuses a source that is not the draft\'s (400) and unknown or foreign ids (404)', async () => {
    const { data } = await draft('linear');
    const mismatch = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/trigger/save`, headers: admin, payload: { triggerId: idOf(data.webhookUrl), source: 'slack' } });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().issues[0]).toMatchObject({ path: 'source' });

    const unknown = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/trigger/save`, headers: admin, payload: { triggerId: '0190f2a0-0000-7000-8000-000000000000', source: 'slack' } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'Trigger not found' });

    // Org B's draft, saved with org A's key and org A's agent: 404; with org B's key on org A's agent: 404.
    const bDraft = (await t.app.inject({ url: fieldsUrl('slack', otherOrgAgentId), headers: bearer(t.orgB.apiKey.key) })).json();
    const foreign = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/trigger/save`, headers: admin, payload: { triggerId: idOf(bDraft.data.webhookUrl), source: 'slack' } });
    expect(foreign.statusCode).toBe(404);
    const foreignAgent = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/trigger/save`, headers: bearer(t.orgB.apiKey.key), payload: { triggerId: idOf(bDraft.data.webhookUrl), source: 'slack' } });
    expect(foreignAgent.statusCode).toBe(404);
    expect(foreignAgent.json()).toEqual({ error: 'Agent not found' });
  });

  it('creates a cron trigger with its next run in UTC and its input', async () => {
    const before = Date.now();
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agentId}/trigger/save`,
      headers: admin,
      payload: { source: 'cron', cronSchedule: '0 * * * *', name: 'Hourly', input: { scope_name: 'all' } },
    });
    expect(res.statusCode).toBe(200);
    const trigger = res.json();
    expect(trigger).toMatchObject({ source: 'cron', cronSchedule: '0 * * * *', name: 'Hourly', webhookUrl: null, hasSecret: false, input: { scope_name: 'all' } });
    // Stored keys come back as given (not camel-cased by the query layer).
    const listed = (await t.app.inject({ url: `/api/agents/${agentId}/trigger`, headers: admin })).json().triggers;
    expect(listed.find((x: { id: string }) => x.id === trigger.id).input).toEqual({ scope_name: 'all' });
    const next = new Date(trigger.nextRunAt);
    expect(next.getTime()).toBeGreaterThan(before);
    expect(next.getTime() - before).toBeLessThanOrEqual(3_600_000);
    expect(next.getUTCMinutes()).toBe(0);
  });

  it('validates the body', async () => {
    const cases: Array<[unknown, string]> = [
      [{ source: 'cron', cronSchedule: 'every hour' }, 'cronSchedule'],
      [{ source: 'cron', cronSchedule: '* * * * * *' }, 'cronSchedule'],
      [{ source: 'slack' }, 'triggerId'],
      [{ source: 'slack', triggerId: 'x' }, 'triggerId'],
      [{ source: 'github', triggerId: '0190f2a0-0000-7000-8000-000000000000' }, 'source'],
      [{ source: 'slack', triggerId: '0190f2a0-0000-7000-8000-000000000000', name: 'x'.repeat(256) }, 'name'],
      [{ source: 'slack', triggerId: '0190f2a0-0000-7000-8000-000000000000', extra: 1 }, 'extra'],
      [{ source: 'slack', triggerId: '0190f2a0-0000-7000-8000-000000000000', signingSecret: '' }, 'signingSecret'],
    ];
    for (const [payload, path] of cases) {
      const res = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/trigger/save`, headers: admin, payload: payload as object });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error).toBe('Validation failed');
      expect(res.json().issues.map((i: { path: string }) => i.path), JSON.stringify(payload)).toContain(path);
    }
  });

  it('needs agent.manage', async () => {
    const res = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/trigger/save`, headers: bearer(nobody.key), payload: { source: 'cron', cronSchedule: '0 * * * *' } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['agent.manage'] });
  });
});

describe('GET /api/agents/{agentId}/trigger', () => {
  it('lists active triggers only, without secrets, for agent.read', async () => {
    const agent = await createAgent(admin, 'Listed');
    const { data } = (await t.app.inject({ url: fieldsUrl('hackerone', agent), headers: admin })).json();
    await t.app.inject({ url: fieldsUrl('linear', agent), headers: admin }); // stays a draft
    await t.app.inject({ method: 'POST', url: `/api/agents/${agent}/trigger/save`, headers: admin, payload: { triggerId: idOf(data.webhookUrl), source: 'hackerone', name: 'H1' } });
    const res = await t.app.inject({ url: `/api/agents/${agent}/trigger`, headers: bearer(reader.key) });
    expect(res.statusCode).toBe(200);
    const { triggers } = res.json();
    expect(triggers).toHaveLength(1);
    expect(Object.keys(triggers[0]).sort()).toEqual(
      ['additionalFields', 'agentId', 'alertMapping', 'createAlert', 'createdAt', 'cronSchedule', 'deliveryIdPointer', 'enabled', 'hasSecret', 'hasSigningSecret', 'id', 'input', 'inputMapping', 'lastRunAttemptedAt', 'lastRunSucceededAt', 'managedBy', 'managedSource', 'name', 'nextRunAt', 'routeAlerts', 'source', 'timezone', 'updatedAt', 'webhookUrl'].sort(),
    );
    expect(triggers[0]).toMatchObject({ source: 'hackerone', name: 'H1', hasSecret: true, hasSigningSecret: false, createAlert: true, alertMapping: null, inputMapping: null, deliveryIdPointer: null });
    expect(res.body).not.toContain(data.secret);
  });

  it('answers 404 for another organization\'s agent and 403 without agent.read', async () => {
    const res = await t.app.inject({ url: `/api/agents/${otherOrgAgentId}/trigger`, headers: admin });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Agent not found' });
    const denied = await t.app.inject({ url: `/api/agents/${agentId}/trigger`, headers: bearer(nobody.key) });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['agent.read'] });
  });
});

describe('PUT, PATCH status, DELETE', () => {
  it('updates name and signing secret (omit keeps, null clears)', async () => {
    const trigger = await saved('linear', { signingSecret: 'lin-1' });
    const url = `/api/agents/${agentId}/trigger/${trigger.id}`;
    const renamed = await t.app.inject({ method: 'PUT', url, headers: admin, payload: { name: 'Linear bugs', additionalFields: { team: 'SEC' } } });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'Linear bugs', hasSigningSecret: true, additionalFields: { type: 'linear', team: 'SEC' } });
    const cleared = await t.app.inject({ method: 'PUT', url, headers: admin, payload: { signingSecret: null } });
    expect(cleared.json()).toMatchObject({ name: 'Linear bugs', hasSigningSecret: false });
    const audit = await t.database.db.selectFrom('auditLogs').select(['action', 'metadata']).where('resourceId', '=', trigger.id).where('action', '=', 'trigger.update').execute();
    expect(audit.map((a) => (a.metadata as { signingSecret: string }).signingSecret)).toEqual(['kept', 'cleared']);
  });

  it('refuses cron fields on webhook triggers and signing secrets on cron triggers', async () => {
    const webhook = await saved('webhook');
    const res = await t.app.inject({ method: 'PUT', url: `/api/agents/${agentId}/trigger/${webhook.id}`, headers: admin, payload: { cronSchedule: '0 * * * *' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().issues[0]).toMatchObject({ path: 'cronSchedule' });
    const cron = (await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/trigger/save`, headers: admin, payload: { source: 'cron', cronSchedule: '0 0 * * *' } })).json();
    const bad = await t.app.inject({ method: 'PUT', url: `/api/agents/${agentId}/trigger/${cron.id}`, headers: admin, payload: { signingSecret: 'x' } });
    expect(bad.statusCode).toBe(400);
    const reschedule = await t.app.inject({ method: 'PUT', url: `/api/agents/${agentId}/trigger/${cron.id}`, headers: admin, payload: { cronSchedule: '30 * * * *', input: { a: 1 } } });
    expect(reschedule.json()).toMatchObject({ cronSchedule: '30 * * * *', input: { a: 1 } });
    expect(new Date(reschedule.json().nextRunAt).getUTCMinutes()).toBe(30);
  });

  it('disables and enables', async () => {
    const trigger = await saved('darktrace');
    const url = `/api/agents/${agentId}/trigger/${trigger.id}/status`;
    const off = await t.app.inject({ method: 'PATCH', url, headers: admin, payload: { enabled: false } });
    expect(off.statusCode).toBe(200);
    expect(off.json().enabled).toBe(false);
    const bad = await t.app.inject({ method: 'PATCH', url, headers: admin, payload: { enabled: 'no' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issues[0]).toMatchObject({ path: 'enabled' });
    const on = await t.app.inject({ method: 'PATCH', url, headers: admin, payload: { enabled: true } });
    expect(on.json().enabled).toBe(true);
  });

  it('deletes; then the trigger is gone (404)', async () => {
    const trigger = await saved('zscaler');
    const url = `/api/agents/${agentId}/trigger/${trigger.id}`;
    const del = await t.app.inject({ method: 'DELETE', url, headers: admin });
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ success: true });
    const again = await t.app.inject({ method: 'DELETE', url, headers: admin });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ error: 'Trigger not found' });
    const audit = await t.database.db.selectFrom('auditLogs').select('action').where('resourceId', '=', trigger.id).execute();
    expect(audit.map((a) => a.action)).toContain('trigger.delete');
  });

  it('answers 404 for drafts, unknown ids and other organizations\' triggers; 403 without agent.manage', async () => {
    const { data } = await draft('slack');
    const draftId = idOf(data.webhookUrl);
    const active = await saved('slack');
    const bAgentTrigger = (await t.app.inject({ method: 'POST', url: `/api/agents/${otherOrgAgentId}/trigger/save`, headers: bearer(t.orgB.apiKey.key), payload: { source: 'cron', cronSchedule: '0 * * * *' } })).json();
    for (const [agent, id] of [
      [agentId, draftId],
      [agentId, '0190f2a0-0000-7000-8000-000000000000'],
      [otherOrgAgentId, bAgentTrigger.id],
      [agentId, bAgentTrigger.id],
    ]) {
      for (const [method, suffix, payload] of [
        ['PUT', '', { name: 'x' }],
        ['PATCH', '/status', { enabled: false }],
        ['DELETE', '', undefined],
      ] as const) {
        const res = await t.app.inject({ method, url: `/api/agents/${agent}/trigger/${id}${suffix}`, headers: admin, ...(payload ? { payload } : {}) });
        expect(res.statusCode, `${method} ${agent} ${id}`).toBe(404);
        expect(res.json()).toEqual({ error: 'Trigger not found' });
      }
    }
    const denied = await t.app.inject({ method: 'DELETE', url: `/api/agents/${agentId}/trigger/${active.id}`, headers: bearer(reader.key) });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['agent.manage'] });
  });
});

describe('POST /api/agents/{agentId}/trigger/{triggerId}/rotate-secret', () => {
  const rotate = (id: string, headers = admin, agent = agentId) => t.app.inject({ method: 'POST', url: `/api/agents/${agent}/trigger/${id}/rotate-secret`, headers });
  const deliver = (webhookUrl: string, secret: string) =>
    t.app.inject({ method: 'POST', url: new URL(webhookUrl).pathname, headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, payload: { event: 'rotation test' } });

  it('gives a new secret at once: the old one is refused, the new one accepted, the URL unchanged', async () => {
    const trig = await saved('webhook', { signingSecret: 'sender-generated' });
    expect((await deliver(trig.webhookUrl, trig.secret)).statusCode).toBe(200);

    const res = await rotate(trig.id);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['secret', 'webhookUrl']);
    expect(body.webhookUrl).toBe(trig.webhookUrl);
    expect(body.secret).not.toBe(trig.secret);
    expect(Buffer.from(body.secret.replace(/^whsec_/, ''), 'base64')).toHaveLength(32);

    expect((await deliver(trig.webhookUrl, trig.secret)).statusCode).toBe(401);
    const accepted = await deliver(trig.webhookUrl, body.secret);
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json().executionId).toBeDefined();

    const row = await t.database.db.selectFrom('agentTriggers').selectAll().where('id', '=', trig.id).executeTakeFirstOrThrow();
    expect(t.secrets.decrypt(row.secretCiphertext!)).toBe(body.secret);
    expect(t.secrets.decrypt(row.signingSecretCiphertext!)).toBe('sender-generated');
    const audit = await t.database.db.selectFrom('auditLogs').selectAll().where('resourceId', '=', trig.id).where('action', '=', 'trigger.rotateSecret').execute();
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain(body.secret.slice(6));
  });

  it('refuses cron triggers (400), answers 404 for drafts, unknown and foreign ids, 403 without agent.manage', async () => {
    const cron = (await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/trigger/save`, headers: admin, payload: { source: 'cron', cronSchedule: '0 * * * *' } })).json();
    const res = await rotate(cron.id);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Validation failed', issues: [{ path: 'triggerId', message: 'is a cron trigger: it has no secret', code: 'not_applicable', location: 'params' }] });

    const { data } = await draft('linear');
    const foreign = (await t.app.inject({ method: 'POST', url: `/api/agents/${otherOrgAgentId}/trigger/save`, headers: bearer(t.orgB.apiKey.key), payload: { source: 'cron', cronSchedule: '0 * * * *' } })).json();
    for (const [agent, id] of [
      [agentId, idOf(data.webhookUrl)],
      [agentId, '0190f2a0-0000-7000-8000-000000000000'],
      [otherOrgAgentId, foreign.id],
    ]) {
      const missing = await rotate(id!, admin, agent);
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ error: 'Trigger not found' });
    }
    const active = await saved('webhook');
    const denied = await rotate(active.id, bearer(reader.key));
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['agent.manage'] });
    expect((await rotate('not-a-uuid')).statusCode).toBe(400);
  });
});

describe('OpenAPI', () => {
  it('documents the trigger operations and the three intake answers', async () => {
    const doc = (await t.app.inject({ url: '/api/docs/openapi.json' })).json();
    expect(doc.paths['/api/agents/{agentId}/trigger/{source}/fields'].get.description).toContain('jiraUrl');
    const intake = doc.paths['/api/trigger/{source}/{triggerId}'].post;
    expect(intake.description).toMatch(/skipped: true/);
    expect(intake.responses['200']).toBeDefined();
    expect(intake.responses['401']).toBeDefined();
    for (const p of ['/api/agents/{agentId}/trigger', '/api/agents/{agentId}/trigger/save', '/api/agents/{agentId}/trigger/{triggerId}', '/api/agents/{agentId}/trigger/{triggerId}/status', '/api/agents/{agentId}/trigger/{triggerId}/rotate-secret']) {
      expect(doc.paths[p], p).toBeDefined();
    }
  });
});
