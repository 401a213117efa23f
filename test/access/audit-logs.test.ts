import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface AuditLog {
  id: string;
  organizationId: string;
  actorType: string;
  actorUserId: string | null;
  actorApiKeyId: string | null;
  action: string;
  resourceType: string;
  resourceId: string | null;
  requestId: string | null;
  actorName: string | null;
  resourceName: string | null;
  metadata: Record<string, unknown>;
  createdAt: string;
}

let t: TestContext;
let admin: Record<string, string>;
let auditor: TestUser;
let keyManager: TestUser;
let nobody: TestUser;
let roleId: string;
let roleRequestIds: string[];
let createdKey: string;

async function list(query = '', headers = bearer(auditor.key)) {
  return t.app.inject({ url: `/api/audit-logs${query}`, headers });
}

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  auditor = await userWithPermissions(t.database.db, t.orgA.organization.id, ['audit.read']);
  keyManager = await userWithPermissions(t.database.db, t.orgA.organization.id, ['setting.apiKey.manage']);
  nobody = await userWithPermissions(t.database.db, t.orgA.organization.id, []);

  const role = await t.app.inject({ method: 'POST', url: '/api/roles', headers: admin, payload: { name: 'Audited', permissions: ['intel.read'] } });
  roleId = role.json().id;
  const renamed = await t.app.inject({ method: 'PUT', url: `/api/roles/${roleId}`, headers: admin, payload: { name: 'Audited (renamed)' } });
  const perms = await t.app.inject({ method: 'POST', url: `/api/roles/${roleId}/perms`, headers: admin, payload: { toAdd: ['hunt.read'] } });
  roleRequestIds = [role, renamed, perms].map((r) => {
    expect(r.statusCode).toBe(200);
    return r.headers['x-request-id'] as string;
  });
  const key = await t.app.inject({ method: 'POST', url: '/api/api-keys', headers: bearer(keyManager.key), payload: { name: 'audited key' } });
  expect(key.statusCode).toBe(200);
  createdKey = key.json().key;
});
afterAll(() => t.close());

describe('GET /api/audit-logs', () => {
  it('answers entries newest first, with every field, and the organization\'s totalCount', async () => {
    const res = await list();
    expect(res.statusCode).toBe(200);
    const body = res.json() as { auditLogs: AuditLog[]; totalCount: number };
    const inDb = await t.database.db.selectFrom('auditLogs').select('id').where('organizationId', '=', t.orgA.organization.id).orderBy('createdAt', 'desc').orderBy('id', 'desc').execute();
    expect(body.totalCount).toBe(inDb.length);
    expect(body.auditLogs.map((a) => a.id)).toEqual(inDb.map((a) => a.id));
    expect(body.auditLogs[0]).toEqual({
      id: expect.stringMatching(UUID),
      organizationId: t.orgA.organization.id,
      actorType: 'user',
      actorUserId: keyManager.userId,
      actorApiKeyId: keyManager.keyId,
      action: 'apiKey.create',
      resourceType: 'apiKey',
      resourceId: expect.stringMatching(UUID),
      requestId: expect.any(String),
      actorName: `${keyManager.userId}@example.test`,
      resourceName: 'audited key',
      metadata: { name: 'audited key', prefix: createdKey.slice(4, 12), userId: keyManager.userId },
      createdAt: expect.stringMatching(ISO),
    });
    expect(body.auditLogs.slice(1, 4).map((a) => [a.action, a.resourceId, a.requestId, a.metadata])).toEqual([
      ['role.permissions.change', roleId, roleRequestIds[2], { toAdd: ['hunt.read'], toRemove: [] }],
      ['role.update', roleId, roleRequestIds[1], { changed: ['name'] }],
      ['role.create', roleId, roleRequestIds[0], { name: 'Audited', permissions: ['intel.read'] }],
    ]);
    // Names instead of ids: the role's current name where the entry recorded none, the name it had where it did.
    expect(body.auditLogs.slice(1, 4).map((a) => [a.resourceName, a.actorName])).toEqual([
      ['Audited (renamed)', t.orgA.user.name || t.orgA.user.email],
      ['Audited (renamed)', t.orgA.user.name || t.orgA.user.email],
      ['Audited', t.orgA.user.name || t.orgA.user.email],
    ]);
  });

  it('shows the operator\'s entries (organization creation) as the system actor', async () => {
    const res = await list('?action=organization.create');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      auditLogs: [{
        id: expect.stringMatching(UUID),
        organizationId: t.orgA.organization.id,
        actorType: 'system',
        actorUserId: null,
        actorApiKeyId: null,
        action: 'organization.create',
        resourceType: 'organization',
        resourceId: t.orgA.organization.id,
        requestId: null,
        actorName: null,
        resourceName: 'Org A',
        metadata: { name: 'Org A' },
        createdAt: expect.stringMatching(ISO),
      }],
      totalCount: 1,
    });
  });

  it('filters by action, resource type, resource id and actor, counting only matches', async () => {
    const byAction = (await list('?action=role.update')).json();
    expect(byAction.totalCount).toBe(1);
    expect(byAction.auditLogs.map((a: AuditLog) => a.requestId)).toEqual([roleRequestIds[1]]);

    const byType = (await list('?resourceType=role')).json();
    expect(byType.totalCount).toBe(3);
    expect(byType.auditLogs.map((a: AuditLog) => a.action)).toEqual(['role.permissions.change', 'role.update', 'role.create']);

    const byResource = (await list(`?resourceId=${roleId}`)).json();
    expect(byResource.auditLogs.map((a: AuditLog) => a.action)).toEqual(['role.permissions.change', 'role.update', 'role.create']);
    const byResourceUpper = (await list(`?resourceId=${roleId.toUpperCase()}`)).json();
    expect(byResourceUpper).toEqual(byResource);

    const byActor = (await list(`?actorUserId=${keyManager.userId}`)).json();
    expect(byActor.totalCount).toBe(1);
    expect(byActor.auditLogs[0]).toMatchObject({ action: 'apiKey.create', actorApiKeyId: keyManager.keyId });

    const combined = (await list(`?actorUserId=${t.orgA.user.id}&resourceType=role&action=role.create`)).json();
    expect(combined.totalCount).toBe(1);
    expect(combined.auditLogs[0]).toMatchObject({ resourceId: roleId, requestId: roleRequestIds[0] });

    const none = await list('?action=role.delete');
    expect(none.statusCode).toBe(200);
    expect(none.json()).toEqual({ auditLogs: [], totalCount: 0 });
  });

  it('pages with limit and offset', async () => {
    const all = (await list('?limit=200')).json();
    expect(all.totalCount).toBeGreaterThanOrEqual(6);
    const first = (await list('?limit=3')).json();
    const second = (await list('?limit=3&offset=3')).json();
    expect(first.totalCount).toBe(all.totalCount);
    expect(second.totalCount).toBe(all.totalCount);
    expect([...first.auditLogs, ...second.auditLogs]).toEqual(all.auditLogs.slice(0, 6));
    const past = (await list(`?offset=${all.totalCount}`)).json();
    expect(past).toEqual({ auditLogs: [], totalCount: all.totalCount });
  });

  it('never shows another organization\'s entries', async () => {
    const res = await list('?limit=200', bearer(t.orgB.apiKey.key));
    expect(res.statusCode).toBe(200);
    const body = res.json() as { auditLogs: AuditLog[]; totalCount: number };
    expect(body.totalCount).toBe(body.auditLogs.length);
    expect(body.auditLogs.every((a) => a.organizationId === t.orgB.organization.id)).toBe(true);
    expect(body.auditLogs.map((a) => a.action).sort()).toEqual(['apiKey.create', 'organization.create', 'user.create']);
    const probe = await list(`?resourceId=${roleId}`, bearer(t.orgB.apiKey.key));
    expect(probe.json()).toEqual({ auditLogs: [], totalCount: 0 });
    const byActor = await list(`?actorUserId=${t.orgA.user.id}`, bearer(t.orgB.apiKey.key));
    expect(byActor.json()).toEqual({ auditLogs: [], totalCount: 0 });
  });

  it('never holds a key\'s secret', async () => {
    const res = await list('?limit=200');
    expect(res.body).not.toContain(createdKey);
    expect(res.body).not.toContain(createdKey.slice(13));
    expect(res.body).not.toContain(t.orgA.apiKey.key.slice(13));
  });

  it.each([
    ['limit=0', 'limit', 'Too small: expected number to be >=1', 'too_small'],
    ['limit=201', 'limit', 'Too big: expected number to be <=200', 'too_big'],
    ['limit=ten', 'limit', 'Invalid input: expected number, received NaN', 'invalid_type'],
    ['offset=-1', 'offset', 'Too small: expected number to be >=0', 'too_small'],
    ['actorUserId=admin', 'actorUserId', 'Invalid UUID', 'invalid_format'],
    [`action=${'a'.repeat(101)}`, 'action', 'Too big: expected string to have <=100 characters', 'too_big'],
    [`resourceType=${'r'.repeat(101)}`, 'resourceType', 'Too big: expected string to have <=100 characters', 'too_big'],
    [`resourceId=${'i'.repeat(201)}`, 'resourceId', 'Too big: expected string to have <=200 characters', 'too_big'],
  ])('rejects %s with 400', async (query, path, message, code) => {
    const res = await list(`?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Validation failed', issues: [{ path, message, code, location: 'query' }] });
  });

  it('lists what the log can be filtered by: actions, resource types, acting users (GET /api/audit-logs/facets)', async () => {
    const res = await t.app.inject({ url: '/api/audit-logs/facets', headers: bearer(auditor.key) });
    expect(res.statusCode).toBe(200);
    const facets = res.json();
    expect(facets.actions).toEqual(expect.arrayContaining(['apiKey.create', 'organization.create', 'role.create', 'role.update', 'role.permissions.change']));
    expect(facets.resourceTypes).toEqual(expect.arrayContaining(['apiKey', 'organization', 'role']));
    expect(facets.actors).toEqual(expect.arrayContaining([{ userId: keyManager.userId, name: `${keyManager.userId}@example.test` }]));
    expect(facets.actors.map((a: { userId: string }) => a.userId)).not.toContain(nobody.userId);
    const denied = await t.app.inject({ url: '/api/audit-logs/facets', headers: bearer(nobody.key) });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['audit.read'] });
    // Another organization's facets hold none of these.
    const other = (await t.app.inject({ url: '/api/audit-logs/facets', headers: bearer(t.orgB.apiKey.key) })).json();
    expect(other.actions).not.toContain('role.create');
    expect(other.actors.map((a: { userId: string }) => a.userId)).not.toContain(keyManager.userId);
  });

  it('answers 403 without audit.read', async () => {
    const res = await list('', bearer(nobody.key));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['audit.read'] });
  });

  it('answers 401 without a key', async () => {
    const res = await list('', {});
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="rampart"');
    expect(res.json()).toEqual({ error: 'Missing Authorization header (expected "Bearer <API key>")' });
  });
});
