import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../src/platform/auth/permissions.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const FORBIDDEN = { error: 'Missing required permissions', missingPerms: ['setting.users.manage'] };

let t: TestContext;
let admin: Record<string, string>;
let manager: TestUser;
let nobody: TestUser;
let analystRoleId: string;
let orgBAnalystRoleId: string;

async function systemRoleId(organizationId: string, name: string): Promise<string> {
  const row = await t.database.db.selectFrom('roles').select('id').where('organizationId', '=', organizationId).where('name', '=', name).executeTakeFirstOrThrow();
  return row.id;
}

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  manager = await userWithPermissions(t.database.db, t.orgA.organization.id, ['setting.users.manage']);
  nobody = await userWithPermissions(t.database.db, t.orgA.organization.id, []);
  analystRoleId = await systemRoleId(t.orgA.organization.id, 'Analyst');
  orgBAnalystRoleId = await systemRoleId(t.orgB.organization.id, 'Analyst');
});
afterAll(() => t.close());

async function create(body: unknown, headers = admin) {
  return t.app.inject({ method: 'POST', url: '/api/users', headers, payload: body as object });
}

async function patch(id: string, body: unknown, headers = admin) {
  return t.app.inject({ method: 'PATCH', url: `/api/users/${id}`, headers, payload: body as object });
}

function auditFor(resourceId: string) {
  return t.database.db.selectFrom('auditLogs').selectAll().where('resourceId', '=', resourceId).orderBy('createdAt').orderBy('id').execute();
}

describe('GET /api/users', () => {
  it('lists the organization\'s users with their role, in creation order, with totalCount', async () => {
    const res = await t.app.inject({ url: '/api/users', headers: admin });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const inDb = await t.database.db.selectFrom('users').select('id').where('organizationId', '=', t.orgA.organization.id).orderBy('createdAt').orderBy('id').execute();
    expect(body.totalCount).toBe(inDb.length);
    expect(body.users.map((u: { id: string }) => u.id)).toEqual(inDb.map((u) => u.id));
    expect(body.users[0]).toEqual({
      id: t.orgA.user.id,
      organizationId: t.orgA.organization.id,
      email: 'admin@a.test',
      name: 'admin',
      roleId: t.orgA.user.roleId,
      roleName: 'Super Admin',
      deactivated: false,
      deactivatedAt: null,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    expect(body.users.find((u: { id: string }) => u.id === t.orgB.user.id)).toBeUndefined();
  });

  it('pages with limit and offset; totalCount counts every user', async () => {
    const all = (await t.app.inject({ url: '/api/users', headers: admin })).json();
    expect(all.users.length).toBeGreaterThanOrEqual(3);
    const page = await t.app.inject({ url: '/api/users?limit=1&offset=1', headers: admin });
    expect(page.statusCode).toBe(200);
    expect(page.json()).toEqual({ users: [all.users[1]], totalCount: all.totalCount });
    const past = await t.app.inject({ url: `/api/users?offset=${all.totalCount}`, headers: admin });
    expect(past.json()).toEqual({ users: [], totalCount: all.totalCount });
  });

  it('shows another organization only its own users', async () => {
    const res = await t.app.inject({ url: '/api/users', headers: bearer(t.orgB.apiKey.key) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ users: [{ id: t.orgB.user.id, email: 'admin@b.test', organizationId: t.orgB.organization.id }], totalCount: 1 });
  });

  it.each([
    ['limit=0', { path: 'limit', message: 'Too small: expected number to be >=1', code: 'too_small', location: 'query' }],
    ['limit=201', { path: 'limit', message: 'Too big: expected number to be <=200', code: 'too_big', location: 'query' }],
    ['limit=abc', { path: 'limit', message: 'Invalid input: expected number, received NaN', code: 'invalid_type', location: 'query' }],
    ['limit=1.5', { path: 'limit', message: 'Invalid input: expected int, received number', code: 'invalid_type', location: 'query' }],
    ['offset=-1', { path: 'offset', message: 'Too small: expected number to be >=0', code: 'too_small', location: 'query' }],
  ])('rejects %s with 400', async (query, issue) => {
    const res = await t.app.inject({ url: `/api/users?${query}`, headers: admin });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Validation failed', issues: [issue] });
  });

  it('answers 401 without a key, with WWW-Authenticate', async () => {
    const res = await t.app.inject({ url: '/api/users' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="rampart"');
    expect(res.json()).toEqual({ error: 'Missing Authorization header (expected "Bearer <API key>")' });
  });

  it('answers 403 naming setting.users.manage', async () => {
    const res = await t.app.inject({ url: '/api/users', headers: bearer(nobody.key) });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual(FORBIDDEN);
  });
});

describe('POST /api/users', () => {
  it('creates a user with a role, defaulting the name to the email\'s local part, and audits', async () => {
    const res = await create({ email: 'new.analyst@a.test', roleId: analystRoleId });
    expect(res.statusCode).toBe(200);
    const user = res.json();
    expect(user).toEqual({
      id: expect.stringMatching(UUID),
      organizationId: t.orgA.organization.id,
      email: 'new.analyst@a.test',
      name: 'new.analyst',
      roleId: analystRoleId,
      roleName: 'Analyst',
      deactivated: false,
      deactivatedAt: null,
      createdAt: expect.stringMatching(ISO),
      updatedAt: user.createdAt,
    });
    const got = await t.app.inject({ url: `/api/users/${user.id}`, headers: admin });
    expect(got.json()).toEqual(user);
    const audit = await auditFor(user.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      organizationId: t.orgA.organization.id,
      actorType: 'user',
      actorUserId: t.orgA.user.id,
      actorApiKeyId: t.orgA.apiKey.id,
      action: 'user.create',
      resourceType: 'user',
      requestId: res.headers['x-request-id'],
      metadata: { email: 'new.analyst@a.test', roleId: analystRoleId },
    });
  });

  it('keeps a given name, trimmed', async () => {
    const res = await create({ email: 'named@a.test', name: '  Named Person ', roleId: analystRoleId });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ email: 'named@a.test', name: 'Named Person' });
  });

  it('answers 409 for an email already in the organization, whatever its case, and writes nothing', async () => {
    const before = await t.database.db.selectFrom('auditLogs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const res = await create({ email: 'ADMIN@A.test', roleId: analystRoleId });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'A user with this email already exists in the organization' });
    const after = await t.database.db.selectFrom('auditLogs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it('answers 409, never 500, when the same email is created concurrently', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => create({ email: 'race@a.test', roleId: analystRoleId })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    for (const r of results.filter((r) => r.statusCode === 409)) {
      expect(r.json()).toEqual({ error: 'A user with this email already exists in the organization' });
    }
  });

  it('allows the same email in another organization', async () => {
    const res = await create({ email: 'admin@a.test', roleId: orgBAnalystRoleId }, bearer(t.orgB.apiKey.key));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ organizationId: t.orgB.organization.id, roleName: 'Analyst' });
  });

  it('answers 400 for a role of another organization, and for an unknown role', async () => {
    for (const roleId of [orgBAnalystRoleId, '01890000-0000-7000-8000-000000000000']) {
      const res = await create({ email: 'cross@a.test', roleId });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        error: 'Validation failed',
        issues: [{ path: 'roleId', message: 'No such role in this organization', code: 'not_found', location: 'body' }],
      });
    }
  });

  const cases: Array<[string, unknown, Array<{ path: string; message: string; code: string }>]> = [
    ['an empty body', {}, [
      { path: 'email', message: 'Invalid input: expected string, received undefined', code: 'invalid_type' },
      { path: 'roleId', message: 'Invalid input: expected string, received undefined', code: 'invalid_type' },
    ]],
    ['an invalid email', { email: 'not-an-email', roleId: '01890000-0000-7000-8000-000000000000' }, [{ path: 'email', message: 'Invalid email address', code: 'invalid_format' }]],
    ['an email over 320 characters', { email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(63)}.test`, roleId: '01890000-0000-7000-8000-000000000000' }, [{ path: 'email', message: 'Too big: expected string to have <=320 characters', code: 'too_big' }]],
    ['a roleId that is not a UUID', { email: 'x@a.test', roleId: 'admin' }, [{ path: 'roleId', message: 'Invalid UUID', code: 'invalid_format' }]],
    ['a blank name', { email: 'x@a.test', name: '   ', roleId: '01890000-0000-7000-8000-000000000000' }, [{ path: 'name', message: 'Too small: expected string to have >=1 characters', code: 'too_small' }]],
    ['a name over 255 characters', { email: 'x@a.test', name: 'n'.repeat(256), roleId: '01890000-0000-7000-8000-000000000000' }, [{ path: 'name', message: 'Too big: expected string to have <=255 characters', code: 'too_big' }]],
    ['an unknown field', { email: 'x@a.test', roleId: '01890000-0000-7000-8000-000000000000', isAdmin: true }, [{ path: 'isAdmin', message: 'Unknown field', code: 'unrecognized_keys' }]],
    ['a body that is not an object', [], [{ path: '', message: 'Invalid input: expected object, received array', code: 'invalid_type' }]],
  ];
  for (const [label, body, issues] of cases) {
    it(`rejects ${label} with 400`, async () => {
      const res = await create(body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'Validation failed', issues: issues.map((i) => ({ ...i, location: 'body' })) });
    });
  }

  it('answers 403 before looking at the body', async () => {
    const res = await create({ bogus: true }, bearer(nobody.key));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual(FORBIDDEN);
  });

  it('answers 403 when the role grants permissions the caller lacks (no escalation by delegation)', async () => {
    const asManager = bearer(manager.key);
    const superAdmin = await create({ email: 'escalate@a.test', roleId: t.orgA.user.roleId }, asManager);
    expect(superAdmin.statusCode).toBe(403);
    expect(superAdmin.json()).toEqual({ error: 'Missing required permissions', missingPerms: PERMISSIONS.filter((p) => p !== 'setting.users.manage') });
    const analyst = await create({ email: 'escalate@a.test', roleId: analystRoleId }, asManager);
    expect(analyst.statusCode).toBe(403);
    expect(analyst.json()).toEqual({
      error: 'Missing required permissions',
      missingPerms: ['agent.read', 'agent.execute', 'tool.read', 'tool.use', 'alert.read', 'alert.triage', 'destination.read', 'intel.read', 'hunt.read', 'blocklist.read', 'audit.read', 'approval.read'],
    });
    // A role within the manager's own permissions is fine.
    const own = await create({ email: 'peer@a.test', roleId: manager.roleId }, asManager);
    expect(own.statusCode).toBe(200);
    expect(own.json()).toMatchObject({ email: 'peer@a.test', roleId: manager.roleId });
  });
});

describe('GET /api/users/{id}', () => {
  it('answers 404 for an unknown id and for another organization\'s user', async () => {
    for (const id of ['01890000-0000-7000-8000-000000000000', t.orgB.user.id]) {
      const res = await t.app.inject({ url: `/api/users/${id}`, headers: admin });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'User not found' });
    }
    const own = await t.app.inject({ url: `/api/users/${t.orgB.user.id}`, headers: bearer(t.orgB.apiKey.key) });
    expect(own.statusCode).toBe(200);
    expect(own.json()).toMatchObject({ id: t.orgB.user.id, email: 'admin@b.test' });
  });

  it('rejects a malformed id with 400', async () => {
    const res = await t.app.inject({ url: '/api/users/not-a-uuid', headers: admin });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Validation failed', issues: [{ path: 'id', message: 'must be a UUID', code: 'invalid_format', location: 'params' }] });
  });

  it('answers 403 without setting.users.manage, even for the caller\'s own record', async () => {
    const res = await t.app.inject({ url: `/api/users/${nobody.userId}`, headers: bearer(nobody.key) });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual(FORBIDDEN);
  });
});

describe('PATCH /api/users/{id}', () => {
  let target: TestUser;
  beforeAll(async () => {
    target = await userWithPermissions(t.database.db, t.orgA.organization.id, ['intel.read']);
  });

  it('renames a user and audits the changed fields', async () => {
    const before = (await t.app.inject({ url: `/api/users/${target.userId}`, headers: admin })).json();
    const res = await patch(target.userId, { name: ' Integration bot ' });
    expect(res.statusCode).toBe(200);
    const after = res.json();
    expect(after).toEqual({ ...before, name: 'Integration bot', updatedAt: expect.stringMatching(ISO) });
    expect(Date.parse(after.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt));
    const audit = await auditFor(target.userId);
    expect(audit.at(-1)).toMatchObject({ action: 'user.update', actorUserId: t.orgA.user.id, actorApiKeyId: t.orgA.apiKey.id, requestId: res.headers['x-request-id'], metadata: { changed: ['name'] } });
  });

  it('changes the role', async () => {
    const res = await patch(target.userId, { roleId: analystRoleId });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: target.userId, roleId: analystRoleId, roleName: 'Analyst' });
    const audit = await auditFor(target.userId);
    expect(audit.at(-1)).toMatchObject({ action: 'user.update', metadata: { changed: ['roleId'], roleId: analystRoleId } });
  });

  it('deactivates (keeping the first deactivation time) and reactivates', async () => {
    const off = await patch(target.userId, { deactivated: true });
    expect(off.statusCode).toBe(200);
    const deactivated = off.json();
    expect(deactivated).toMatchObject({ deactivated: true, deactivatedAt: expect.stringMatching(ISO) });

    const again = await patch(target.userId, { deactivated: true });
    expect(again.json().deactivatedAt).toBe(deactivated.deactivatedAt);

    const on = await patch(target.userId, { deactivated: false });
    expect(on.statusCode).toBe(200);
    expect(on.json()).toMatchObject({ deactivated: false, deactivatedAt: null });

    const actions = (await auditFor(target.userId)).map((a) => a.action).slice(-3);
    expect(actions).toEqual(['user.deactivate', 'user.deactivate', 'user.reactivate']);
  });

  it('refuses to let a user deactivate themselves or change their own role (400)', async () => {
    const self = await patch(t.orgA.user.id, { deactivated: true });
    expect(self.statusCode).toBe(400);
    expect(self.json()).toEqual({
      error: 'Validation failed',
      issues: [{ path: 'deactivated', message: 'You cannot deactivate yourself; another user with setting.users.manage can', code: 'self_change', location: 'body' }],
    });
    const both = await patch(t.orgA.user.id, { deactivated: true, roleId: analystRoleId });
    expect(both.statusCode).toBe(400);
    expect(both.json().issues.map((i: { path: string }) => i.path)).toEqual(['deactivated', 'roleId']);
    // The same id in upper case is the same user.
    const upper = await patch(t.orgA.user.id.toUpperCase(), { deactivated: true });
    expect(upper.statusCode).toBe(400);
    expect(upper.json().issues).toEqual([expect.objectContaining({ path: 'deactivated', code: 'self_change' })]);
    const upperRole = await patch(t.orgA.user.id.toUpperCase(), { roleId: analystRoleId });
    expect(upperRole.statusCode).toBe(400);
    expect(upperRole.json().issues).toEqual([expect.objectContaining({ path: 'roleId', code: 'self_change' })]);

    const still = (await t.app.inject({ url: `/api/users/${t.orgA.user.id}`, headers: admin })).json();
    expect(still).toMatchObject({ deactivated: false, roleName: 'Super Admin' });
  });

  it('lets a user rename themselves and restate their current role', async () => {
    const res = await patch(t.orgA.user.id, { name: 'Admin A', roleId: t.orgA.user.roleId, deactivated: false });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Admin A', roleId: t.orgA.user.roleId, deactivated: false });
  });

  it('answers 404 for an unknown id and for another organization\'s user, changing nothing', async () => {
    for (const id of ['01890000-0000-7000-8000-000000000000', t.orgB.user.id]) {
      const res = await patch(id, { deactivated: true });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'User not found' });
    }
    const orgBAdmin = await t.app.inject({ url: `/api/users/${t.orgB.user.id}`, headers: bearer(t.orgB.apiKey.key) });
    expect(orgBAdmin.statusCode).toBe(200);
    expect(orgBAdmin.json()).toMatchObject({ deactivated: false, name: 'admin' });
  });

  it('answers 400 for a role of another organization', async () => {
    const res = await patch(target.userId, { roleId: orgBAnalystRoleId });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Validation failed', issues: [{ path: 'roleId', message: 'No such role in this organization', code: 'not_found', location: 'body' }] });
  });

  const cases: Array<[string, unknown, { path: string; message: string; code: string }]> = [
    ['an empty body', {}, { path: '', message: 'Give at least one of name, roleId, deactivated', code: 'custom' }],
    ['a non-boolean deactivated', { deactivated: 'yes' }, { path: 'deactivated', message: 'Invalid input: expected boolean, received string', code: 'invalid_type' }],
    ['a malformed roleId', { roleId: 'analyst' }, { path: 'roleId', message: 'Invalid UUID', code: 'invalid_format' }],
    ['a blank name', { name: '' }, { path: 'name', message: 'Too small: expected string to have >=1 characters', code: 'too_small' }],
    ['an unknown field', { email: 'changed@a.test' }, { path: 'email', message: 'Unknown field', code: 'unrecognized_keys' }],
  ];
  for (const [label, body, issue] of cases) {
    it(`rejects ${label} with 400`, async () => {
      const res = await patch(target.userId, body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'Validation failed', issues: [{ ...issue, location: 'body' }] });
    });
  }

  it('rejects a malformed id with 400', async () => {
    const res = await patch('1234', { name: 'x' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Validation failed', issues: [{ path: 'id', message: 'must be a UUID', code: 'invalid_format', location: 'params' }] });
  });

  it('answers 403 without setting.users.manage', async () => {
    const res = await patch(target.userId, { deactivated: true }, bearer(nobody.key));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual(FORBIDDEN);
    expect((await t.app.inject({ url: `/api/users/${target.userId}`, headers: admin })).json().deactivated).toBe(false);
  });

  it('answers 403 when assigning a role with permissions the caller lacks', async () => {
    const res = await patch(target.userId, { roleId: t.orgA.user.roleId }, bearer(manager.key));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'Missing required permissions', missingPerms: PERMISSIONS.filter((p) => p !== 'setting.users.manage') });
    expect((await t.app.inject({ url: `/api/users/${target.userId}`, headers: admin })).json().roleName).toBe('Analyst');
    // Deactivating and renaming need no more than setting.users.manage.
    const rename = await patch(target.userId, { name: 'Renamed by manager' }, bearer(manager.key));
    expect(rename.statusCode).toBe(200);
  });
});
