import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { foreignJwks, startOidcProvider, type TestIdentityProvider } from '../support/oidc-provider.js';

/**
 * Console sign-in through a real OpenID Provider (oidc-provider) started by the test: the
 * browser's side is followed by hand (Rampart's redirect, the provider's redirects, the return).
 */
const BASE = 'http://rampart.test';
const REDIRECT_URI = `${BASE}/auth/oidc/callback`;

let t: TestContext;
let idp: TestIdentityProvider;
let other: TestIdentityProvider;
let admin: Record<string, string>;
let analystRoleId: string;
let responderRoleId: string;

async function roleId(name: string): Promise<string> {
  return (await t.database.db.selectFrom('roles').select('id').where('organizationId', '=', t.orgA.organization.id).where('name', '=', name).executeTakeFirstOrThrow()).id;
}

async function createProvider(over: Record<string, unknown> = {}, at: TestIdentityProvider = idp): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/identity-providers',
    headers: admin,
    payload: {
      name: `IdP ${Math.random()}`,
      issuer: at.issuer,
      clientId: at.clientId,
      clientSecret: at.clientSecret,
      scopes: ['openid', 'email', 'profile', 'groups'],
      allowedEmailDomains: ['corp.example'],
      roleMappings: [
        { group: 'rampart-responders', roleId: responderRoleId },
        { group: 'rampart-analysts', roleId: analystRoleId },
      ],
      ...over,
    },
  });
  expect(res.statusCode).toBe(200);
  return res.json().id;
}

async function startLogin(providerId: string) {
  const res = await t.app.inject({ url: `/auth/oidc/${providerId}/login` });
  expect(res.statusCode).toBe(302);
  const setCookie = String(res.headers['set-cookie']);
  expect(setCookie).toMatch(/^rampart_oidc_state=[^;]+; Path=\/auth\/oidc; HttpOnly; SameSite=Lax; Max-Age=600$/);
  const cookie = setCookie.split(';')[0]!;
  const location = new URL(res.headers.location as string);
  expect(location.searchParams.get('code_challenge_method')).toBe('S256');
  expect(location.searchParams.get('redirect_uri')).toBe(REDIRECT_URI);
  expect(location.searchParams.get('nonce')).toBeTruthy();
  return { authorizationUrl: location.href, cookie, state: location.searchParams.get('state')! };
}

const callback = (url: URL, cookie: string) => t.app.inject({ url: `${url.pathname}${url.search}`, headers: { cookie } });

/** A whole sign-in: answers the callback's response. */
async function signIn(providerId: string, accountId: string, at: TestIdentityProvider = idp) {
  const { authorizationUrl, cookie } = await startLogin(providerId);
  return callback(await at.authorize(authorizationUrl, accountId), cookie);
}

/** The console session a successful sign-in opened (through its cookie, as the console reads it). */
async function sessionOf(res: Awaited<ReturnType<typeof callback>>) {
  expect(res.statusCode).toBe(303);
  expect(res.headers.location).toBe(`${BASE}/`);
  const cookies = res.headers['set-cookie'] as string[];
  const session = cookies.find((c) => c.startsWith('rampart_session='))!;
  expect(session).toMatch(/HttpOnly; SameSite=Strict/);
  const current = await t.app.inject({ url: '/api/session', headers: { cookie: session.split(';')[0]! } });
  expect(current.statusCode).toBe(200);
  return current.json();
}

function expectRefused(res: Awaited<ReturnType<typeof callback>>, reason: RegExp) {
  expect(res.statusCode).toBe(403);
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  expect(res.body).toContain('<h1>Sign-in refused</h1>');
  expect(res.body).toMatch(reason);
  expect(String(res.headers['set-cookie'])).not.toContain('rampart_session=');
}

const links = async () => Number((await t.database.db.selectFrom('identityProviderLinks').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

const counts = async () => ({
  users: Number((await t.database.db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n),
  sessions: Number((await t.database.db.selectFrom('consoleSessions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n),
  links: await links(),
});

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_BASE_URL: BASE, RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  admin = bearer(t.orgA.apiKey.key);
  analystRoleId = await roleId('Analyst');
  const responder = await t.app.inject({ method: 'POST', url: '/api/roles', headers: admin, payload: { name: 'Responder', permissions: ['alert.read', 'alert.triage', 'alert.manage'] } });
  expect(responder.statusCode).toBe(200);
  responderRoleId = responder.json().id;
  idp = await startOidcProvider({ redirectUri: REDIRECT_URI });
  other = await startOidcProvider({ redirectUri: REDIRECT_URI });
});
afterAll(async () => {
  await idp?.close();
  await other?.close();
  await t?.close();
});

describe('OIDC sign-in', () => {
  it('signs a new person in: user created from the verified email, role from the group, session like a sign-in link, audited', async () => {
    const providerId = await createProvider();
    idp.accounts.set('alice-sub', { email: 'alice@corp.example', email_verified: true, name: 'Alice Liddell', groups: ['everyone', 'rampart-analysts'] });
    const session = await sessionOf(await signIn(providerId, 'alice-sub'));
    expect(session).toMatchObject({ method: 'oidc', organizationId: t.orgA.organization.id, user: { email: 'alice@corp.example', name: 'Alice Liddell' }, role: { id: analystRoleId, name: 'Analyst' } });
    const users = await t.app.inject({ url: '/api/users?limit=100', headers: admin });
    expect(users.json().users.filter((u: { email: string }) => u.email === 'alice@corp.example')).toHaveLength(1);
    const audit = await t.database.db.selectFrom('auditLogs').select(['action', 'metadata']).where('resourceId', '=', session.user.id).orderBy('createdAt').orderBy('id').execute();
    expect(audit.map((a) => a.action)).toEqual(['user.create', 'identityProvider.signIn']);
    expect(audit[1]!.metadata).toMatchObject({ identityProviderId: providerId, created: true, roleId: analystRoleId });
    const opened = await t.database.db.selectFrom('auditLogs').select(['action', 'actorUserId', 'metadata']).where('resourceId', '=', session.id).execute();
    expect(opened).toEqual([{ action: 'session.create', actorUserId: session.user.id, metadata: { method: 'oidc' } }]);
  });

  it('applies groups at every sign-in: the first mapped group wins, removal takes the role away, no mapped group is refused', async () => {
    const providerId = await createProvider();
    idp.accounts.set('bob-sub', { email: 'bob@corp.example', email_verified: true, groups: ['rampart-analysts', 'rampart-responders'] });
    const first = await sessionOf(await signIn(providerId, 'bob-sub'));
    expect(first.role).toEqual({ id: responderRoleId, name: 'Responder' });
    idp.accounts.set('bob-sub', { email: 'bob@corp.example', email_verified: true, groups: ['rampart-analysts'] });
    const second = await sessionOf(await signIn(providerId, 'bob-sub'));
    expect(second.user.id).toBe(first.user.id);
    expect(second.role).toEqual({ id: analystRoleId, name: 'Analyst' });
    idp.accounts.set('bob-sub', { email: 'bob@corp.example', email_verified: true, groups: [] });
    const before = await counts();
    expectRefused(await signIn(providerId, 'bob-sub'), /none of the groups that give access/);
    expect(await counts()).toEqual(before);
    const user = (await t.app.inject({ url: `/api/users/${first.user.id}`, headers: admin })).json();
    expect(user.roleId).toBe(analystRoleId);
    // With a default role, nobody in no mapped group is refused.
    await t.app.inject({ method: 'PATCH', url: `/api/identity-providers/${providerId}`, headers: admin, payload: { defaultRoleId: analystRoleId } });
    expect((await sessionOf(await signIn(providerId, 'bob-sub'))).role.id).toBe(analystRoleId);
  });

  it('follows the sub: a changed email at the provider signs in the same user', async () => {
    const providerId = await createProvider();
    idp.accounts.set('carol-sub', { email: 'carol@corp.example', email_verified: true, groups: ['rampart-analysts'] });
    const first = await sessionOf(await signIn(providerId, 'carol-sub'));
    idp.accounts.set('carol-sub', { email: 'carol.new@corp.example', email_verified: true, groups: ['rampart-analysts'] });
    const before = await counts();
    const second = await sessionOf(await signIn(providerId, 'carol-sub'));
    expect(second.user.id).toBe(first.user.id);
    expect((await counts()).users).toBe(before.users);
  });

  it('refuses another provider vouching for the same email (no takeover)', async () => {
    const mine = await createProvider();
    idp.accounts.set('dave-sub', { email: 'dave@corp.example', email_verified: true, groups: ['rampart-analysts'] });
    await sessionOf(await signIn(mine, 'dave-sub'));
    const theirs = await createProvider({}, other);
    other.accounts.set('mallory-sub', { email: 'dave@corp.example', email_verified: true, groups: ['rampart-analysts'] });
    const before = await counts();
    expectRefused(await signIn(theirs, 'mallory-sub', other), /signs in through another identity provider/);
    expect(await counts()).toEqual(before);
  });

  it('refuses an unverified email and an email outside the allowed domains, creating nothing', async () => {
    const providerId = await createProvider();
    idp.accounts.set('eve-sub', { email: 'eve@corp.example', email_verified: false, groups: ['rampart-analysts'] });
    idp.accounts.set('frank-sub', { email: 'frank@elsewhere.example', email_verified: true, groups: ['rampart-analysts'] });
    const before = await counts();
    expectRefused(await signIn(providerId, 'eve-sub'), /does not vouch for the email address eve@corp.example/);
    expectRefused(await signIn(providerId, 'frank-sub'), /not in a domain allowed/);
    expect(await counts()).toEqual(before);
    const refusals = await t.database.db.selectFrom('auditLogs').select('metadata').where('action', '=', 'identityProvider.signIn.refused').where('resourceId', '=', providerId).execute();
    expect(refusals.map((r) => (r.metadata as { code: string }).code)).toEqual(['email_refused', 'email_refused']);
  });

  it('refuses a tampered state, a state from another browser, and a replayed callback', async () => {
    const providerId = await createProvider();
    idp.accounts.set('gina-sub', { email: 'gina@corp.example', email_verified: true, groups: ['rampart-analysts'] });
    const before = await counts();
    const { authorizationUrl, cookie } = await startLogin(providerId);
    const back = await idp.authorize(authorizationUrl, 'gina-sub');
    const tampered = new URL(back);
    tampered.searchParams.set('state', `${back.searchParams.get('state')}x`);
    expectRefused(await callback(tampered, cookie), /did not start in this browser, or its state was altered/);
    expectRefused(await callback(back, ''), /did not start in this browser/);
    expect(await counts()).toEqual(before);
    await sessionOf(await callback(back, cookie));
    const after = await counts();
    expectRefused(await callback(back, cookie), /expired or was already used/);
    expect(await counts()).toEqual(after);
  });

  it('refuses a replayed code under a fresh state', async () => {
    const providerId = await createProvider();
    idp.accounts.set('hank-sub', { email: 'hank@corp.example', email_verified: true, groups: ['rampart-analysts'] });
    const first = await startLogin(providerId);
    const back = await idp.authorize(first.authorizationUrl, 'hank-sub');
    await sessionOf(await callback(back, first.cookie));
    const before = await counts();
    const fresh = await startLogin(providerId);
    const replay = new URL(back);
    replay.searchParams.set('state', fresh.state);
    expectRefused(await callback(replay, fresh.cookie), /could not be verified/);
    expect(await counts()).toEqual(before);
  });

  it('refuses an ID token whose nonce is not the one sent', async () => {
    const providerId = await createProvider();
    idp.accounts.set('ivy-sub', { email: 'ivy@corp.example', email_verified: true, groups: ['rampart-analysts'] });
    const before = await counts();
    const { authorizationUrl, cookie } = await startLogin(providerId);
    // The provider is asked for another nonce than the one this sign-in keeps.
    const url = new URL(authorizationUrl);
    url.searchParams.set('nonce', 'a-nonce-an-attacker-chose');
    expectRefused(await callback(await idp.authorize(url.href, 'ivy-sub'), cookie), /could not be verified.*nonce/);
    expect(await counts()).toEqual(before);
  });

  it('refuses an ID token signed by a key the issuer does not publish', async () => {
    const providerId = await createProvider();
    idp.accounts.set('jack-sub', { email: 'jack@corp.example', email_verified: true, groups: ['rampart-analysts'] });
    const before = await counts();
    idp.jwksOverride = await foreignJwks();
    try {
      expectRefused(await signIn(providerId, 'jack-sub'), /could not be verified/);
    } finally {
      idp.jwksOverride = null;
    }
    expect(await counts()).toEqual(before);
  });

  it('refuses another issuer\'s answer to this sign-in (mix-up)', async () => {
    const honest = await createProvider();
    await createProvider({}, other);
    other.accounts.set('kim-sub', { email: 'kim@corp.example', email_verified: true, groups: ['rampart-analysts'] });
    const before = await counts();
    const { authorizationUrl, cookie } = await startLogin(honest);
    // The request meant for the honest provider is answered by the other one (same client id and redirect URI there).
    const atOther = new URL(authorizationUrl);
    const otherOrigin = new URL(other.issuer);
    atOther.host = otherOrigin.host;
    const back = await other.authorize(atOther.href, 'kim-sub');
    expect(back.searchParams.get('iss')).toBe(other.issuer);
    expectRefused(await callback(back, cookie), /could not be verified/);
    expect(await counts()).toEqual(before);
  });

  it('answers a page for an unknown provider, and the provider\'s own error', async () => {
    const unknown = await t.app.inject({ url: '/auth/oidc/00000000-0000-4000-8000-000000000000/login' });
    expectRefused(unknown, /does not exist/);
    const providerId = await createProvider();
    const { state, cookie } = await startLogin(providerId);
    const denied = await t.app.inject({ url: `/auth/oidc/callback?error=access_denied&error_description=${encodeURIComponent('<script>x</script>')}&state=${state}`, headers: { cookie } });
    expectRefused(denied, /answered: &lt;script&gt;x&lt;\/script&gt;/);
  });

  it('claims an existing user not yet linked only within the provider\'s allowed email domains', async () => {
    const existing = await t.app.inject({ method: 'POST', url: '/api/users', headers: admin, payload: { email: 'olga@corp.example', name: 'Olga', roleId: analystRoleId } });
    expect(existing.statusCode).toBe(200);
    idp.accounts.set('olga-sub', { email: 'olga@corp.example', email_verified: true, groups: ['rampart-analysts'] });
    // A provider allowing any domain vouches for the email, but may not take over a user it did not create.
    const open = await createProvider({ allowedEmailDomains: [] });
    const before = await counts();
    expectRefused(await signIn(open, 'olga-sub'), /already exists and was not created through .*allowed email domains/);
    expect(await counts()).toEqual(before);
    const refusal = await t.database.db.selectFrom('auditLogs').select('metadata').where('action', '=', 'identityProvider.signIn.refused').where('resourceId', '=', open).executeTakeFirstOrThrow();
    expect(refusal.metadata).toMatchObject({ code: 'claim_refused' });
    // The provider whose allowed domains hold corp.example claims them, once; the sub decides from then on.
    const scoped = await createProvider();
    const session = await sessionOf(await signIn(scoped, 'olga-sub'));
    expect(session.user.id).toBe(existing.json().id);
    expect(await links()).toBe(before.links + 1);
  });

  it('lists the sign-in providers of one organization only', async () => {
    const mine = await createProvider({ name: 'Corp SSO' });
    const theirs = await t.app.inject({
      method: 'POST',
      url: '/api/identity-providers',
      headers: bearer(t.orgB.apiKey.key),
      payload: { name: 'Org B SSO', issuer: other.issuer, clientId: other.clientId, clientSecret: other.clientSecret, roleMappings: [] },
    });
    expect(theirs.statusCode).toBe(200);
    const ofA = (await t.app.inject({ url: `/auth/oidc/providers?organizationId=${t.orgA.organization.id}` })).json();
    expect(ofA.identityProviders).toContainEqual({ id: mine, name: 'Corp SSO', loginUrl: `${BASE}/auth/oidc/${mine}/login` });
    expect(ofA.identityProviders.map((p: { name: string }) => p.name)).not.toContain('Org B SSO');
    expect(ofA.apiKeySignIn).toBe(true);
    const ofB = (await t.app.inject({ url: `/auth/oidc/providers?organizationId=${t.orgB.organization.id}` })).json();
    expect(ofB).toEqual({ identityProviders: [{ id: theirs.json().id, name: 'Org B SSO', loginUrl: `${BASE}/auth/oidc/${theirs.json().id}/login` }], apiKeySignIn: true });
    // Several organizations and none named: nobody's providers; an unknown one: none either; a malformed one: 400.
    expect((await t.app.inject({ url: '/auth/oidc/providers' })).json()).toEqual({ identityProviders: [], apiKeySignIn: true });
    expect((await t.app.inject({ url: '/auth/oidc/providers?organizationId=00000000-0000-4000-8000-000000000000' })).json()).toEqual({ identityProviders: [], apiKeySignIn: true });
    const bad = await t.app.inject({ url: '/auth/oidc/providers?organizationId=acme' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issues).toEqual([expect.objectContaining({ path: 'organizationId', message: 'must be a UUID' })]);
    // A refusal's way back names the provider's organization.
    idp.accounts.set('zed-sub', { email: 'zed@corp.example', email_verified: false });
    const refused = await signIn(mine, 'zed-sub');
    expect(refused.body).toContain(`href="${BASE}/sign-in?organization=${t.orgA.organization.id}"`);
  });

  it('keeps the last Super Admin\'s role when their groups map elsewhere', async () => {
    const providerId = await createProvider();
    idp.accounts.set('root-sub', { email: 'admin@a.test', email_verified: true, groups: ['rampart-analysts'] });
    await t.app.inject({ method: 'PATCH', url: `/api/identity-providers/${providerId}`, headers: admin, payload: { allowedEmailDomains: ['a.test'] } });
    const session = await sessionOf(await signIn(providerId, 'root-sub'));
    expect(session.user.id).toBe(t.orgA.user.id);
    expect(session.role.name).toBe('Super Admin');
  });
});
