import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';
import { createLoginLink } from '../../src/modules/sessions/index.js';

/** Web console sessions over HTTP: sign-in, cookie authentication, CSRF, expiry, sign-out, sign-in links. */
let t: TestContext;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

interface Opened {
  cookie: string;
  csrf: string;
  id: string;
  setCookie: string;
}

async function signIn(apiKey: string): Promise<Opened> {
  const res = await t.app.inject({ method: 'POST', url: '/api/session', payload: { apiKey } });
  expect(res.statusCode).toBe(200);
  const setCookie = String(res.headers['set-cookie']);
  return { cookie: setCookie.split(';')[0]!, csrf: res.json().csrfToken, id: res.json().id, setCookie };
}

function asSession(s: Opened, method: 'GET' | 'POST' | 'DELETE', url: string, opts: { csrf?: string | null; payload?: object } = {}) {
  const headers: Record<string, string> = { cookie: s.cookie };
  const csrf = opts.csrf === undefined ? s.csrf : opts.csrf;
  if (csrf !== null) headers['x-csrf-token'] = csrf;
  return t.app.inject({ method, url, headers, ...(opts.payload ? { payload: opts.payload } : {}) });
}

async function linkToken(email: string, organizationId?: string): Promise<string> {
  const link = await createLoginLink(t.database.db, { email, baseUrl: 'http://console.test', ...(organizationId ? { organizationId } : {}) });
  expect(link.url).toMatch(/^http:\/\/console\.test\/sign-in#link=rml_[A-Za-z0-9_-]{43}$/);
  return link.url.split('#link=')[1]!;
}

describe('POST /api/session', () => {
  it('exchanges an API key for an HttpOnly, SameSite=Strict session cookie; only the hash is stored', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/session', payload: { apiKey: t.orgA.apiKey.key } });
    expect(res.statusCode).toBe(200);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^rampart_session=rms_[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body).toEqual({
      id: expect.any(String),
      method: 'api_key',
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      idleTimeoutSeconds: 1800,
      csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      organizationId: t.orgA.organization.id,
      user: { id: t.orgA.user.id, email: 'admin@a.test', name: expect.any(String) },
      role: { id: expect.any(String), name: 'Super Admin' },
      permissions: expect.arrayContaining(['setting.apiKey.manage']),
    });
    expect(JSON.stringify(body)).not.toContain(t.orgA.apiKey.key);
    const token = setCookie.split(';')[0]!.split('=')[1]!;
    const row = await t.database.db.selectFrom('consoleSessions').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    expect(row.tokenHash.toString('utf8')).not.toContain(token);
    expect(row.apiKeyId).toBe(t.orgA.apiKey.id);
    const audit = await t.database.db.selectFrom('auditLogs').selectAll().where('resourceId', '=', body.id).execute();
    expect(audit.map((a) => a.action)).toEqual(['session.create']);
  });

  it('refuses an invalid key with 401 and a bad body with 400', async () => {
    const bad = await t.app.inject({ method: 'POST', url: '/api/session', payload: { apiKey: 'rmp_aaaaaaaa_' + 'a'.repeat(43) } });
    expect(bad.statusCode).toBe(401);
    expect(bad.json()).toEqual({ error: 'Invalid API key' });
    expect(bad.headers['set-cookie']).toBeUndefined();
    const missing = await t.app.inject({ method: 'POST', url: '/api/session', payload: {} });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ error: 'Validation failed', issues: [{ path: 'apiKey', location: 'body' }] });
  });
});

describe('a session authenticates as its key\'s user', () => {
  it('has exactly the user\'s permissions (403 with missingPerms) and sees only its organization', async () => {
    const reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['intel.read']);
    const s = await signIn(reader.key);
    expect((await asSession(s, 'GET', '/sources')).statusCode).toBe(200);
    const denied = await asSession(s, 'GET', '/api/api-keys');
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['setting.apiKey.manage'] });
    const b = await signIn(t.orgB.apiKey.key);
    const keys = (await asSession(b, 'GET', '/api/api-keys')).json();
    expect(keys.apiKeys.map((k: { organizationId: string }) => k.organizationId)).toEqual([t.orgB.organization.id]);
    expect((await asSession(b, 'GET', `/api/api-keys`)).json().apiKeys.some((k: { id: string }) => k.id === t.orgA.apiKey.id)).toBe(false);
  });

  it('GET /api/session answers the session with its CSRF token; an API key caller gets 404', async () => {
    const s = await signIn(t.orgA.apiKey.key);
    const res = await asSession(s, 'GET', '/api/session');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: s.id, csrfToken: s.csrf });
    const withKey = await t.app.inject({ method: 'GET', url: '/api/session', headers: bearer(t.orgA.apiKey.key) });
    expect(withKey.statusCode).toBe(404);
    expect(withKey.json()).toEqual({ error: 'Console session not found' });
    const nobody = await t.app.inject({ method: 'GET', url: '/api/session' });
    expect(nobody.statusCode).toBe(401);
  });

  it('an Authorization header wins over the cookie', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/api-keys', headers: { cookie: 'rampart_session=rms_garbage', ...bearer(t.orgA.apiKey.key) } });
    expect(res.statusCode).toBe(200);
  });
});

describe('CSRF defence', () => {
  it('refuses a state-changing request without the CSRF header, or with another session\'s token', async () => {
    const s = await signIn(t.orgA.apiKey.key);
    const other = await signIn(t.orgA.apiKey.key);
    const payload = { name: 'from the console' };
    const none = await asSession(s, 'POST', '/api/api-keys', { csrf: null, payload });
    expect(none.statusCode).toBe(403);
    expect(none.json()).toEqual({ error: 'Missing or invalid CSRF token (send the session\'s csrfToken in the x-csrf-token header)', missingPerms: [] });
    expect((await asSession(s, 'POST', '/api/api-keys', { csrf: other.csrf, payload })).statusCode).toBe(403);
    const ok = await asSession(s, 'POST', '/api/api-keys', { payload });
    expect(ok.statusCode).toBe(200);
    // The change is the user's, through the exchanged key, as with the key itself.
    const audit = await t.database.db.selectFrom('auditLogs').selectAll().where('resourceId', '=', ok.json().apiKey.id).executeTakeFirstOrThrow();
    expect(audit).toMatchObject({ actorUserId: t.orgA.user.id, actorApiKeyId: t.orgA.apiKey.id });
  });
});

describe('session end', () => {
  it('expires after inactivity and at its absolute expiry', async () => {
    const idle = await signIn(t.orgA.apiKey.key);
    await t.database.db.updateTable('consoleSessions').set({ lastSeenAt: new Date(Date.now() - 31 * 60_000) }).where('id', '=', idle.id).execute();
    const res = await asSession(idle, 'GET', '/api/session');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'The console session expired after inactivity' });

    const old = await signIn(t.orgA.apiKey.key);
    await t.database.db.updateTable('consoleSessions').set({ expiresAt: new Date(Date.now() - 1000) }).where('id', '=', old.id).execute();
    expect((await asSession(old, 'GET', '/api/api-keys')).json()).toEqual({ error: 'The console session has expired' });
  });

  it('signs out: the cookie is cleared and the session answers 401 from then on', async () => {
    const s = await signIn(t.orgA.apiKey.key);
    const refused = await asSession(s, 'DELETE', '/api/session', { csrf: null });
    expect(refused.statusCode).toBe(403);
    const out = await asSession(s, 'DELETE', '/api/session');
    expect(out.statusCode).toBe(200);
    expect(out.json()).toEqual({ success: true });
    expect(String(out.headers['set-cookie'])).toBe('rampart_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0');
    const after = await asSession(s, 'GET', '/api/api-keys');
    expect(after.statusCode).toBe(401);
    expect(after.json()).toEqual({ error: 'The console session was signed out' });
    const audit = await t.database.db.selectFrom('auditLogs').select('action').where('resourceId', '=', s.id).orderBy('createdAt').execute();
    expect(audit.map((a) => a.action)).toEqual(['session.create', 'session.revoke']);
  });

  it('ends when the exchanged API key is revoked or the user deactivated', async () => {
    const user = await userWithPermissions(t.database.db, t.orgA.organization.id, ['intel.read']);
    const s = await signIn(user.key);
    await t.app.inject({ method: 'DELETE', url: `/api/api-keys/${user.keyId}`, headers: bearer(t.orgA.apiKey.key) });
    const res = await asSession(s, 'GET', '/sources');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'The API key this console session was opened with has been revoked' });

    const other = await userWithPermissions(t.database.db, t.orgA.organization.id, ['intel.read']);
    const s2 = await signIn(other.key);
    await t.database.db.updateTable('users').set({ deactivatedAt: new Date() }).where('id', '=', other.userId).execute();
    expect((await asSession(s2, 'GET', '/sources')).json()).toEqual({ error: 'The user of this console session is deactivated' });
  });

  it('refuses a forged cookie', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/api-keys', headers: { cookie: `rampart_session=rms_${'A'.repeat(43)}` } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'The console session is not valid; sign in again' });
  });
});

describe('POST /api/session/link', () => {
  it('signs in once with a sign-in link; reuse is refused', async () => {
    const token = await linkToken('admin@a.test');
    const res = await t.app.inject({ method: 'POST', url: '/api/session/link', payload: { token } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ method: 'login_link', user: { id: t.orgA.user.id }, organizationId: t.orgA.organization.id });
    const s: Opened = { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrf: res.json().csrfToken, id: res.json().id, setCookie: '' };
    expect((await asSession(s, 'POST', '/api/api-keys', { payload: { name: 'via link' } })).statusCode).toBe(200);
    const again = await t.app.inject({ method: 'POST', url: '/api/session/link', payload: { token } });
    expect(again.statusCode).toBe(401);
    expect(again.json()).toEqual({ error: 'The sign-in link is invalid, expired or already used' });
  });

  it('refuses a link whose user was deactivated since', async () => {
    const user = await userWithPermissions(t.database.db, t.orgA.organization.id, ['intel.read']);
    const token = await linkToken(`${user.userId}@example.test`);
    await t.database.db.updateTable('users').set({ deactivatedAt: new Date() }).where('id', '=', user.userId).execute();
    const res = await t.app.inject({ method: 'POST', url: '/api/session/link', payload: { token } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('refuses an expired link and a malformed token', async () => {
    const token = await linkToken('admin@b.test');
    await t.database.db.updateTable('consoleLoginLinks').set({ expiresAt: new Date(Date.now() - 1000) }).where('organizationId', '=', t.orgB.organization.id).execute();
    expect((await t.app.inject({ method: 'POST', url: '/api/session/link', payload: { token } })).statusCode).toBe(401);
    const malformed = await t.app.inject({ method: 'POST', url: '/api/session/link', payload: { token: 'nope' } });
    expect(malformed.statusCode).toBe(401);
  });

  it('asks for an organization when the email is in several, and refuses unknown emails', async () => {
    await t.database.db.insertInto('users').values({ id: '01890000-0000-7000-8000-0000000000aa', organizationId: t.orgB.organization.id, email: 'admin@a.test', roleId: t.orgB.user.roleId, createdAt: new Date(), updatedAt: new Date() }).execute();
    await expect(createLoginLink(t.database.db, { email: 'admin@a.test', baseUrl: 'http://x' })).rejects.toThrow(/several organizations; choose one with --org/);
    await expect(linkToken('admin@a.test', t.orgA.organization.id)).resolves.toMatch(/^rml_/);
    await expect(createLoginLink(t.database.db, { email: 'nobody@a.test', baseUrl: 'http://x' })).rejects.toThrow('no active user with the email nobody@a.test');
  });
});
