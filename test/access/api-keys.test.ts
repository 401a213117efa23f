import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../src/platform/auth/permissions.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const KEY = /^rmp_([a-z0-9]{8})_[A-Za-z0-9_-]{43}$/;
const FORBIDDEN = { error: 'Missing required permissions', missingPerms: ['setting.apiKey.manage'] };
const UNKNOWN_ID = '01890000-0000-7000-8000-000000000000';
const API_KEY_FIELDS = ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'organizationId', 'prefix', 'revokedAt', 'userId'];

let t: TestContext;
let admin: Record<string, string>;
let keyManager: TestUser;
let nobody: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  keyManager = await userWithPermissions(t.database.db, t.orgA.organization.id, ['setting.apiKey.manage', 'intel.read']);
  nobody = await userWithPermissions(t.database.db, t.orgA.organization.id, []);
});
afterAll(() => t.close());

async function createKey(body: unknown, headers = admin) {
  return t.app.inject({ method: 'POST', url: '/api/api-keys', headers, payload: body as object });
}

async function revoke(id: string, headers = admin) {
  return t.app.inject({ method: 'DELETE', url: `/api/api-keys/${id}`, headers });
}

function validation(path: string, message: string, code: string, location = 'body') {
  return { error: 'Validation failed', issues: [{ path, message, code, location }] };
}

describe('POST /api/api-keys', () => {
  it('creates a key for the caller and shows the key once', async () => {
    const res = await createKey({ name: ' CI pipeline ' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['apiKey', 'key']);
    expect(body.apiKey).toEqual({
      id: expect.stringMatching(UUID),
      organizationId: t.orgA.organization.id,
      userId: t.orgA.user.id,
      name: 'CI pipeline',
      prefix: expect.stringMatching(/^[a-z0-9]{8}$/),
      createdAt: expect.stringMatching(ISO),
      lastUsedAt: null,
      expiresAt: null,
      revokedAt: null,
    });
    expect(body.key).toMatch(KEY);
    expect(KEY.exec(body.key)![1]).toBe(body.apiKey.prefix);
    const audit = await t.database.db.selectFrom('auditLogs').selectAll().where('resourceId', '=', body.apiKey.id).execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: 'apiKey.create',
      resourceType: 'apiKey',
      actorUserId: t.orgA.user.id,
      actorApiKeyId: t.orgA.apiKey.id,
      requestId: res.headers['x-request-id'],
      metadata: { name: 'CI pipeline', prefix: body.apiKey.prefix, userId: t.orgA.user.id },
    });
  });

  it('keeps an expiry, normalised to UTC', async () => {
    const res = await createKey({ name: 'expiring', expiresAt: '2099-06-30T12:00:00+02:00' });
    expect(res.statusCode).toBe(200);
    expect(res.json().apiKey.expiresAt).toBe('2099-06-30T10:00:00.000Z');
  });

  it('creates a key for another user whose permissions the caller holds', async () => {
    const bot = await userWithPermissions(t.database.db, t.orgA.organization.id, ['intel.read']);
    const res = await createKey({ name: 'for the bot', userId: bot.userId }, bearer(keyManager.key));
    expect(res.statusCode).toBe(200);
    expect(res.json().apiKey).toMatchObject({ userId: bot.userId, organizationId: t.orgA.organization.id, name: 'for the bot' });
    const audit = await t.database.db.selectFrom('auditLogs').selectAll().where('resourceId', '=', res.json().apiKey.id).executeTakeFirstOrThrow();
    expect(audit).toMatchObject({ actorUserId: keyManager.userId, actorApiKeyId: keyManager.keyId, metadata: { userId: bot.userId } });
  });

  it('answers 403 when the other user holds permissions the caller lacks', async () => {
    const res = await createKey({ name: 'escalation', userId: t.orgA.user.id }, bearer(keyManager.key));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      error: 'Missing required permissions',
      missingPerms: PERMISSIONS.filter((p) => p !== 'setting.apiKey.manage' && p !== 'intel.read'),
    });
    const rows = await t.database.db.selectFrom('apiKeys').select('id').where('name', '=', 'escalation').execute();
    expect(rows).toEqual([]);
  });

  it('answers 400 for a user of another organization, an unknown user, or a deactivated user', async () => {
    for (const userId of [t.orgB.user.id, UNKNOWN_ID]) {
      const res = await createKey({ name: 'x', userId });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(validation('userId', 'No such user in this organization', 'not_found'));
    }
    const gone = await userWithPermissions(t.database.db, t.orgA.organization.id, []);
    await t.database.db.updateTable('users').set({ deactivatedAt: new Date() }).where('id', '=', gone.userId).execute();
    const res = await createKey({ name: 'x', userId: gone.userId });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(validation('userId', 'The user is deactivated', 'deactivated'));
  });

  const cases: Array<[string, unknown, { path: string; message: string; code: string }]> = [
    ['a missing name', {}, { path: 'name', message: 'Invalid input: expected string, received undefined', code: 'invalid_type' }],
    ['a blank name', { name: '   ' }, { path: 'name', message: 'Too small: expected string to have >=1 characters', code: 'too_small' }],
    ['a name over 255 characters', { name: 'k'.repeat(256) }, { path: 'name', message: 'Too big: expected string to have <=255 characters', code: 'too_big' }],
    ['an expiry that is not a date', { name: 'k', expiresAt: 'tomorrow' }, { path: 'expiresAt', message: 'Invalid ISO datetime', code: 'invalid_format' }],
    ['an expiry without a time zone', { name: 'k', expiresAt: '2099-01-01T00:00:00' }, { path: 'expiresAt', message: 'Invalid ISO datetime', code: 'invalid_format' }],
    ['an expiry in the past', { name: 'k', expiresAt: '2020-01-01T00:00:00Z' }, { path: 'expiresAt', message: 'must be in the future', code: 'too_small' }],
    ['a userId that is not a UUID', { name: 'k', userId: 'me' }, { path: 'userId', message: 'Invalid UUID', code: 'invalid_format' }],
    ['an unknown field', { name: 'k', key: 'rmp_chosen00_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }, { path: 'key', message: 'Unknown field', code: 'unrecognized_keys' }],
  ];
  for (const [label, body, issue] of cases) {
    it(`rejects ${label} with 400`, async () => {
      const res = await createKey(body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(validation(issue.path, issue.message, issue.code));
    });
  }

  it('answers 403 without setting.apiKey.manage, before reading the body', async () => {
    const res = await createKey({ nonsense: true }, bearer(nobody.key));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual(FORBIDDEN);
  });

  it('answers 401 without a key', async () => {
    const res = await createKey({ name: 'k' }, {});
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="rampart"');
    expect(res.json()).toEqual({ error: 'Missing Authorization header (expected "Bearer <API key>")' });
  });
});

describe('GET /api/api-keys', () => {
  // Organization B's keys are made here only, so its list is known exactly.
  const keys: Array<{ id: string; key: string }> = [];
  beforeAll(async () => {
    for (const name of ['one', 'two', 'three']) {
      const res = await createKey({ name }, bearer(t.orgB.apiKey.key));
      keys.push({ id: res.json().apiKey.id, key: res.json().key });
    }
    expect((await revoke(keys[1]!.id, bearer(t.orgB.apiKey.key))).statusCode).toBe(200);
  });

  it('lists the organization\'s live keys newest first, never the keys themselves', async () => {
    const res = await t.app.inject({ url: '/api/api-keys', headers: bearer(t.orgB.apiKey.key) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.totalCount).toBe(3);
    expect(body.apiKeys.map((k: { name: string }) => k.name)).toEqual(['three', 'one', 'Initial admin key']);
    for (const k of body.apiKeys) {
      expect(Object.keys(k).sort()).toEqual(API_KEY_FIELDS);
      expect(k.organizationId).toBe(t.orgB.organization.id);
    }
    expect(body.apiKeys[0]).toEqual({
      id: keys[2]!.id,
      organizationId: t.orgB.organization.id,
      userId: t.orgB.user.id,
      name: 'three',
      prefix: KEY.exec(keys[2]!.key)![1],
      createdAt: expect.stringMatching(ISO),
      lastUsedAt: null,
      expiresAt: null,
      revokedAt: null,
    });
    for (const { key } of keys) expect(res.body).not.toContain(key.slice(13));
    expect(res.body).not.toContain(t.orgB.apiKey.key.slice(13));
  });

  it('includes revoked keys on request', async () => {
    const res = await t.app.inject({ url: '/api/api-keys?includeRevoked=true', headers: bearer(t.orgB.apiKey.key) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.totalCount).toBe(4);
    expect(body.apiKeys.map((k: { name: string }) => k.name)).toEqual(['three', 'two', 'one', 'Initial admin key']);
    expect(body.apiKeys[1]).toMatchObject({ id: keys[1]!.id, revokedAt: expect.stringMatching(ISO) });
  });

  it('pages with limit and offset', async () => {
    const res = await t.app.inject({ url: '/api/api-keys?includeRevoked=true&limit=2&offset=1', headers: bearer(t.orgB.apiKey.key) });
    expect(res.statusCode).toBe(200);
    expect(res.json().totalCount).toBe(4);
    expect(res.json().apiKeys.map((k: { name: string }) => k.name)).toEqual(['two', 'one']);
  });

  it('never shows another organization\'s keys', async () => {
    const res = await t.app.inject({ url: '/api/api-keys?includeRevoked=true&limit=200', headers: admin });
    const ids = (res.json().apiKeys as Array<{ id: string; organizationId: string }>).map((k) => k.id);
    expect(ids).toContain(t.orgA.apiKey.id);
    for (const { id } of keys) expect(ids).not.toContain(id);
  });

  it.each([
    ['includeRevoked=yes', { path: 'includeRevoked', message: 'Invalid option: expected one of "true"|"false"', code: 'invalid_value' }],
    ['limit=0', { path: 'limit', message: 'Too small: expected number to be >=1', code: 'too_small' }],
    ['limit=500', { path: 'limit', message: 'Too big: expected number to be <=200', code: 'too_big' }],
    ['offset=-5', { path: 'offset', message: 'Too small: expected number to be >=0', code: 'too_small' }],
  ])('rejects %s with 400', async (query, issue) => {
    const res = await t.app.inject({ url: `/api/api-keys?${query}`, headers: admin });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(validation(issue.path, issue.message, issue.code, 'query'));
  });

  it('answers 403 without setting.apiKey.manage', async () => {
    const res = await t.app.inject({ url: '/api/api-keys', headers: bearer(nobody.key) });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual(FORBIDDEN);
  });
});

describe('DELETE /api/api-keys/{id}', () => {
  it('revokes a key, answering it with revokedAt; revoking again changes nothing', async () => {
    const created = (await createKey({ name: 'to revoke' })).json();
    const res = await revoke(created.apiKey.id);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({ success: true, apiKey: { ...created.apiKey, revokedAt: expect.stringMatching(ISO) } });
    expect(res.body).not.toContain(created.key);

    const again = await revoke(created.apiKey.id);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(body);
    const audit = await t.database.db.selectFrom('auditLogs').selectAll().where('resourceId', '=', created.apiKey.id).orderBy('createdAt').orderBy('id').execute();
    expect(audit.map((a) => a.action)).toEqual(['apiKey.create', 'apiKey.revoke']);
    expect(audit[1]).toMatchObject({ actorUserId: t.orgA.user.id, actorApiKeyId: t.orgA.apiKey.id, requestId: res.headers['x-request-id'], metadata: { prefix: created.apiKey.prefix } });
  });

  it('answers 404 for an unknown id and for another organization\'s key, which keeps working', async () => {
    for (const id of [UNKNOWN_ID, t.orgB.apiKey.id]) {
      const res = await revoke(id);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'API key not found' });
    }
    const orgB = await t.app.inject({ url: '/api/api-keys', headers: bearer(t.orgB.apiKey.key) });
    expect(orgB.statusCode).toBe(200);
  });

  it('rejects a malformed id with 400', async () => {
    const res = await revoke('rmp_abc');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(validation('id', 'must be a UUID', 'invalid_format', 'params'));
  });

  it('answers 403 without setting.apiKey.manage, and the key stays live', async () => {
    const created = (await createKey({ name: 'survivor' })).json();
    const res = await revoke(created.apiKey.id, bearer(nobody.key));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual(FORBIDDEN);
    const row = await t.database.db.selectFrom('apiKeys').select('revokedAt').where('id', '=', created.apiKey.id).executeTakeFirstOrThrow();
    expect(row.revokedAt).toBeNull();
  });

  it('records one revocation when two arrive at once', async () => {
    const created = (await createKey({ name: 'double' })).json();
    const [a, b] = await Promise.all([revoke(created.apiKey.id), revoke(created.apiKey.id)]);
    expect([a!.statusCode, b!.statusCode]).toEqual([200, 200]);
    expect(a!.json().apiKey.revokedAt).toBe(b!.json().apiKey.revokedAt);
    const audit = await t.database.db.selectFrom('auditLogs').select('action').where('resourceId', '=', created.apiKey.id).where('action', '=', 'apiKey.revoke').execute();
    expect(audit).toHaveLength(1);
  });
});
