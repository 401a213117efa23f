import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';

let t: TestContext;
let admin: Record<string, string>;
let manager: TestUser;
let analystRoleId: string;
let superAdminRoleId: string;
let orgBAnalystRoleId: string;

const FORBIDDEN = { error: 'Missing required permissions', missingPerms: ['setting.identityProviders.manage'] };

async function systemRoleId(organizationId: string, name: string): Promise<string> {
  return (await t.database.db.selectFrom('roles').select('id').where('organizationId', '=', organizationId).where('name', '=', name).executeTakeFirstOrThrow()).id;
}

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_BASE_URL: 'https://rampart.example.com' } });
  admin = bearer(t.orgA.apiKey.key);
  analystRoleId = await systemRoleId(t.orgA.organization.id, 'Analyst');
  superAdminRoleId = await systemRoleId(t.orgA.organization.id, 'Super Admin');
  orgBAnalystRoleId = await systemRoleId(t.orgB.organization.id, 'Analyst');
  manager = await userWithPermissions(t.database.db, t.orgA.organization.id, ['setting.identityProviders.manage', 'intel.read']);
});
afterAll(() => t.close());

const body = (over: Record<string, unknown> = {}) => ({
  name: 'Okta',
  issuer: 'https://acme.okta.com/',
  clientId: '0oa1b2c3d4',
  clientSecret: 'okta-SECRET-value-123',
  roleMappings: [{ group: 'rampart-analysts', roleId: analystRoleId }],
  ...over,
});
const post = (payload: object, headers = admin) => t.app.inject({ method: 'POST', url: '/api/identity-providers', headers, payload });
const patch = (id: string, payload: object, headers = admin) => t.app.inject({ method: 'PATCH', url: `/api/identity-providers/${id}`, headers, payload });

describe('identity providers API', () => {
  it('creates with defaults, never answers the secret, stores it encrypted, audits', async () => {
    const res = await post(body({ name: 'Okta main' }));
    expect(res.statusCode).toBe(200);
    const p = res.json();
    expect(p).toEqual({
      id: expect.any(String),
      organizationId: t.orgA.organization.id,
      name: 'Okta main',
      issuer: 'https://acme.okta.com',
      clientId: '0oa1b2c3d4',
      hasClientSecret: true,
      scopes: ['openid', 'email', 'profile'],
      groupsClaim: 'groups',
      allowedEmailDomains: [],
      roleMappings: [{ group: 'rampart-analysts', roleId: analystRoleId }],
      defaultRoleId: null,
      loginUrl: `https://rampart.example.com/auth/oidc/${p.id}/login`,
      redirectUri: 'https://rampart.example.com/auth/oidc/callback',
      scimBaseUrl: 'https://rampart.example.com/scim/v2',
      hasScimToken: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(res.body).not.toContain('SECRET');
    const raw = await sql<{ row: string }>`SELECT identity_providers::text AS row FROM identity_providers WHERE id = ${p.id}`.execute(t.database.db);
    expect(raw.rows[0]!.row).not.toContain('okta-SECRET');
    const got = await t.app.inject({ url: `/api/identity-providers/${p.id}`, headers: admin });
    expect(got.json()).toEqual(p);
    const list = await t.app.inject({ url: '/api/identity-providers', headers: bearer(manager.key) });
    expect(list.json().identityProviders).toContainEqual(p);
    const audit = await t.database.db.selectFrom('auditLogs').select(['action', 'metadata']).where('resourceId', '=', p.id).execute();
    expect(audit).toEqual([{ action: 'identityProvider.create', metadata: { name: 'Okta main', issuer: 'https://acme.okta.com' } }]);
  });

  it('takes every optional field', async () => {
    const res = await post(body({ name: 'Entra', issuer: 'https://login.microsoftonline.com/tenant-id/v2.0', scopes: ['openid', 'email', 'profile', 'offline_access'], groupsClaim: 'roles', allowedEmailDomains: ['Example.COM'], defaultRoleId: analystRoleId }));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ scopes: ['openid', 'email', 'profile', 'offline_access'], groupsClaim: 'roles', allowedEmailDomains: ['example.com'], defaultRoleId: analystRoleId });
  });

  it('refuses bad input with the exact issues', async () => {
    const res = await post({ name: '', issuer: 'ftp://x', clientId: 'c', roleMappings: [{ group: 'g', roleId: 'nope' }], scopes: ['email'], allowedEmailDomains: ['not a domain'], extra: 1 });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Validation failed');
    expect(res.json().issues.map((i: { path: string }) => i.path).sort()).toEqual(['allowedEmailDomains.0', 'clientSecret', 'extra', 'issuer', 'name', 'roleMappings.0.roleId', 'scopes']);
    const noOpenid = await post(body({ scopes: ['email'] }));
    expect(noOpenid.json()).toEqual({ error: 'Validation failed', issues: [{ path: 'scopes', message: 'must include openid', code: 'custom', location: 'body' }] });
    const userinfo = await post(body({ issuer: 'https://user:pw@idp.example.com' }));
    expect(userinfo.statusCode).toBe(400);
    expect(userinfo.json().issues[0].path).toBe('issuer');
  });

  it('refuses a role of another organization, and a role the caller could not grant', async () => {
    const other = await post(body({ name: 'x', roleMappings: [{ group: 'g', roleId: orgBAnalystRoleId }], defaultRoleId: orgBAnalystRoleId }));
    expect(other.statusCode).toBe(400);
    expect(other.json()).toEqual({
      error: 'Validation failed',
      issues: [
        { path: 'roleMappings.0.roleId', message: 'No such role in this organization', code: 'not_found', location: 'body' },
        { path: 'defaultRoleId', message: 'No such role in this organization', code: 'not_found', location: 'body' },
      ],
    });
    const escalate = await post(body({ name: 'y', roleMappings: [{ group: 'admins', roleId: superAdminRoleId }] }), bearer(manager.key));
    expect(escalate.statusCode).toBe(403);
    expect(escalate.json().error).toBe('Missing required permissions');
    expect(escalate.json().missingPerms).toContain('setting.users.manage');
    expect(escalate.json().missingPerms).not.toContain('intel.read');
  });

  it('answers 409 for a duplicate name', async () => {
    await post(body({ name: 'Dup' }));
    const dup = await post(body({ name: 'Dup' }));
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toEqual({ error: 'An identity provider named "Dup" already exists' });
  });

  it('patches only what is given; the secret is bound to the issuer origin', async () => {
    const p = (await post(body({ name: 'Patchable' }))).json();
    const renamed = await patch(p.id, { name: 'Patched', roleMappings: [], defaultRoleId: analystRoleId });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'Patched', issuer: p.issuer, clientId: p.clientId, roleMappings: [], defaultRoleId: analystRoleId });
    const samePath = await patch(p.id, { issuer: 'https://acme.okta.com/oauth2/default' });
    expect(samePath.statusCode).toBe(200);
    const moved = await patch(p.id, { issuer: 'https://evil.example.net' });
    expect(moved.statusCode).toBe(400);
    expect(moved.json()).toEqual({
      error: 'Validation failed',
      issues: [{ path: 'clientSecret', message: 'is required when the issuer moves to another origin (the stored secret stays bound to the old one)', code: 'required', location: 'body' }],
    });
    const before = await t.database.db.selectFrom('identityProviders').select('clientSecretCiphertext').where('id', '=', p.id).executeTakeFirstOrThrow();
    const movedWithSecret = await patch(p.id, { issuer: 'https://idp.example.net', clientSecret: 'new-secret' });
    expect(movedWithSecret.statusCode).toBe(200);
    const after = await t.database.db.selectFrom('identityProviders').select('clientSecretCiphertext').where('id', '=', p.id).executeTakeFirstOrThrow();
    expect(t.secrets.decrypt(after.clientSecretCiphertext)).toBe('new-secret');
    expect(after.clientSecretCiphertext).not.toBe(before.clientSecretCiphertext);
    const empty = await patch(p.id, {});
    expect(empty.json()).toEqual({ error: 'Validation failed', issues: [{ path: '', message: 'Give at least one field to change', code: 'custom', location: 'body' }] });
    const cleared = await patch(p.id, { defaultRoleId: null });
    expect(cleared.json().defaultRoleId).toBeNull();
  });

  it('issues a SCIM token once, hashed at rest, and replaces it', async () => {
    const p = (await post(body({ name: 'Scim' }))).json();
    const first = await t.app.inject({ method: 'POST', url: `/api/identity-providers/${p.id}/scim-token`, headers: admin });
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    const { token } = first.json();
    expect(token).toMatch(/^rsc_[A-Za-z0-9_-]{43}$/);
    const raw = await sql<{ row: string }>`SELECT identity_providers::text AS row FROM identity_providers WHERE id = ${p.id}`.execute(t.database.db);
    expect(raw.rows[0]!.row).not.toContain(token);
    expect((await t.app.inject({ url: `/api/identity-providers/${p.id}`, headers: admin })).json().hasScimToken).toBe(true);
    const second = (await t.app.inject({ method: 'POST', url: `/api/identity-providers/${p.id}/scim-token`, headers: admin })).json();
    expect(second.token).not.toBe(token);
  });

  it('deletes, then answers 404', async () => {
    const p = (await post(body({ name: 'Gone' }))).json();
    const del = await t.app.inject({ method: 'DELETE', url: `/api/identity-providers/${p.id}`, headers: admin });
    expect(del.json()).toEqual({ success: true });
    const again = await t.app.inject({ method: 'DELETE', url: `/api/identity-providers/${p.id}`, headers: admin });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ error: 'Identity provider not found' });
  });

  it('hides another organization\'s providers (404 on every route)', async () => {
    const p = (await post(body({ name: 'Mine' }))).json();
    const b = bearer(t.orgB.apiKey.key);
    const notFound = { error: 'Identity provider not found' };
    for (const res of [
      await t.app.inject({ url: `/api/identity-providers/${p.id}`, headers: b }),
      await patch(p.id, { name: 'stolen' }, b),
      await t.app.inject({ method: 'DELETE', url: `/api/identity-providers/${p.id}`, headers: b }),
      await t.app.inject({ method: 'POST', url: `/api/identity-providers/${p.id}/scim-token`, headers: b }),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual(notFound);
    }
    expect((await t.app.inject({ url: '/api/identity-providers', headers: b })).json()).toEqual({ identityProviders: [] });
  });

  it('needs setting.identityProviders.manage on every route', async () => {
    const reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['setting.users.manage', 'audit.read']);
    const h = bearer(reader.key);
    const id = (await post(body({ name: 'Perm' }))).json().id;
    for (const res of [
      await t.app.inject({ url: '/api/identity-providers', headers: h }),
      await t.app.inject({ url: `/api/identity-providers/${id}`, headers: h }),
      await post(body({ name: 'x' }), h),
      await patch(id, { name: 'x' }, h),
      await t.app.inject({ method: 'DELETE', url: `/api/identity-providers/${id}`, headers: h }),
      await t.app.inject({ method: 'POST', url: `/api/identity-providers/${id}/scim-token`, headers: h }),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual(FORBIDDEN);
    }
  });

  it('answers 400 for a malformed id', async () => {
    const res = await t.app.inject({ url: '/api/identity-providers/nope', headers: admin });
    expect(res.json()).toEqual({ error: 'Validation failed', issues: [{ path: 'id', message: 'must be a UUID', code: 'invalid_format', location: 'params' }] });
  });

  it('lists providers publicly for the sign-in screen: name and login URL only', async () => {
    const res = await t.app.inject({ url: `/auth/oidc/providers?organizationId=${t.orgA.organization.id}` });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json()).sort()).toEqual(['apiKeySignIn', 'identityProviders']);
    const first = res.json().identityProviders[0];
    expect(Object.keys(first).sort()).toEqual(['id', 'loginUrl', 'name']);
  });
});
