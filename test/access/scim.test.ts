import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';

/**
 * SCIM 2.0 at /scim/v2, replaying Okta's and Microsoft Entra ID's documented requests
 * (test/fixtures/scim/, with their sources): provisioning, updates, group pushes that change
 * roles, and deactivation that ends the person's console session and API keys at once.
 */
const okta = JSON.parse(fs.readFileSync(new URL('../fixtures/scim/okta.json', import.meta.url), 'utf8'));
const entra = JSON.parse(fs.readFileSync(new URL('../fixtures/scim/entra.json', import.meta.url), 'utf8'));
const SCIM = 'application/scim+json';

let t: TestContext;
let admin: Record<string, string>;
let analystRoleId: string;
let responderRoleId: string;

/** The documented request with each documented id replaced by Rampart's (which must be there). */
function replay(body: unknown, ids: Record<string, string>): unknown {
  let text = JSON.stringify(body);
  for (const [documented, real] of Object.entries(ids)) {
    expect(text, `the fixture no longer carries ${documented}`).toContain(documented);
    text = text.split(documented).join(real);
  }
  return JSON.parse(text);
}

async function providerWithToken(name: string, over: Record<string, unknown> = {}) {
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/identity-providers',
    headers: admin,
    payload: {
      name,
      issuer: 'https://idp.example.com',
      clientId: 'c',
      clientSecret: 's',
      roleMappings: [
        { group: 'Test SCIMv2', roleId: responderRoleId },
        { group: 'displayName', roleId: responderRoleId },
      ],
      defaultRoleId: analystRoleId,
      ...over,
    },
  });
  expect(created.statusCode).toBe(200);
  const token = (await t.app.inject({ method: 'POST', url: `/api/identity-providers/${created.json().id}/scim-token`, headers: admin })).json().token as string;
  const scim = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t.app.inject({ method, url: `/scim/v2${url}`, headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': SCIM } : {}) }, ...(payload ? { payload: JSON.stringify(payload) } : {}) });
  return { id: created.json().id as string, token, scim };
}

async function userState(userId: string) {
  return (await t.app.inject({ url: `/api/users/${userId}`, headers: admin })).json();
}

/** An API key and a console session of the user, to prove deactivation ends both. */
async function keyAndSession(userId: string) {
  const key = await t.app.inject({ method: 'POST', url: '/api/api-keys', headers: admin, payload: { name: 'scim-test', userId } });
  expect(key.statusCode).toBe(200);
  const apiKey = key.json().key as string;
  const session = await t.app.inject({ method: 'POST', url: '/api/session', payload: { apiKey } });
  expect(session.statusCode).toBe(200);
  const cookie = String(session.headers['set-cookie']).split(';')[0]!;
  expect((await t.app.inject({ url: '/api/session', headers: { cookie } })).statusCode).toBe(200);
  expect((await t.app.inject({ url: '/api/alerts', headers: bearer(apiKey) })).statusCode).toBe(200);
  return { apiKey, cookie };
}

async function expectLockedOut(access: { apiKey: string; cookie: string }) {
  const viaSession = await t.app.inject({ url: '/api/session', headers: { cookie: access.cookie } });
  expect(viaSession.statusCode).toBe(401);
  const viaKey = await t.app.inject({ url: '/api/alerts', headers: bearer(access.apiKey) });
  expect(viaKey.statusCode).toBe(401);
}

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_BASE_URL: 'https://rampart.example.com' } });
  admin = bearer(t.orgA.apiKey.key);
  analystRoleId = (await t.database.db.selectFrom('roles').select('id').where('organizationId', '=', t.orgA.organization.id).where('name', '=', 'Analyst').executeTakeFirstOrThrow()).id;
  const responder = await t.app.inject({ method: 'POST', url: '/api/roles', headers: admin, payload: { name: 'Responder', permissions: ['alert.read', 'alert.triage'] } });
  responderRoleId = responder.json().id;
});
afterAll(() => t.close());

describe('SCIM: Okta\'s documented requests', () => {
  it('provisions, finds, renames, moves between groups and deactivates', async () => {
    const { scim } = await providerWithToken('Okta');
    const created = await scim('POST', '/Users', okta.createUser);
    expect(created.statusCode).toBe(201);
    expect(created.headers['content-type']).toBe(SCIM);
    const user = created.json();
    expect(user).toMatchObject({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'test.user@okta.local', externalId: '00ujl29u0le5T6Aj10h7', displayName: 'Test User', active: true, meta: { resourceType: 'User', location: `https://rampart.example.com/scim/v2/Users/${user.id}` } });
    expect(await userState(user.id)).toMatchObject({ email: 'test.user@okta.local', name: 'Test User', roleId: analystRoleId, deactivated: false });

    const found = await scim('GET', `/Users?filter=${encodeURIComponent(okta.findUserFilter)}&startIndex=1&count=100`);
    expect(found.json()).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 1, startIndex: 1, itemsPerPage: 1, Resources: [{ id: user.id }] });
    const none = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "nobody@okta.local"')}`);
    expect(none.json()).toMatchObject({ totalResults: 0, Resources: [] });
    const again = await scim('POST', '/Users', okta.createUser);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '409', scimType: 'uniqueness', detail: 'User test.user@okta.local already exists' });

    const renamed = await scim('PATCH', `/Users/${user.id}`, okta.updateUserName);
    expect(renamed.statusCode).toBe(200);
    expect((await userState(user.id)).name).toBe('Another User');

    const second = (await scim('POST', '/Users', { ...okta.createUser, userName: 'second@okta.local', externalId: 'x2', emails: [] })).json();
    const group = (await scim('POST', '/Groups', okta.createGroup)).json();
    expect(group).toMatchObject({ displayName: 'Test SCIMv2', members: [] });
    await scim('PATCH', `/Groups/${group.id}`, { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'add', path: 'members', value: [{ value: second.id }] }] });
    expect((await userState(second.id)).roleId).toBe(responderRoleId);
    const rename = await scim('PATCH', `/Groups/${group.id}`, replay(okta.renameGroup, { 'abf4dd94-a4c0-4f67-89c9-76b03340cb9b': group.id }));
    expect(rename.statusCode).toBe(200);
    const moved = await scim('PATCH', `/Groups/${group.id}`, replay(okta.updateGroupMembership, { '89bb1940-b905-4575-9e7f-6f887cfb368e': second.id, '23a35c27-23d3-4c03-b4c5-6443c09e7173': user.id }));
    expect(moved.statusCode).toBe(200);
    expect(moved.json().members).toEqual([{ value: user.id, display: 'test.user@okta.local', $ref: `https://rampart.example.com/scim/v2/Users/${user.id}` }]);
    expect((await userState(user.id)).roleId).toBe(responderRoleId);
    expect((await userState(second.id)).roleId).toBe(analystRoleId);

    const access = await keyAndSession(user.id);
    const deactivated = await scim('PATCH', `/Users/${user.id}`, okta.deactivateUser);
    expect(deactivated.statusCode).toBe(200);
    expect(deactivated.json().active).toBe(false);
    await expectLockedOut(access);
    expect(await userState(user.id)).toMatchObject({ deactivated: true });
    const audit = await t.database.db.selectFrom('auditLogs').select(['action', 'metadata']).where('resourceId', '=', user.id).where('action', '=', 'user.deactivate').execute();
    expect(audit).toEqual([{ action: 'user.deactivate', metadata: expect.objectContaining({ via: 'scim', sessionsEnded: 1 }) }]);
  });
});

describe('SCIM: Microsoft Entra ID\'s documented requests', () => {
  it('provisions, updates multi-valued attributes, adds and removes members, disables, deletes', async () => {
    const { scim } = await providerWithToken('Entra');
    const created = await scim('POST', '/Users', entra.createUser);
    expect(created.statusCode).toBe(201);
    const user = created.json();
    expect(user).toMatchObject({ userName: 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1', externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef', active: true });
    expect(await userState(user.id)).toMatchObject({ email: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com', name: 'givenName familyName', roleId: analystRoleId });
    const found = await scim('GET', `/Users?filter=${encodeURIComponent(entra.findUserFilter)}`);
    expect(found.json()).toMatchObject({ totalResults: 1, Resources: [{ id: user.id }] });

    const updated = await scim('PATCH', `/Users/${user.id}`, entra.updateUserMultiValued);
    expect(updated.statusCode).toBe(200);
    expect((await userState(user.id)).email).toBe('updatedEmail@microsoft.com');

    const group = (await scim('POST', '/Groups', entra.createGroup)).json();
    expect(group).toMatchObject({ displayName: 'displayName', externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159' });
    const byName = await scim('GET', `/Groups?filter=${encodeURIComponent('displayName eq "displayName"')}&excludedAttributes=members`);
    expect(byName.json().Resources).toEqual([expect.not.objectContaining({ members: expect.anything() })]);
    const added = await scim('PATCH', `/Groups/${group.id}`, replay(entra.addMembers, { f648f8d5ea4e4cd38e9c: user.id }));
    expect(added.statusCode).toBe(200);
    expect((await userState(user.id)).roleId).toBe(responderRoleId);
    const removed = await scim('PATCH', `/Groups/${group.id}`, replay(entra.removeMembers, { a2e20b4de1b44d7fba9f: user.id }));
    expect(removed.json().members).toEqual([]);
    expect((await userState(user.id)).roleId).toBe(analystRoleId);
    await scim('PATCH', `/Groups/${group.id}`, replay(entra.addMembers, { f648f8d5ea4e4cd38e9c: user.id }));
    const filtered = await scim('PATCH', `/Groups/${group.id}`, replay(entra.removeMemberFiltered, { '16b083c0-f1e8-4544-b6ee-27a28dc98761': user.id }));
    expect(filtered.json().members).toEqual([]);

    const access = await keyAndSession(user.id);
    const disabled = await scim('PATCH', `/Users/${user.id}`, entra.disableUser);
    expect(disabled.json().active).toBe(false);
    await expectLockedOut(access);

    const deleted = await scim('DELETE', `/Users/${user.id}`);
    expect(deleted.statusCode).toBe(204);
    expect((await scim('GET', `/Users/${user.id}`)).statusCode).toBe(404);
    expect(await userState(user.id)).toMatchObject({ deactivated: true });
  });

  it('deletes an active user: deactivated at once', async () => {
    const { scim } = await providerWithToken('Entra delete');
    const user = (await scim('POST', '/Users', { ...entra.createUser, userName: 'gone@corp.example', emails: [] })).json();
    const access = await keyAndSession(user.id);
    expect((await scim('DELETE', `/Users/${user.id}`)).statusCode).toBe(204);
    await expectLockedOut(access);
  });
});

describe('SCIM: errors', () => {
  it('answers SCIM errors: no token, a wrong token, another provider\'s user, bad filter, bad active, no default role', async () => {
    const mine = await providerWithToken('Errors');
    const theirs = await providerWithToken('Other');
    const noToken = await t.app.inject({ url: '/scim/v2/Users' });
    expect(noToken.statusCode).toBe(401);
    expect(noToken.headers['www-authenticate']).toBe('Bearer realm="rampart-scim"');
    expect(noToken.json()).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '401', detail: 'Missing or invalid SCIM bearer token' });
    const apiKey = await t.app.inject({ url: '/scim/v2/Users', headers: admin });
    expect(apiKey.statusCode).toBe(401);
    const user = (await theirs.scim('POST', '/Users', { ...okta.createUser, userName: 'theirs@corp.example' })).json();
    const hidden = await mine.scim('GET', `/Users/${user.id}`);
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json()).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '404', detail: `User ${user.id} not found` });
    expect((await mine.scim('PATCH', `/Users/${user.id}`, okta.deactivateUser)).statusCode).toBe(404);
    const takeover = await mine.scim('POST', '/Users', { ...okta.createUser, userName: 'theirs@corp.example' });
    expect(takeover.json()).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '409', scimType: 'uniqueness', detail: 'User theirs@corp.example belongs to another identity provider' });
    const badFilter = await mine.scim('GET', `/Users?filter=${encodeURIComponent('userName co "x"')}`);
    expect(badFilter.json()).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '400', scimType: 'invalidFilter', detail: 'Unsupported filter; use userName eq "…" or externalId eq "…"' });
    const own = (await mine.scim('POST', '/Users', { ...okta.createUser, userName: 'mine@corp.example' })).json();
    const badActive = await mine.scim('PATCH', `/Users/${own.id}`, { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'active', value: 'maybe' }] });
    expect(badActive.json()).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '400', scimType: 'invalidValue', detail: 'active must be a boolean, got "maybe"' });
    expect((await userState(own.id)).deactivated).toBe(false);
    const noDefault = await providerWithToken('No default', { defaultRoleId: null });
    const refused = await noDefault.scim('POST', '/Users', { ...okta.createUser, userName: 'new@corp.example' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().detail).toMatch(/no defaultRoleId/);
  });

  it('never deactivates the organization\'s last Super Admin', async () => {
    // Linking an existing user needs their domain in the provider's allowedEmailDomains.
    const unscoped = await providerWithToken('Any domain');
    const claim = await unscoped.scim('POST', '/Users', { ...okta.createUser, userName: 'admin@a.test' });
    expect(claim.json()).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '409',
      scimType: 'uniqueness',
      detail: 'User admin@a.test already exists in Rampart; this provider may link existing users only in its allowedEmailDomains',
    });
    const { scim } = await providerWithToken('Admin link', { allowedEmailDomains: ['a.test'] });
    const linked = (await scim('POST', '/Users', { ...okta.createUser, userName: 'admin@a.test' })).json();
    expect(linked.id).toBe(t.orgA.user.id);
    const res = await scim('PATCH', `/Users/${linked.id}`, okta.deactivateUser);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ status: '409', scimType: 'mutability' });
    expect((await userState(linked.id)).deactivated).toBe(false);
  });
});
