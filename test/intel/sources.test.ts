import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';

let t: TestContext;
let admin: Record<string, string>;
let reader: TestUser;
let nobody: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['intel.read']);
  nobody = await userWithPermissions(t.database.db, t.orgA.organization.id, []);
});
afterAll(() => t.close());

const rss = { kind: 'rss', name: 'Vendor blog', feedUrl: 'https://blog.example.com/feed.xml' };
const misp = { kind: 'api', apiType: 'misp', name: 'Our MISP', serverUrl: 'https://misp.example.com', apiKey: 'misp-KEY-secret-0001' };

async function create(body: unknown, headers = admin) {
  return t.app.inject({ method: 'POST', url: '/sources', headers, payload: body as object });
}

describe('GET /sources', () => {
  it('lists the built-in catalog with subscription state', async () => {
    const res = await t.app.inject({ url: '/sources', headers: bearer(reader.key) });
    expect(res.statusCode).toBe(200);
    const { sources } = res.json() as { sources: Array<Record<string, unknown>> };
    const builtIns = sources.filter((s) => s.isBuiltIn);
    expect(builtIns.length).toBeGreaterThanOrEqual(8);
    const cisa = builtIns.find((s) => s.name === 'cisa-advisories')!;
    expect(cisa).toMatchObject({
      kind: 'rss',
      feedUrl: 'https://www.cisa.gov/cybersecurity-advisories/all.xml',
      organizationId: null,
      hasApiKey: false,
      sourceEnabled: true,
      subscriptionEnabled: true,
      enabled: true,
      itemCountLast24h: 0,
      lastStatus: null,
      syncJob: null,
    });
    expect(builtIns.find((s) => s.apiType === 'taxii')).toMatchObject({ serverUrl: 'https://attack-taxii.mitre.org/api/v21/' });
    expect(builtIns.some((s) => s.apiType === 'misp_feed')).toBe(true);
  });

  it('needs intel.read', async () => {
    const res = await t.app.inject({ url: '/sources', headers: bearer(nobody.key) });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['intel.read'] });
  });

  it('needs a key', async () => {
    expect((await t.app.inject({ url: '/sources' })).statusCode).toBe(401);
  });
});

describe('POST /sources', () => {
  it('creates an RSS source with defaults', async () => {
    const res = await create(rss);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      kind: 'rss',
      name: 'Vendor blog',
      displayName: 'Vendor blog',
      feedUrl: 'https://blog.example.com/feed.xml',
      serverUrl: null,
      apiType: null,
      isBuiltIn: false,
      organizationId: t.orgA.organization.id,
      createdBy: t.orgA.user.id,
      enabled: true,
      sourceEnabled: true,
      subscriptionEnabled: true,
      scheduleCron: '*/30 * * * *',
      maxEntries: 200,
      hasApiKey: false,
      syncJob: null,
    });
  });

  it('creates a MISP source without ever returning or storing the key in clear', async () => {
    const res = await create(misp);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ kind: 'api', apiType: 'misp', hasApiKey: true });
    expect(res.body).not.toContain('misp-KEY-secret-0001');
    const rows = await t.database.db.selectFrom('intelSources').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain('misp-KEY-secret-0001');
    const list = await t.app.inject({ url: '/sources', headers: admin });
    expect(list.body).not.toContain('misp-KEY-secret-0001');
    const audit = await t.database.db.selectFrom('auditLogs').selectAll().execute();
    expect(JSON.stringify(audit)).not.toContain('misp-KEY-secret-0001');
  });

  it('creates TAXII and MISP feed sources', async () => {
    const taxii = await create({ kind: 'api', apiType: 'taxii', name: 'TAXII', serverUrl: 'https://taxii.example.com/taxii2/', collectionId: 'abc', authType: 'basic', username: 'u', apiKey: 'p', scheduleCron: '0 * * * *', maxEntries: 1000 });
    expect(taxii.statusCode).toBe(200);
    expect(taxii.json()).toMatchObject({ apiType: 'taxii', collectionId: 'abc', authType: 'basic', scheduleCron: '0 * * * *', maxEntries: 1000 });
    const feed = await create({ kind: 'api', apiType: 'misp_feed', name: 'Feed', serverUrl: 'https://feeds.example.com/misp/' });
    expect(feed.statusCode).toBe(200);
    expect(feed.json()).toMatchObject({ apiType: 'misp_feed', hasApiKey: false });
  });

  const invalid: Array<[string, unknown, string]> = [
    ['rss without feedUrl', { kind: 'rss', name: 'x' }, 'feedUrl'],
    ['bad feed URL', { ...rss, feedUrl: 'file:///etc/passwd' }, 'feedUrl'],
    ['api without serverUrl', { kind: 'api', apiType: 'taxii', name: 'x' }, 'serverUrl'],
    ['api without apiType', { kind: 'api', name: 'x', serverUrl: 'https://a.example' }, 'apiType'],
    ['misp without apiKey', { ...misp, apiKey: undefined }, 'apiKey'],
    ['rss with apiKey', { ...rss, apiKey: 'x' }, 'apiKey'],
    ['bad cron', { ...rss, scheduleCron: 'every hour' }, 'scheduleCron'],
    ['six-field cron', { ...rss, scheduleCron: '0 0 * * * *' }, 'scheduleCron'],
    ['maxEntries 0', { ...rss, maxEntries: 0 }, 'maxEntries'],
    ['maxEntries too big', { ...rss, maxEntries: 100001 }, 'maxEntries'],
    ['unknown kind', { ...rss, kind: 'csv' }, 'kind'],
    ['empty name', { ...rss, name: '' }, 'name'],
    ['unknown field', { ...rss, colour: 'red' }, 'colour'],
    ['basic auth without username', { kind: 'api', apiType: 'taxii', name: 'x', serverUrl: 'https://a.example', authType: 'basic', apiKey: 'p' }, 'username'],
  ];
  for (const [label, body, path] of invalid) {
    it(`rejects ${label}`, async () => {
      const res = await create(body);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('Validation failed');
      expect(res.json().issues.map((i: { path: string }) => i.path)).toContain(path);
    });
  }

  it('needs intel.manage', async () => {
    const res = await create(rss, bearer(reader.key));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['intel.manage'] });
  });
});

describe('PUT /sources/{id}', () => {
  it('updates a custom source and keeps the stored key', async () => {
    const created = (await create(misp)).json();
    const res = await t.app.inject({ method: 'PUT', url: `/sources/${created.id}`, headers: admin, payload: { name: 'Renamed', enabled: false } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Renamed', enabled: false, sourceEnabled: false, hasApiKey: true });
  });

  it('rejects fields of the other kind', async () => {
    const created = (await create(rss)).json();
    const res = await t.app.inject({ method: 'PUT', url: `/sources/${created.id}`, headers: admin, payload: { serverUrl: 'https://x.example' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'Validation failed', issues: [{ path: 'serverUrl' }] });
  });

  it('toggles only the subscription of a built-in source, per organization', async () => {
    const { sources } = (await t.app.inject({ url: '/sources', headers: admin })).json();
    const builtIn = sources.find((s: { name: string }) => s.name === 'cisa-advisories');
    const off = await t.app.inject({ method: 'PUT', url: `/sources/${builtIn.id}`, headers: admin, payload: { enabled: false } });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toMatchObject({ subscriptionEnabled: false, sourceEnabled: true, enabled: false, isBuiltIn: true });
    // Organization B is unaffected.
    const other = (await t.app.inject({ url: '/sources', headers: bearer(t.orgB.apiKey.key) })).json();
    expect(other.sources.find((s: { id: string }) => s.id === builtIn.id)).toMatchObject({ subscriptionEnabled: true });
    const renamed = await t.app.inject({ method: 'PUT', url: `/sources/${builtIn.id}`, headers: admin, payload: { name: 'mine' } });
    expect(renamed.statusCode).toBe(400);
    expect(renamed.json().error).toMatch(/^Built-in sources can only be subscribed or unsubscribed/);
  });

  it('answers 404 for another organization\'s source', async () => {
    const created = (await create(rss)).json();
    const res = await t.app.inject({ method: 'PUT', url: `/sources/${created.id}`, headers: bearer(t.orgB.apiKey.key), payload: { name: 'x' } });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Source not found' });
  });
});

describe('DELETE /sources/{id}', () => {
  it('deletes a custom source with its items in one transaction', async () => {
    const created = (await create(rss)).json();
    await t.database.db
      .insertInto('intelItems')
      .values({ id: crypto.randomUUID(), organizationId: t.orgA.organization.id, sourceId: created.id, externalId: 'x', title: 't', contentHash: 'h', structuredIndicators: '[]', referenceUrls: '[]', tags: [], raw: null, contentText: '', createdAt: new Date(), updatedAt: new Date() })
      .execute();
    const res = await t.app.inject({ method: 'DELETE', url: `/sources/${created.id}`, headers: admin });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true });
    expect(await t.database.db.selectFrom('intelItems').selectAll().where('sourceId', '=', created.id).execute()).toEqual([]);
    expect((await t.app.inject({ method: 'DELETE', url: `/sources/${created.id}`, headers: admin })).statusCode).toBe(404);
  });

  it('refuses to delete a built-in source', async () => {
    const { sources } = (await t.app.inject({ url: '/sources', headers: admin })).json();
    const res = await t.app.inject({ method: 'DELETE', url: `/sources/${sources.find((s: { isBuiltIn: boolean }) => s.isBuiltIn).id}`, headers: admin });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/^Built-in sources cannot be deleted/);
  });

  it('answers 404 for another organization\'s source, and needs intel.manage', async () => {
    const created = (await create(rss)).json();
    expect((await t.app.inject({ method: 'DELETE', url: `/sources/${created.id}`, headers: bearer(t.orgB.apiKey.key) })).statusCode).toBe(404);
    const denied = await t.app.inject({ method: 'DELETE', url: `/sources/${created.id}`, headers: bearer(reader.key) });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().missingPerms).toEqual(['intel.manage']);
  });
});

describe('POST /sources/{id}/sync', () => {
  it('enqueues one job and returns it again while it is pending', async () => {
    const created = (await create(rss)).json();
    const first = await t.app.inject({ method: 'POST', url: `/sources/${created.id}/sync`, headers: admin });
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body.jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.source.syncJob).toMatchObject({ jobId: body.jobId, status: 'pending', attemptCount: 0, startedAt: null, finishedAt: null, error: null });
    const second = await t.app.inject({ method: 'POST', url: `/sources/${created.id}/sync`, headers: admin });
    expect(second.json().jobId).toBe(body.jobId);
    const { rows } = await t.database.pool.query("SELECT count(*)::int AS n FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE t.identifier = 'intel:syncSource'");
    expect(rows[0].n).toBe(1);
  });

  it('answers 404 for another organization\'s source', async () => {
    const created = (await create(rss)).json();
    const res = await t.app.inject({ method: 'POST', url: `/sources/${created.id}/sync`, headers: bearer(t.orgB.apiKey.key) });
    expect(res.statusCode).toBe(404);
  });
});

// After the sync tests: syncing here would add to the jobs they count.
describe('GET /sources/{id}', () => {
  it('answers one source as the list item, with its sync job, for readers and managers', async () => {
    const created = (await create(misp)).json();
    const jobId = (await t.app.inject({ method: 'POST', url: `/sources/${created.id}/sync`, headers: admin })).json().jobId;
    const res = await t.app.inject({ url: `/sources/${created.id}`, headers: admin });
    expect(res.statusCode).toBe(200);
    const listed = (await t.app.inject({ url: '/sources', headers: admin })).json().sources.find((s: { id: string }) => s.id === created.id);
    expect(res.json()).toEqual(listed);
    expect(res.json()).toMatchObject({ id: created.id, name: 'Our MISP', hasApiKey: true, syncJob: { jobId, status: 'pending' } });
    expect(JSON.stringify(res.json())).not.toContain('misp-KEY-secret-0001');
    expect((await t.app.inject({ url: `/sources/${created.id}`, headers: bearer(reader.key) })).statusCode).toBe(200);
    const builtin = (await t.app.inject({ url: '/sources', headers: admin })).json().sources.find((s: { isBuiltIn: boolean }) => s.isBuiltIn);
    expect((await t.app.inject({ url: `/sources/${builtin.id}`, headers: bearer(t.orgB.apiKey.key) })).json()).toMatchObject({ id: builtin.id, isBuiltIn: true });
  });

  it('answers 404 for another organization\'s source, 403 without intel.read, 400 for a bad id', async () => {
    const created = (await create(rss)).json();
    const other = await t.app.inject({ url: `/sources/${created.id}`, headers: bearer(t.orgB.apiKey.key) });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual({ error: 'Source not found' });
    const denied = await t.app.inject({ url: `/sources/${created.id}`, headers: bearer(nobody.key) });
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['intel.read'] });
    const bad = await t.app.inject({ url: '/sources/nope', headers: admin });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issues[0]).toMatchObject({ path: 'id', location: 'params' });
  });
});

describe('legacy /custom-rss-feeds', () => {
  it('lists only custom RSS sources, marked deprecated with /sources as successor', async () => {
    const created = (await create({ ...rss, name: 'Legacy listed' })).json();
    const res = await t.app.inject({ url: '/custom-rss-feeds', headers: admin });
    expect(res.statusCode).toBe(200);
    expect(res.headers.deprecation).toMatch(/^@\d+$/);
    expect(res.headers.link).toBe('</sources>; rel="successor-version"');
    const { feeds } = res.json();
    expect(feeds.every((f: { feedUrl: string }) => typeof f.feedUrl === 'string')).toBe(true);
    const feed = feeds.find((f: { id: string }) => f.id === created.id);
    expect(Object.keys(feed).sort()).toEqual(['createdAt', 'createdBy', 'displayName', 'enabled', 'feedUrl', 'id', 'lastError', 'lastFetchedAt', 'lastStatus', 'maxEntries', 'name', 'organizationId', 'scheduleCron', 'updatedAt'].sort());
  });

  it('syncs a custom RSS feed and refuses other sources with 404', async () => {
    const created = (await create({ ...rss, name: 'Legacy sync' })).json();
    const res = await t.app.inject({ method: 'POST', url: `/custom-rss-feeds/${created.id}/sync`, headers: admin });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ feed: { id: created.id }, jobId: expect.any(String) });
    const mispSource = (await create(misp)).json();
    const notRss = await t.app.inject({ method: 'POST', url: `/custom-rss-feeds/${mispSource.id}/sync`, headers: admin });
    expect(notRss.statusCode).toBe(404);
    expect(notRss.json()).toEqual({ error: 'Custom RSS feed not found' });
  });
});
