import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../src/platform/auth/permissions.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const FORBIDDEN = { error: 'Missing required permissions', missingPerms: ['setting.perms.manage'] };
const UNKNOWN_ID = '01890000-0000-7000-8000-000000000000';
const NOT_A_PERMISSION = `must be one of: ${PERMISSIONS.join(', ')}`;
const ANALYST_PERMS = ['agent.execute', 'agent.read', 'alert.read', 'alert.triage', 'approval.read', 'audit.read', 'blocklist.read', 'destination.read', 'hunt.read', 'intel.read', 'tool.read', 'tool.use'];

let t: TestContext;
let admin: Record<string, string>;
let permsManager: TestUser;
let nobody: TestUser;
let superAdminRoleId: string;
let analystRoleId: string;

interface Role {
  id: string;
  name: string;
  isSystem: boolean;
  permissions: string[];
}

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  permsManager = await userWithPermissions(t.database.db, t.orgA.organization.id, ['setting.perms.manage', 'intel.read']);
  nobody = await userWithPermissions(t.database.db, t.orgA.organization.id, []);
  superAdminRoleId = t.orgA.user.roleId;
  const analyst = await t.database.db.selectFrom('roles').select('id').where('organizationId', '=', t.orgA.organization.id).where('name', '=', 'Analyst').executeTakeFirstOrThrow();
  analystRoleId = analyst.id;
});
afterAll(() => t.close());

async function createRole(body: unknown, headers = admin) {
  return t.app.inject({ method: 'POST', url: '/api/roles', headers, payload: body as object });
}

async function putRole(id: string, body: unknown, headers = admin) {
  return t.app.inject({ method: 'PUT', url: `/api/roles/${id}`, headers, payload: body as object });
}

async function changePerms(id: string, body: unknown, headers = admin) {
  return t.app.inject({ method: 'POST', url: `/api/roles/${id}/perms`, headers, payload: body as object });
}

function lastAudit(resourceId: string) {
  return t.database.db.selectFrom('auditLogs').selectAll().where('resourceId', '=', resourceId).orderBy('createdAt', 'desc').orderBy('id', 'desc').executeTakeFirst();
}

function validation(path: string, message: string, code: string, location = 'body') {
  return { error: 'Validation failed', issues: [{ path, message, code, location }] };
}

describe('GET /api/roles', () => {
  it('lists the two system roles first, then custom roles by name, to any member', async () => {
    const res = await t.app.inject({ url: '/api/roles', headers: bearer(nobody.key) });
    expect(res.statusCode).toBe(200);
    const roles = res.json().roles as Role[];
    expect(Object.keys(res.json())).toEqual(['roles']);
    expect(roles.slice(0, 2)).toEqual([
      {
        id: analystRoleId,
        organizationId: t.orgA.organization.id,
        name: 'Analyst',
        description: 'Reads everything, runs agents, uses tools and triages alerts.',
        permissions: ANALYST_PERMS,
        isSystem: true,
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      },
      {
        id: superAdminRoleId,
        organizationId: t.orgA.organization.id,
        name: 'Super Admin',
        description: 'Every permission.',
        permissions: [...PERMISSIONS].sort(),
        isSystem: true,
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      },
    ]);
    const custom = roles.slice(2);
    expect(custom.every((r) => !r.isSystem)).toBe(true);
    expect(custom.map((r) => r.name)).toEqual(custom.map((r) => r.name).sort());
    expect(custom.map((r) => r.id)).toEqual(expect.arrayContaining([permsManager.roleId, nobody.roleId]));
  });

  it('shows another organization only its own roles', async () => {
    const res = await t.app.inject({ url: '/api/roles', headers: bearer(t.orgB.apiKey.key) });
    expect(res.statusCode).toBe(200);
    const roles = res.json().roles as Array<Role & { organizationId: string }>;
    expect(roles.every((r) => r.organizationId === t.orgB.organization.id)).toBe(true);
    expect(roles.map((r) => r.id)).not.toContain(analystRoleId);
  });

  it('answers 401 without a key', async () => {
    const res = await t.app.inject({ url: '/api/roles' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="rampart"');
    expect(res.json()).toEqual({ error: 'Missing Authorization header (expected "Bearer <API key>")' });
  });
});

describe('POST /api/roles', () => {
  it('creates a custom role with de-duplicated, sorted permissions, and audits', async () => {
    const res = await createRole({ name: ' Triage bot ', description: 'Reads and triages alerts', permissions: ['alert.triage', 'alert.read', 'alert.triage'] });
    expect(res.statusCode).toBe(200);
    const role = res.json();
    expect(role).toEqual({
      id: expect.stringMatching(UUID),
      organizationId: t.orgA.organization.id,
      name: 'Triage bot',
      description: 'Reads and triages alerts',
      permissions: ['alert.read', 'alert.triage'],
      isSystem: false,
      createdAt: expect.stringMatching(ISO),
      updatedAt: role.createdAt,
    });
    expect(await lastAudit(role.id)).toMatchObject({
      action: 'role.create',
      resourceType: 'role',
      actorUserId: t.orgA.user.id,
      actorApiKeyId: t.orgA.apiKey.id,
      requestId: res.headers['x-request-id'],
      metadata: { name: 'Triage bot', permissions: ['alert.read', 'alert.triage'] },
    });
    const perms = await t.app.inject({ url: `/api/roles/${role.id}/perms`, headers: admin });
    expect(perms.json()).toEqual({ roleId: role.id, permissions: ['alert.read', 'alert.triage'] });
  });

  it('defaults to no permissions and an empty description', async () => {
    const res = await createRole({ name: 'Empty role' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Empty role', description: '', permissions: [], isSystem: false });
  });

  it('answers 409 for a name already taken, including a system role\'s', async () => {
    for (const name of ['Empty role', 'Super Admin']) {
      const res = await createRole({ name });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ error: `A role named "${name}" already exists` });
    }
  });

  it('answers 409, never 500, when the same name is created concurrently', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => createRole({ name: 'Concurrent role' })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    for (const r of results.filter((r) => r.statusCode === 409)) expect(r.json()).toEqual({ error: 'A role named "Concurrent role" already exists' });
  });

  it('allows a name used in another organization', async () => {
    const res = await createRole({ name: 'Empty role' }, bearer(t.orgB.apiKey.key));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ organizationId: t.orgB.organization.id, name: 'Empty role' });
  });

  const cases: Array<[string, unknown, { path: string; message: string; code: string }]> = [
    ['an unknown permission', { name: 'R', permissions: ['intel.read', 'root.everything'] }, { path: 'permissions.1', message: NOT_A_PERMISSION, code: 'invalid_value' }],
    ['permissions that are not an array', { name: 'R', permissions: 'intel.read' }, { path: 'permissions', message: 'Invalid input: expected array, received string', code: 'invalid_type' }],
    ['a missing name', { permissions: [] }, { path: 'name', message: 'Invalid input: expected string, received undefined', code: 'invalid_type' }],
    ['a blank name', { name: '  ' }, { path: 'name', message: 'Too small: expected string to have >=1 characters', code: 'too_small' }],
    ['a name over 100 characters', { name: 'r'.repeat(101) }, { path: 'name', message: 'Too big: expected string to have <=100 characters', code: 'too_big' }],
    ['a description over 1000 characters', { name: 'R', description: 'd'.repeat(1001) }, { path: 'description', message: 'Too big: expected string to have <=1000 characters', code: 'too_big' }],
    ['an unknown field', { name: 'R', isSystem: true }, { path: 'isSystem', message: 'Unknown field', code: 'unrecognized_keys' }],
  ];
  for (const [label, body, issue] of cases) {
    it(`rejects ${label} with 400`, async () => {
      const res = await createRole(body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(validation(issue.path, issue.message, issue.code));
    });
  }

  it('answers 403 without setting.perms.manage, before reading the body', async () => {
    const res = await createRole({ name: 5 }, bearer(nobody.key));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual(FORBIDDEN);
  });

  it('answers 403 naming the permissions the caller would grant without holding them', async () => {
    const res = await createRole({ name: 'Escalation', permissions: ['audit.read', 'intel.read', 'setting.users.manage'] }, bearer(permsManager.key));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['audit.read', 'setting.users.manage'] });
    const ok = await createRole({ name: 'Within reach', permissions: ['intel.read'] }, bearer(permsManager.key));
    expect(ok.statusCode).toBe(200);
    expect(ok.json().permissions).toEqual(['intel.read']);
  });
});

describe('PUT /api/roles/{id}', () => {
  let role: Role;
  beforeAll(async () => {
    role = (await createRole({ name: 'Renamable', permissions: ['intel.read'] })).json();
  });

  it('renames and re-describes a custom role, keeping its permissions, and audits', async () => {
    const res = await putRole(role.id, { name: 'Renamed', description: 'New words' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({ ...role, name: 'Renamed', description: 'New words', updatedAt: expect.stringMatching(ISO) });
    expect(await lastAudit(role.id)).toMatchObject({ action: 'role.update', requestId: res.headers['x-request-id'], metadata: { changed: ['name', 'description'] } });
    const onlyDescription = await putRole(role.id, { description: '' });
    expect(onlyDescription.json()).toMatchObject({ name: 'Renamed', description: '' });
  });

  it('accepts the role\'s own name and answers 409 for another role\'s', async () => {
    expect((await putRole(role.id, { name: 'Renamed' })).statusCode).toBe(200);
    const res = await putRole(role.id, { name: 'Analyst' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'A role named "Analyst" already exists' });
  });

  it('refuses to change a system role (400)', async () => {
    for (const [id, name] of [[superAdminRoleId, 'Super Admin'], [analystRoleId, 'Analyst']] as const) {
      const res = await putRole(id, { name: 'Mine now' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(validation('id', `The system role "${name}" cannot be changed; create a custom role instead`, 'system_role', 'params'));
    }
    const roles = (await t.app.inject({ url: '/api/roles', headers: admin })).json().roles as Role[];
    expect(roles.slice(0, 2).map((r) => r.name)).toEqual(['Analyst', 'Super Admin']);
  });

  it('answers 404 for an unknown id and for another organization\'s role', async () => {
    const orgBRole = (await createRole({ name: 'B only' }, bearer(t.orgB.apiKey.key))).json();
    for (const id of [UNKNOWN_ID, orgBRole.id, t.orgB.user.roleId]) {
      const res = await putRole(id, { name: 'Taken over' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Role not found' });
    }
    const orgBRoles = (await t.app.inject({ url: '/api/roles', headers: bearer(t.orgB.apiKey.key) })).json().roles as Role[];
    expect(orgBRoles.map((r) => r.name)).not.toContain('Taken over');
    expect(orgBRoles.find((r) => r.id === orgBRole.id)?.name).toBe('B only');
  });

  const cases: Array<[string, unknown, { path: string; message: string; code: string }]> = [
    ['an empty body', {}, { path: '', message: 'Give name or description', code: 'custom' }],
    ['a blank name', { name: ' ' }, { path: 'name', message: 'Too small: expected string to have >=1 characters', code: 'too_small' }],
    ['permissions (changed through /perms only)', { permissions: ['audit.read'] }, { path: 'permissions', message: 'Unknown field', code: 'unrecognized_keys' }],
  ];
  for (const [label, body, issue] of cases) {
    it(`rejects ${label} with 400`, async () => {
      const res = await putRole(role.id, body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(validation(issue.path, issue.message, issue.code));
    });
  }

  it('rejects a malformed id with 400', async () => {
    const res = await putRole('analyst', { name: 'x' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(validation('id', 'must be a UUID', 'invalid_format', 'params'));
  });

  it('answers 403 without setting.perms.manage', async () => {
    const res = await putRole(role.id, { name: 'Nope' }, bearer(nobody.key));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual(FORBIDDEN);
  });
});

describe('GET /api/roles/{id}/perms', () => {
  it('answers the role\'s permissions to any member, system roles included', async () => {
    const res = await t.app.inject({ url: `/api/roles/${analystRoleId}/perms`, headers: bearer(nobody.key) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ roleId: analystRoleId, permissions: ANALYST_PERMS });
  });

  it('answers 404 for an unknown id and for another organization\'s role', async () => {
    for (const id of [UNKNOWN_ID, t.orgB.user.roleId]) {
      const res = await t.app.inject({ url: `/api/roles/${id}/perms`, headers: admin });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Role not found' });
    }
  });

  it('rejects a malformed id with 400 and a missing key with 401', async () => {
    const bad = await t.app.inject({ url: '/api/roles/0/perms', headers: admin });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual(validation('id', 'must be a UUID', 'invalid_format', 'params'));
    const anon = await t.app.inject({ url: `/api/roles/${analystRoleId}/perms` });
    expect(anon.statusCode).toBe(401);
    expect(anon.json()).toEqual({ error: 'Missing Authorization header (expected "Bearer <API key>")' });
  });
});

describe('POST /api/roles/{id}/perms', () => {
  let role: Role;
  beforeAll(async () => {
    role = (await createRole({ name: 'Adjustable', permissions: ['intel.read', 'hunt.read'] })).json();
  });

  it('adds and removes in one change, and audits exactly the change', async () => {
    const res = await changePerms(role.id, { toAdd: ['intel.manage', 'alert.read', 'intel.read'], toRemove: ['hunt.read', 'tool.use'] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ roleId: role.id, permissions: ['alert.read', 'intel.manage', 'intel.read'] });
    const got = await t.app.inject({ url: `/api/roles/${role.id}/perms`, headers: admin });
    expect(got.json()).toEqual({ roleId: role.id, permissions: ['alert.read', 'intel.manage', 'intel.read'] });
    expect(await lastAudit(role.id)).toMatchObject({
      action: 'role.permissions.change',
      resourceType: 'role',
      actorUserId: t.orgA.user.id,
      actorApiKeyId: t.orgA.apiKey.id,
      requestId: res.headers['x-request-id'],
      metadata: { toAdd: ['alert.read', 'intel.read', 'intel.manage'], toRemove: ['tool.use', 'hunt.read'] },
    });
  });

  it('treats an omitted list as empty', async () => {
    const res = await changePerms(role.id, { toRemove: ['intel.manage'] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ roleId: role.id, permissions: ['alert.read', 'intel.read'] });
  });

  it('refuses to change a system role (400)', async () => {
    const res = await changePerms(analystRoleId, { toAdd: ['setting.users.manage'] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(validation('id', 'The system role "Analyst" cannot be changed; create a custom role instead', 'system_role', 'params'));
    const perms = await t.app.inject({ url: `/api/roles/${analystRoleId}/perms`, headers: admin });
    expect(perms.json().permissions).toEqual(ANALYST_PERMS);
    const superAdmin = await changePerms(superAdminRoleId, { toRemove: ['audit.read'] });
    expect(superAdmin.statusCode).toBe(400);
    expect(superAdmin.json()).toEqual(validation('id', 'The system role "Super Admin" cannot be changed; create a custom role instead', 'system_role', 'params'));
  });

  it('answers 404 for an unknown id and for another organization\'s role', async () => {
    const orgBRole = (await createRole({ name: 'B adjustable' }, bearer(t.orgB.apiKey.key))).json();
    for (const id of [UNKNOWN_ID, orgBRole.id]) {
      const res = await changePerms(id, { toAdd: ['intel.read'] });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Role not found' });
    }
    const untouched = await t.app.inject({ url: `/api/roles/${orgBRole.id}/perms`, headers: bearer(t.orgB.apiKey.key) });
    expect(untouched.json().permissions).toEqual([]);
  });

  const cases: Array<[string, unknown, { path: string; message: string; code: string }]> = [
    ['an unknown permission to add', { toAdd: ['intel.read', 'intel.delete'] }, { path: 'toAdd.1', message: NOT_A_PERMISSION, code: 'invalid_value' }],
    ['an unknown permission to remove', { toRemove: ['INTEL.READ'] }, { path: 'toRemove.0', message: NOT_A_PERMISSION, code: 'invalid_value' }],
    ['a permission both added and removed', { toAdd: ['intel.read'], toRemove: ['intel.read'] }, { path: 'toRemove', message: 'A permission cannot be both added and removed', code: 'custom' }],
    ['a list that is not an array', { toAdd: 'intel.read' }, { path: 'toAdd', message: 'Invalid input: expected array, received string', code: 'invalid_type' }],
    ['an unknown field', { permissions: ['intel.read'] }, { path: 'permissions', message: 'Unknown field', code: 'unrecognized_keys' }],
  ];
  for (const [label, body, issue] of cases) {
    it(`rejects ${label} with 400`, async () => {
      const res = await changePerms(role.id, body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(validation(issue.path, issue.message, issue.code));
    });
  }

  it('rejects a malformed id with 400', async () => {
    const res = await changePerms('x', { toAdd: [] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(validation('id', 'must be a UUID', 'invalid_format', 'params'));
  });

  it('answers 403 without setting.perms.manage', async () => {
    const res = await changePerms(role.id, { toAdd: ['intel.read'] }, bearer(nobody.key));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual(FORBIDDEN);
  });

  it('answers 403 when adding or removing a permission the caller lacks, even on their own role', async () => {
    const asManager = bearer(permsManager.key);
    const grantSelf = await changePerms(permsManager.roleId, { toAdd: ['setting.users.manage', 'intel.read', 'audit.read'] }, asManager);
    expect(grantSelf.statusCode).toBe(403);
    expect(grantSelf.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['audit.read', 'setting.users.manage'] });
    const own = await t.app.inject({ url: `/api/roles/${permsManager.roleId}/perms`, headers: asManager });
    expect(own.json().permissions).toEqual(['intel.read', 'setting.perms.manage']);
    // Removing is acting on the role too (issue 19): alert.read is not the manager's to take away.
    const remove = await changePerms(role.id, { toAdd: ['intel.read'], toRemove: ['alert.read'] }, asManager);
    expect(remove.statusCode).toBe(403);
    expect(remove.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['alert.read'] });
  });
});
