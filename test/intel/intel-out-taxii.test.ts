import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app.js';
import { seedIntel } from '../support/intel-data.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';
import { allCollectionId, indicatorUuid } from '../../src/modules/intel-out/stix.fns.js';

const TAXII = 'application/taxii+json;version=2.1';

describe('TAXII 2.1 server', () => {
  let t: TestContext;
  let reader: TestUser;
  let noIntel: TestUser;
  let seeded: Awaited<ReturnType<typeof seedIntel>>;
  let allA: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { RAMPART_BASE_URL: 'https://rampart.example', RAMPART_RATE_LIMIT_PER_MINUTE: '0' } });
    seeded = await seedIntel(t.database.db, t.orgA.organization.id, { items: 3 });
    await seedIntel(t.database.db, t.orgB.organization.id, { items: 1, sourceName: 'b-source' });
    reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['intel.read']);
    noIntel = await userWithPermissions(t.database.db, t.orgA.organization.id, ['alert.read']);
    allA = allCollectionId(t.orgA.organization.id);
  });
  afterAll(() => t?.close());

  const basic = (key: string) => ({ authorization: `Basic ${Buffer.from(`anyone:${key}`).toString('base64')}`, accept: TAXII });
  const get = (url: string, headers: Record<string, string> = basic(reader.key)) => t.app.inject({ url, headers });

  it('serves discovery, the API root and the collections with Basic auth (API key as password) and Bearer', async () => {
    const disc = await get('/taxii2/');
    expect(disc.statusCode).toBe(200);
    expect(disc.headers['content-type']).toBe(TAXII);
    expect(disc.json()).toEqual({ title: 'Rampart TAXII 2.1', description: expect.any(String), default: 'https://rampart.example/taxii2/api/', api_roots: ['https://rampart.example/taxii2/api/'] });
    const root = await get('/taxii2/api/', { authorization: `Bearer ${reader.key}`, accept: TAXII });
    expect(root.json()).toMatchObject({ versions: [TAXII] });
    const cols = (await get('/taxii2/api/collections/')).json() as { collections: Array<{ id: string; title: string; can_read: boolean }> };
    expect(cols.collections.map((c) => c.id)).toEqual([allA, seeded.sourceId]);
    expect(cols.collections.every((c) => c.can_read)).toBe(true);
    expect((await get(`/taxii2/api/collections/${seeded.sourceId}/`)).json()).toMatchObject({ id: seeded.sourceId, title: 'Indicators from Seeded source' });
  });

  it('pages a collection by next, with inclusive added_after and the X-TAXII-Date-Added headers', async () => {
    const url = `/taxii2/api/collections/${allA}/objects/`;
    const first = await get(`${url}?limit=4`);
    expect(first.statusCode).toBe(200);
    const p1 = first.json() as { more: boolean; next: string; objects: Array<Record<string, string>> };
    expect(p1.more).toBe(true);
    expect(p1.objects).toHaveLength(4);
    expect(first.headers['x-taxii-date-added-first']).toMatch(/Z$/);
    const seen = p1.objects.map((o) => o.id);
    let next: string | undefined = p1.next;
    while (next) {
      const page = (await get(`${url}?limit=4&next=${encodeURIComponent(next)}`)).json() as typeof p1;
      seen.push(...page.objects.map((o) => o.id));
      next = page.more ? page.next : undefined;
    }
    // 3 items × (ipv4, domain, sha256), each value distinct: 9 indicators, each once.
    expect(new Set(seen).size).toBe(9);
    expect(seen).toHaveLength(9);
    expect(seen).toContain(`indicator--${indicatorUuid(t.orgA.organization.id, 'ipv4', '203.0.113.1')}`);

    // Inclusive: an added_after equal to the last date added returns the objects added then.
    const all = await get(url);
    const last = all.headers['x-taxii-date-added-last'] as string;
    const again = (await get(`${url}?added_after=${encodeURIComponent(last)}`)).json() as typeof p1;
    expect(again.objects.length).toBeGreaterThan(0);
    const later = new Date(Date.parse(last) + 1).toISOString();
    const none = await get(`${url}?added_after=${encodeURIComponent(later)}`);
    expect(none.json()).toEqual({ more: false, objects: [] });
    expect(none.headers['x-taxii-date-added-first']).toBeUndefined();
  });

  it('returns only what changed on an incremental pull, with modified moving only for the changed indicator', async () => {
    const url = `/taxii2/api/collections/${allA}/objects/`;
    const before = await get(url);
    const last = before.headers['x-taxii-date-added-last'] as string;
    const byId = new Map((before.json() as { objects: Array<Record<string, unknown>> }).objects.map((o) => [o.id, o]));
    // Nothing changed: pulling again from just after the last addition gives nothing.
    const after = new Date(Date.parse(last) + 1).toISOString();
    expect((await get(`${url}?added_after=${after}`)).json()).toEqual({ more: false, objects: [] });
    // A re-sighting changes one indicator (its confidence), a check changes nothing in STIX.
    await t.database.db.updateTable('intelIndicators').set({ confidence: 0.95 }).where('id', '=', seeded.indicatorIds[0]!).execute();
    await t.database.db.updateTable('intelIndicators').set({ status: 'found' }).where('id', '=', seeded.indicatorIds[1]!).execute();
    const changed = (await get(`${url}?added_after=${after}`)).json() as { objects: Array<Record<string, unknown>> };
    const id = `indicator--${indicatorUuid(t.orgA.organization.id, 'ipv4', '203.0.113.1')}`;
    expect(changed.objects.map((o) => o.id)).toEqual([id]);
    expect(changed.objects[0]!.confidence).toBe(95);
    expect(changed.objects[0]!.created).toBe(byId.get(id)!.created);
    expect(Date.parse(changed.objects[0]!.modified as string)).toBeGreaterThan(Date.parse(byId.get(id)!.modified as string));
  });

  it('filters by match[type], match[id], match[version], and serves manifest, one object and its versions', async () => {
    const base = `/taxii2/api/collections/${seeded.sourceId}`;
    const id = `indicator--${indicatorUuid(t.orgA.organization.id, 'domain', 'c2-1.evil-example.net')}`;
    expect((await get(`${base}/objects/?match[type]=malware`)).json()).toEqual({ more: false, objects: [] });
    const byId = (await get(`${base}/objects/?match[type]=indicator,malware&match[id]=${id}`)).json() as { objects: Array<Record<string, string>> };
    expect(byId.objects).toHaveLength(1);
    expect(byId.objects[0]).toMatchObject({ id, type: 'indicator', spec_version: '2.1', pattern: "[domain-name:value = 'c2-1.evil-example.net']", pattern_type: 'stix', labels: ['Seeded source'] });
    const version = byId.objects[0]!.modified!;
    expect((await get(`${base}/objects/?match[id]=${id}&match[version]=${version}`)).json()).toMatchObject({ objects: [{ id }] });
    expect((await get(`${base}/objects/?match[id]=${id}&match[version]=2020-01-01T00:00:00.000Z`)).json()).toEqual({ more: false, objects: [] });
    expect((await get(`${base}/objects/?match[id]=${id}&match[version]=all`)).json()).toMatchObject({ objects: [{ id }] });
    expect((await get(`${base}/objects/?match[spec_version]=2.0`)).json()).toEqual({ more: false, objects: [] });

    const manifest = (await get(`${base}/manifest/?limit=2`)).json() as { more: boolean; objects: Array<Record<string, string>> };
    expect(manifest.more).toBe(true);
    expect(manifest.objects[0]).toEqual({ id: expect.stringMatching(/^indicator--/), date_added: expect.any(String), version: expect.any(String), media_type: 'application/stix+json;version=2.1' });

    const one = await get(`${base}/objects/${id}/`);
    expect(one.json()).toMatchObject({ more: false, objects: [{ id, modified: version }] });
    expect(one.headers['x-taxii-date-added-first']).toBeDefined();
    expect((await get(`${base}/objects/${id}/versions/`)).json()).toEqual({ more: false, versions: [version] });
    const unknown = await get(`${base}/objects/indicator--00000000-0000-4000-8000-000000000000/`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ title: 'Not found', description: 'Object not found', http_status: '404', error: 'Object not found' });
  });

  it('refuses other media types with 406, bad credentials with 401, missing permissions with 403, all as TAXII errors', async () => {
    for (const accept of ['application/json', '*/*', 'application/taxii+json;version=2.0']) {
      const res = await get('/taxii2/', { authorization: `Bearer ${reader.key}`, accept });
      expect(res.statusCode).toBe(406);
      expect(res.json()).toEqual({ title: 'Not acceptable', description: `The Accept header must be ${TAXII}`, http_status: '406', error: `The Accept header must be ${TAXII}` });
    }
    expect((await get('/taxii2/', { accept: `application/taxii+json` })).statusCode).toBe(401);
    const bad = await get('/taxii2/api/collections/', basic('rmp_aaaaaaaa_' + 'b'.repeat(43)));
    expect(bad.statusCode).toBe(401);
    expect(bad.headers['content-type']).toBe(TAXII);
    expect(bad.headers['www-authenticate']).toContain('Basic');
    expect(bad.json()).toEqual({ title: 'Unauthorized', description: 'Invalid API key', http_status: '401', error: 'Invalid API key' });
    const denied = await get('/taxii2/api/collections/', basic(noIntel.key));
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ title: 'Forbidden', description: 'Missing required permissions', http_status: '403', error: 'Missing required permissions', missingPerms: ['intel.read'] });
  });

  it('answers 404 for another organization\'s collections and unknown ones, 400 for bad paging input', async () => {
    const orgBAll = allCollectionId(t.orgB.organization.id);
    const bSource = await t.database.db.selectFrom('intelSources').select('id').where('organizationId', '=', t.orgB.organization.id).executeTakeFirstOrThrow();
    for (const id of [orgBAll, bSource.id, 'not-a-collection']) {
      const res = await get(`/taxii2/api/collections/${id}/objects/`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ http_status: '404', error: 'Collection not found' });
    }
    const badNext = await get(`/taxii2/api/collections/${allA}/objects/?next=garbage`);
    expect(badNext.statusCode).toBe(400);
    expect(badNext.json()).toMatchObject({ http_status: '400', error: 'Validation failed', issues: [{ path: 'next', code: 'invalid_next' }] });
    const badDate = await get(`/taxii2/api/collections/${allA}/objects/?added_after=yesterday`);
    expect(badDate.statusCode).toBe(400);
    expect(badDate.json()).toMatchObject({ http_status: '400', issues: [{ path: 'added_after', location: 'query' }] });
    expect((await get(`/taxii2/api/collections/${allA}/objects/?limit=0`)).statusCode).toBe(400);
  });

  it('revokes an indicator whose items are gone', async () => {
    const url = `/taxii2/api/collections/${allA}/objects/`;
    const last = (await get(url)).headers['x-taxii-date-added-last'] as string;
    await t.database.db.deleteFrom('intelItems').where('id', '=', seeded.itemIds[2]!).execute();
    const res = (await get(`${url}?added_after=${new Date(Date.parse(last) + 1).toISOString()}`)).json() as { objects: Array<Record<string, unknown>> };
    expect(res.objects).toHaveLength(3);
    expect(res.objects.every((o) => o.revoked === true)).toBe(true);
  });
});
