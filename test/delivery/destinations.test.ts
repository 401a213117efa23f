import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';

let t: TestContext;
let admin: Record<string, string>;
let reader: TestUser;
let nobody: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['destination.read']);
  nobody = await userWithPermissions(t.database.db, t.orgA.organization.id, []);
});
afterAll(() => t.close());

const webhook = { type: 'webhook', name: 'SOAR hook', config: { url: 'https://hooks.example.com/in', authType: 'bearer' }, token: 'tok-SECRET-123' };

async function create(body: unknown, headers = admin) {
  return t.app.inject({ method: 'POST', url: '/api/output-destinations', headers, payload: body as object });
}

describe('GET /api/output-destinations', () => {
  it('lists an empty organization as []', async () => {
    const res = await t.app.inject({ url: '/api/output-destinations', headers: bearer(t.orgB.apiKey.key) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([]);
  });

  it('lists all six variants, token only for destination.manage', async () => {
    const bodies = [
      webhook,
      { type: 'teams', name: 'Teams', config: { url: 'https://prod.workflows.example.com/x' } },
      { type: 'slack', name: 'Slack', config: { channelIds: ['C123'], configurationRevision: 0, blockedChannels: { C999: { reason: 'archived', blockedAt: '2026-01-01T00:00:00.000Z' } } }, token: 'xoxb-1' },
      { type: 'pagerduty', name: 'PD', config: { severity: 'critical', source: 'rampart' }, token: 'routing-key' },
      { type: 'linear', name: 'Linear', config: { teamId: 'TEAM', labelIds: ['L1'], workflowStateId: 'S1' } },
      { type: 'tines', name: 'Tines', config: { teamId: '42', teamName: 'SecOps' } },
    ];
    for (const b of bodies) expect((await create(b)).statusCode).toBe(200);

    const asAdmin = await t.app.inject({ url: '/api/output-destinations', headers: admin });
    expect(asAdmin.statusCode).toBe(200);
    const list = asAdmin.json() as Array<Record<string, unknown>>;
    expect(list.map((d) => d.type)).toEqual(['webhook', 'teams', 'slack', 'pagerduty', 'linear', 'tines']);
    expect(list[0]).toMatchObject({ name: 'SOAR hook', token: 'tok-SECRET-123', hasToken: true, organizationId: t.orgA.organization.id });
    expect(list[1]).toMatchObject({ hasToken: false });
    expect(list[1]).not.toHaveProperty('token');
    for (const d of list) expect(Object.keys(d).sort()).toEqual(expect.arrayContaining(['id', 'organizationId', 'name', 'createdAt', 'updatedAt', 'type', 'config', 'hasToken']));

    const asReader = await t.app.inject({ url: '/api/output-destinations', headers: bearer(reader.key) });
    expect(asReader.statusCode).toBe(200);
    const readerList = asReader.json() as Array<Record<string, unknown>>;
    expect(readerList).toHaveLength(6);
    expect(readerList[0]).toMatchObject({ hasToken: true });
    expect(readerList[0]).not.toHaveProperty('token');
    expect(asReader.body).not.toContain('tok-SECRET-123');
  });

  it('answers 401 without a key, with WWW-Authenticate', async () => {
    const res = await t.app.inject({ url: '/api/output-destinations' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(res.json()).toEqual({ error: expect.any(String) });
  });

  it('answers 403 naming the missing permission', async () => {
    const res = await t.app.inject({ url: '/api/output-destinations', headers: bearer(nobody.key) });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['destination.read'] });
  });
});

describe('token encryption at rest', () => {
  it('never stores the plaintext token', async () => {
    const res = await create({ ...webhook, token: 'plaintext-canary-7731' });
    expect(res.statusCode).toBe(200);
    const rows = await t.database.db.selectFrom('outputDestinations').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain('plaintext-canary-7731');
    const audit = await t.database.db.selectFrom('auditLogs').selectAll().execute();
    expect(JSON.stringify(audit)).not.toContain('plaintext-canary-7731');
  });
});

describe('POST /api/output-destinations validation', () => {
  const cases: Array<[string, unknown, string]> = [
    ['empty name', { ...webhook, name: '' }, 'name'],
    ['name too long', { ...webhook, name: 'x'.repeat(256) }, 'name'],
    ['webhook url not a URI', { ...webhook, config: { url: 'not a url', authType: 'bearer' } }, 'config.url'],
    ['webhook authType unknown', { ...webhook, config: { url: 'https://a.example', authType: 'basic' } }, 'config.authType'],
    ['header auth without headerName', { ...webhook, config: { url: 'https://a.example', authType: 'header' } }, 'config.headerName'],
    ['teams url missing', { type: 'teams', name: 'T', config: {} }, 'config.url'],
    ['slack without channels', { type: 'slack', name: 'S', config: { channelIds: [] } }, 'config.channelIds'],
    ['slack negative revision', { type: 'slack', name: 'S', config: { channelIds: ['C1'], configurationRevision: -1 } }, 'config.configurationRevision'],
    ['slack blocked channel bad reason', { type: 'slack', name: 'S', config: { channelIds: ['C1'], blockedChannels: { C2: { reason: 'gone', blockedAt: 'x' } } } }, 'config.blockedChannels.C2.reason'],
    ['pagerduty bad severity', { type: 'pagerduty', name: 'P', config: { severity: 'urgent' } }, 'config.severity'],
    ['linear empty teamId', { type: 'linear', name: 'L', config: { teamId: '' } }, 'config.teamId'],
    ['linear empty workflowStateId', { type: 'linear', name: 'L', config: { teamId: 'T', workflowStateId: '' } }, 'config.workflowStateId'],
    ['tines non-digit teamId', { type: 'tines', name: 'T', config: { teamId: '12a' } }, 'config.teamId'],
  ];
  for (const [label, body, path] of cases) {
    it(`rejects ${label}`, async () => {
      const res = await create(body);
      expect(res.statusCode).toBe(400);
      const json = res.json();
      expect(json.error).toBe('Validation failed');
      expect(json.issues.map((i: { path: string }) => i.path)).toContain(path);
    });
  }

  it('rejects an unknown type', async () => {
    const res = await create({ type: 'email', name: 'E', config: {} });
    expect(res.statusCode).toBe(400);
    expect(res.json().issues[0].path).toBe('type');
  });

  it('needs destination.manage', async () => {
    const res = await create(webhook, bearer(reader.key));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['destination.manage'] });
  });
});

describe('PUT and DELETE /api/output-destinations/{id}', () => {
  it('keeps the token when omitted, clears it with null, and audits', async () => {
    const created = (await create(webhook)).json();
    const kept = await t.app.inject({ method: 'PUT', url: `/api/output-destinations/${created.id}`, headers: admin, payload: { ...webhook, token: undefined, name: 'Renamed' } });
    expect(kept.statusCode).toBe(200);
    expect(kept.json()).toMatchObject({ name: 'Renamed', token: 'tok-SECRET-123', hasToken: true });
    const cleared = await t.app.inject({ method: 'PUT', url: `/api/output-destinations/${created.id}`, headers: admin, payload: { ...webhook, token: null } });
    expect(cleared.json()).toMatchObject({ hasToken: false });
    const audit = await t.database.db.selectFrom('auditLogs').selectAll().where('resourceId', '=', created.id).orderBy('createdAt').execute();
    expect(audit.map((a) => a.action)).toEqual(['destination.create', 'destination.update', 'destination.update']);
    expect(audit[0]).toMatchObject({ actorUserId: t.orgA.user.id, actorApiKeyId: t.orgA.apiKey.id });
    expect(audit[0]!.requestId).toBeTruthy();
  });

  it('answers 404 for another organization\'s destination, on GET, PUT, DELETE and deliveries', async () => {
    const created = (await create(webhook)).json();
    const other = bearer(t.orgB.apiKey.key);
    for (const [method, url] of [
      ['GET', `/api/output-destinations/${created.id}`],
      ['PUT', `/api/output-destinations/${created.id}`],
      ['DELETE', `/api/output-destinations/${created.id}`],
      ['GET', `/api/output-destinations/${created.id}/deliveries`],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: other, ...(method === 'PUT' ? { payload: webhook } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toEqual({ error: 'Output destination not found' });
    }
    expect((await t.app.inject({ url: `/api/output-destinations/${created.id}`, headers: admin })).statusCode).toBe(200);
  });

  it('deletes, then answers 404', async () => {
    const created = (await create(webhook)).json();
    const del = await t.app.inject({ method: 'DELETE', url: `/api/output-destinations/${created.id}`, headers: admin });
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ success: true });
    const again = await t.app.inject({ method: 'DELETE', url: `/api/output-destinations/${created.id}`, headers: admin });
    expect(again.statusCode).toBe(404);
  });

  it('rejects a malformed id with 400', async () => {
    const res = await t.app.inject({ url: '/api/output-destinations/not-a-uuid', headers: admin });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'Validation failed', issues: [{ path: 'id', location: 'params' }] });
  });

  it('lists an empty delivery log', async () => {
    const created = (await create(webhook)).json();
    const res = await t.app.inject({ url: `/api/output-destinations/${created.id}/deliveries`, headers: bearer(reader.key) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ deliveries: [], totalCount: 0 });
  });
});

describe('deleting a destination while an agent is saved with it', () => {
  it('leaves no agent pointing at a deleted destination: the save waits for the delete, then answers 400', async () => {
    const dest = (await create({ type: 'teams', name: 'Racing', config: { url: 'https://example.com/race' } })).json();
    // A delete in flight: the row is locked and gone inside a transaction that has not committed.
    const client = await t.database.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT id FROM output_destinations WHERE id = $1 FOR UPDATE', [dest.id]);
      await client.query('DELETE FROM output_destinations WHERE id = $1', [dest.id]);
      let settled = false;
      const save = t.app
        .inject({ method: 'POST', url: '/api/agents', headers: admin, payload: { name: 'Racer', systemPrompt: 'x', outputDestinationIds: [dest.id] } })
        .finally(() => (settled = true));
      // Without a lock on the referenced row the save reads it as still there and commits.
      await new Promise((r) => setTimeout(r, 300));
      expect(settled).toBe(false);
      await client.query('COMMIT');
      const res = await save;
      expect(res.statusCode).toBe(400);
      expect(res.json().issues[0]).toMatchObject({ path: 'outputDestinationIds.0', code: 'unknown_reference' });
    } finally {
      client.release();
    }
  });
});
