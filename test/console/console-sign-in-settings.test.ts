import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';
import { createLoginLink } from '../../src/modules/sessions/index.js';

/**
 * An organization turns API-key sign-in to the console off (issue 45): the sign-in route refuses
 * its keys, the sessions opened with a key end, the keys keep working for the API, the other
 * ways in (sign-in link, identity provider) stay, and other organizations are untouched.
 */
let t: TestContext;
let admin: Record<string, string>;

const URL_ = '/api/console-sign-in-settings';
const OFF_BODY = {
  error: 'This organization does not allow signing in to the console with an API key: sign in with its identity provider (the key still works for the API)',
  missingPerms: [],
};

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
});
afterAll(() => t?.close());

const keySignIn = (apiKey: string) => t.app.inject({ method: 'POST', url: '/api/session', payload: { apiKey } });
const put = (headers: Record<string, string>, payload: unknown) => t.app.inject({ method: 'PUT', url: URL_, headers, payload: payload as object });

describe('console sign-in settings', () => {
  it('allows API-key sign-in by default', async () => {
    const res = await t.app.inject({ url: URL_, headers: admin });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ organizationId: t.orgA.organization.id, apiKeySignIn: true, updatedAt: null });
    const providers = await t.app.inject({ url: `/auth/oidc/providers?organizationId=${t.orgA.organization.id}` });
    expect(providers.json()).toEqual({ identityProviders: [], apiKeySignIn: true });
  });

  it('turned off: the sign-in route refuses the organization\'s keys, key sessions end, the key still works for the API, a sign-in link still signs in', async () => {
    const opened = await keySignIn(t.orgA.apiKey.key);
    expect(opened.statusCode).toBe(200);
    const sessionCookie = String(opened.headers['set-cookie']).split(';')[0]!;
    expect((await t.app.inject({ url: '/api/session', headers: { cookie: sessionCookie } })).statusCode).toBe(200);

    const res = await put(admin, { apiKeySignIn: false });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ organizationId: t.orgA.organization.id, apiKeySignIn: false, updatedAt: expect.any(String) });
    expect((await t.app.inject({ url: URL_, headers: admin })).json().apiKeySignIn).toBe(false);

    const refused = await keySignIn(t.orgA.apiKey.key);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual(OFF_BODY);
    expect(refused.headers['set-cookie']).toBeUndefined();
    // The session opened with a key before is over.
    expect((await t.app.inject({ url: '/api/session', headers: { cookie: sessionCookie } })).statusCode).toBe(401);
    // The key itself works for the API.
    expect((await t.app.inject({ url: '/api/users', headers: admin })).statusCode).toBe(200);
    // An invalid key is still told so (401), not the organization's policy.
    expect((await keySignIn(`rmp_aaaaaaaa_${'a'.repeat(43)}`)).statusCode).toBe(401);
    // The operator's sign-in link stays.
    const link = await createLoginLink(t.database.db, { email: 'admin@a.test', organizationId: t.orgA.organization.id, baseUrl: 'http://console.test' });
    const viaLink = await t.app.inject({ method: 'POST', url: '/api/session/link', payload: { token: link.url.split('#link=')[1] } });
    expect(viaLink.statusCode).toBe(200);
    expect(viaLink.json().method).toBe('login_link');
    // The sign-in screen learns it (it hides the API-key form).
    expect((await t.app.inject({ url: `/auth/oidc/providers?organizationId=${t.orgA.organization.id}` })).json().apiKeySignIn).toBe(false);
    // Another organization is untouched.
    expect((await keySignIn(t.orgB.apiKey.key)).statusCode).toBe(200);

    const audit = await t.app.inject({ url: '/api/audit-logs?action=consoleSignInSettings.update', headers: admin });
    expect(audit.json().auditLogs[0]).toMatchObject({ action: 'consoleSignInSettings.update', metadata: { apiKeySignIn: false, previous: true, sessionsEnded: 1 } });
    const refusals = await t.app.inject({ url: '/api/audit-logs?action=session.refused', headers: admin });
    expect(refusals.json().auditLogs[0]).toMatchObject({ resourceType: 'apiKey', resourceId: t.orgA.apiKey.id, metadata: { method: 'api_key', reason: 'api_key_sign_in_off' } });

    // Turned on again: keys sign in again.
    expect((await put(admin, { apiKeySignIn: true })).json().apiKeySignIn).toBe(true);
    expect((await keySignIn(t.orgA.apiKey.key)).statusCode).toBe(200);
  });

  it('needs setting.identityProviders.manage (403 naming it) and a boolean (400)', async () => {
    const manager = await userWithPermissions(t.database.db, t.orgA.organization.id, ['setting.users.manage']);
    for (const res of [await t.app.inject({ url: URL_, headers: bearer(manager.key) }), await put(bearer(manager.key), { apiKeySignIn: false })]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['setting.identityProviders.manage'] });
    }
    expect((await t.app.inject({ url: URL_ })).statusCode).toBe(401);
    for (const payload of [{ apiKeySignIn: 'no' }, {}, { apiKeySignIn: false, extra: 1 }]) {
      const res = await put(admin, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('Validation failed');
    }
    expect((await t.app.inject({ url: URL_, headers: admin })).json().apiKeySignIn).toBe(true);
  });
});
