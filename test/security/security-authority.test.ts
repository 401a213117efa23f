import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';
import { PERMISSIONS } from '../../src/platform/auth/permissions.js';

/** Issue 19 items 1–2: no privilege escalation through users, keys and roles; the organization keeps a Super Admin. */
let t: TestContext;
let admin: Record<string, string>;
let manager: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  manager = await userWithPermissions(t.database.db, t.orgA.organization.id, ['setting.users.manage', 'setting.perms.manage', 'setting.apiKey.manage']);
});
afterAll(() => t.close());

const patchUser = (id: string, payload: object, headers: Record<string, string>) => t.app.inject({ method: 'PATCH', url: `/api/users/${id}`, headers, payload });

async function analystRoleId(): Promise<string> {
  const roles = (await t.app.inject({ url: '/api/roles', headers: admin })).json().roles as { id: string; name: string }[];
  return roles.find((r) => r.name === 'Analyst')!.id;
}

describe('a user manager cannot lock out the Super Admin', () => {
  it('refuses demoting, deactivating and revoking the key of a user who holds permissions the actor lacks (403 naming them)', async () => {
    const headers = bearer(manager.key);
    const adminId = t.orgA.user.id;
    const missing = PERMISSIONS.filter((p) => !['setting.users.manage', 'setting.perms.manage', 'setting.apiKey.manage'].includes(p));
    // A role the manager may hand out (it holds all of it): only the target's power stops it.
    const weakRoleId = (await userWithPermissions(t.database.db, t.orgA.organization.id, ['setting.users.manage'])).roleId;
    const demote = await patchUser(adminId, { roleId: weakRoleId }, headers);
    expect(demote.statusCode).toBe(403);
    expect(demote.json()).toEqual({ error: 'Missing required permissions', missingPerms: missing });
    const deactivate = await patchUser(adminId, { deactivated: true }, headers);
    expect(deactivate.statusCode).toBe(403);
    const revoke = await t.app.inject({ method: 'DELETE', url: `/api/api-keys/${t.orgA.apiKey.id}`, headers });
    expect(revoke.statusCode).toBe(403);
    expect(revoke.json().missingPerms).toEqual(missing);
    // Nothing changed: the Super Admin's key still works.
    expect((await t.app.inject({ url: '/api/users', headers: admin })).statusCode).toBe(200);
  });

  it('the last active Super Admin is never demoted, deactivated or left without a working key (409)', async () => {
    // A custom role holding every permission may act on anyone, but not take away the last Super Admin.
    const strong = await userWithPermissions(t.database.db, t.orgA.organization.id, [...PERMISSIONS]);
    const headers = bearer(strong.key);
    const adminId = t.orgA.user.id;
    const demote = await patchUser(adminId, { roleId: await analystRoleId() }, headers);
    expect(demote.statusCode).toBe(409);
    expect(demote.json()).toEqual({ error: expect.stringContaining("last active Super Admin") });
    expect((await patchUser(adminId, { deactivated: true }, headers)).statusCode).toBe(409);
    const revoke = await t.app.inject({ method: 'DELETE', url: `/api/api-keys/${t.orgA.apiKey.id}`, headers });
    expect(revoke.statusCode).toBe(409);
    expect(revoke.json()).toEqual({ error: expect.stringContaining('last working key') });

    // With a second Super Admin, the first may be deactivated.
    const superRoleId = t.orgA.user.roleId;
    const second = await t.app.inject({ method: 'POST', url: '/api/users', headers: admin, payload: { email: 'second.admin@a.test', roleId: superRoleId } });
    expect(second.statusCode, second.body).toBe(200);
    const key = await t.app.inject({ method: 'POST', url: '/api/api-keys', headers: admin, payload: { name: 'second', userId: second.json().id } });
    expect(key.statusCode, key.body).toBe(200);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/api-keys/${t.orgA.apiKey.id}`, headers })).statusCode).toBe(200);
    expect((await patchUser(adminId, { deactivated: true }, bearer(key.json().key))).statusCode).toBe(200);
    // Now the second is the last one.
    expect((await patchUser(second.json().id, { deactivated: true }, headers)).statusCode).toBe(409);
  });
});

describe('setting.perms.manage holds every permission involved', () => {
  it('cannot remove a permission it does not hold, nor edit or rename a stronger role', async () => {
    const role = await t.app.inject({ method: 'POST', url: '/api/roles', headers: bearer((await userWithPermissions(t.database.db, t.orgA.organization.id, [...PERMISSIONS])).key), payload: { name: 'Intel lead', permissions: ['intel.read', 'intel.manage'] } });
    expect(role.statusCode, role.body).toBe(200);
    const roleId = role.json().id;
    const headers = bearer(manager.key);
    const remove = await t.app.inject({ method: 'POST', url: `/api/roles/${roleId}/perms`, headers, payload: { toAdd: [], toRemove: ['intel.manage'] } });
    expect(remove.statusCode).toBe(403);
    expect(remove.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['intel.manage'] });
    const rename = await t.app.inject({ method: 'PUT', url: `/api/roles/${roleId}`, headers, payload: { name: 'Renamed' } });
    expect(rename.statusCode).toBe(403);
    expect(rename.json().missingPerms).toEqual(['intel.read', 'intel.manage']);
  });
});
