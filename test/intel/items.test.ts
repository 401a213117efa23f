import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';
import { seedIntel } from '../support/intel-data.js';

let t: TestContext;
let admin: Record<string, string>;
let reader: TestUser;
let nobody: TestUser;
let seeded: Awaited<ReturnType<typeof seedIntel>>;

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['intel.read']);
  nobody = await userWithPermissions(t.database.db, t.orgA.organization.id, []);
  seeded = await seedIntel(t.database.db, t.orgA.organization.id);
});
afterAll(() => t.close());

const get = (url: string, headers = admin) => t.app.inject({ url, headers });

describe('GET /items', () => {
  it('pages newest first with total, hasNext, validations and outputs', async () => {
    const res = await get('/items?page=1&perPage=2');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ total: 5, page: 1, perPage: 2, hasNext: true });
    expect(body.items.map((i: { event: { title: string } }) => i.event.title)).toEqual(['Weekly roundup 4', 'Weekly roundup 3']);
    expect(body.outputs.severityCounts).toEqual({ none: 1, low: 1, medium: 1, high: 1, critical: 1 });
    expect(body.outputs.sources).toEqual([{ id: seeded.sourceId, name: 'Seeded source', count: 5 }]);
    expect(body.validations).toEqual({ filters: { page: 1, perPage: 2, scope: 'all' }, warnings: [] });
    const last = (await get('/items?page=3&perPage=2')).json();
    expect(last).toMatchObject({ hasNext: false, items: [expect.anything()] });
  });

  it('returns items in the §2.4 shape', async () => {
    const { items } = (await get('/items?search=LockBit')).json();
    expect(items).toHaveLength(1);
    const item = items[0];
    expect(item).toMatchObject({
      id: seeded.itemIds[0],
      source: { url: 'https://seed.example/posts/0', publisher: 'Seed Research', publishTime: '2026-11-01T00:00:00.000Z', language: 'en', name: 'Seeded source', license: 'tlp:clear' },
      event: { title: 'LockBit affiliate exploits CVE-2026-1234 in FortiOS', eventFirstSeen: '2026-11-01T00:00:00.000Z', eventLastSeen: '2026-11-02T00:00:00.000Z' },
      summary: 'Summary 0',
      tldr: 'TLDR 0',
      classification: { attack: [{ technique: 'T1190' }], killChain: [], malware: [], actor: [], mappings: [{ framework: 'cve', id: 'CVE-2026-1234' }] },
      version: 1,
      externalId: 'ext-0',
      canonicalKey: 'CVE-2026-1234',
      duplicateOf: '',
      severity: 'critical',
      status: 'active',
      cves: ['CVE-2026-1234'],
    });
    for (const list of ['ipv4', 'ipv6', 'domains', 'urls', 'hashes', 'files', 'registryKeys', 'processes', 'certs', 'cloudIds', 'mobileIds']) expect(Array.isArray(item.iocs[list])).toBe(true);
    expect(item.iocs.ipv4[0]).toEqual({ value: '203.0.113.1', type: 'ipv4', normalizedValue: '203.0.113.1', firstSeen: '2026-11-01T00:00:00.000Z', lastSeen: '2026-11-02T00:00:00.000Z', ttlDays: 30, confidence: 0.8 });
    expect(item.provenance).toEqual({ supportingPassages: [] });
  });

  it('filters by severity, platform, status, source, minRelevance and scope', async () => {
    const titles = async (q: string) => (await get(`/items?${q}`)).json().items.map((i: { event: { title: string } }) => i.event.title);
    expect(await titles('severity=critical')).toEqual(['LockBit affiliate exploits CVE-2026-1234 in FortiOS']);
    expect(await titles('platform=windows')).toEqual(['LockBit affiliate exploits CVE-2026-1234 in FortiOS']);
    expect(await titles('status=corrected')).toEqual([]);
    expect((await titles('source=Seeded%20source')).length).toBe(5);
    expect((await titles(`source=${seeded.sourceId}`)).length).toBe(5);
    expect(await titles('minRelevance=35')).toEqual(['Weekly roundup 4', 'LockBit affiliate exploits CVE-2026-1234 in FortiOS']);
    expect(await titles('scope=relevant')).toEqual(['Weekly roundup 4', 'LockBit affiliate exploits CVE-2026-1234 in FortiOS']);
    const unknown = (await get('/items?source=nope')).json();
    expect(unknown).toMatchObject({ total: 0, validations: { warnings: ['No source matches "nope"'] } });
  });

  it('rejects out-of-range parameters with one issue per field', async () => {
    const res = await get('/items?page=0&perPage=101&minRelevance=101&severity=severe&scope=mine');
    expect(res.statusCode).toBe(400);
    const issues = res.json().issues as Array<{ path: string; location: string }>;
    expect(issues.map((i) => i.path).sort()).toEqual(['minRelevance', 'page', 'perPage', 'scope', 'severity']);
    expect(issues.every((i) => i.location === 'query')).toBe(true);
  });

  it('needs intel.read and hides other organizations\' items', async () => {
    expect((await get('/items', bearer(nobody.key))).json()).toEqual({ error: 'Missing required permissions', missingPerms: ['intel.read'] });
    expect((await get('/items', bearer(reader.key))).statusCode).toBe(200);
    expect((await get('/items', bearer(t.orgB.apiKey.key))).json()).toMatchObject({ total: 0, items: [] });
  });
});

describe('GET /items/{id}', () => {
  it('returns one item, 404 for another organization\'s', async () => {
    expect((await get(`/items/${seeded.itemIds[0]}`)).json()).toMatchObject({ id: seeded.itemIds[0] });
    const other = await get(`/items/${seeded.itemIds[0]}`, bearer(t.orgB.apiKey.key));
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual({ error: 'Intel item not found' });
    expect((await get('/items/not-a-uuid')).statusCode).toBe(400);
  });

  it('annotates the stored text: each indicator and each rejected candidate at its exact span', async () => {
    const text = 'Beacon to 45.77.12.9 then evil-updates[.]com; internal 10.0.0.5 untouched.';
    await t.database.db.updateTable('intelItems').set({ contentText: text }).where('id', '=', seeded.itemIds[1]!).execute();
    const { annotatedText } = (await get(`/items/${seeded.itemIds[1]}`)).json();
    expect(annotatedText.text).toBe(text);
    expect(annotatedText.indicators).toEqual([
      { type: 'ipv4', value: '45.77.12.9', normalizedValue: '45.77.12.9', confidence: expect.any(Number), start: 10, end: 20 },
      { type: 'domain', value: 'evil-updates[.]com', normalizedValue: 'evil-updates.com', confidence: expect.any(Number), start: 26, end: 44 },
    ]);
    expect(annotatedText.rejected).toEqual([{ type: 'ipv4', value: '10.0.0.5', reason: expect.any(String), start: 55, end: 63 }]);
  });
});

describe('GET /iocs and POST /iocs/{id}/checks', () => {
  it('lists flattened indicators with status counts and available types', async () => {
    const res = await get('/iocs?perPage=4');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ total: 15, page: 1, perPage: 4, hasNext: true, statusCounts: { found: 0, clean: 0, unchecked: 15, unknown: 0 }, availableTypes: ['domain', 'ipv4', 'sha256'] });
    expect(body.rows[0]).toEqual({ id: expect.any(String), value: expect.any(String), normalizedValue: expect.any(String), defanged: false, type: expect.any(String), intelItemId: expect.any(String), intelTitle: expect.any(String), sourceLabel: 'Seeded source', status: 'unchecked', lastCheckedAt: null });
  });

  it('searches by substring (case-insensitive), filters type and status, and records checks', async () => {
    const search = (await get('/iocs?search=C2-3.EVIL')).json();
    expect(search.rows.map((r: { value: string }) => r.value)).toEqual(['c2-3.evil-example.net']);
    const ipRow = (await get('/iocs?type=ipv4&search=203.0.113.2')).json().rows[0];
    const check = await t.app.inject({ method: 'POST', url: `/iocs/${ipRow.id}/checks`, headers: admin, payload: { outcome: 'found', evidence: 'proxy logs', checkedAt: '2026-11-20T10:00:00Z' } });
    expect(check.statusCode).toBe(200);
    expect(check.json()).toMatchObject({ outcome: 'found', evidence: 'proxy logs', checkedAt: '2026-11-20T10:00:00.000Z', ioc: { id: ipRow.id, status: 'found', lastCheckedAt: '2026-11-20T10:00:00.000Z' } });
    // An older report does not override the newer outcome.
    await t.app.inject({ method: 'POST', url: `/iocs/${ipRow.id}/checks`, headers: admin, payload: { outcome: 'clean', checkedAt: '2026-11-19T10:00:00Z' } });
    const found = (await get('/iocs?status=found')).json();
    expect(found).toMatchObject({ total: 1, statusCounts: { found: 1, unchecked: 14 }, rows: [{ id: ipRow.id, status: 'found' }] });
    const unknown = await t.app.inject({ method: 'POST', url: `/iocs/${ipRow.id}/checks`, headers: admin, payload: { outcome: 'unknown' } });
    expect(unknown.json().ioc.status).toBe('unknown');
  });

  it('validates the query and the check body', async () => {
    const bad = await get('/iocs?perPage=201&page=0&status=seen');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issues.map((i: { path: string }) => i.path).sort()).toEqual(['page', 'perPage', 'status']);
    const ioc = (await get('/iocs?perPage=1')).json().rows[0];
    const badCheck = await t.app.inject({ method: 'POST', url: `/iocs/${ioc.id}/checks`, headers: admin, payload: { outcome: 'maybe' } });
    expect(badCheck.statusCode).toBe(400);
    expect(badCheck.json().issues[0].path).toBe('outcome');
  });

  it('needs intel.manage to record, and answers 404 across organizations', async () => {
    const ioc = (await get('/iocs?perPage=1')).json().rows[0];
    const denied = await t.app.inject({ method: 'POST', url: `/iocs/${ioc.id}/checks`, headers: bearer(reader.key), payload: { outcome: 'clean' } });
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['intel.manage'] });
    const other = await t.app.inject({ method: 'POST', url: `/iocs/${ioc.id}/checks`, headers: bearer(t.orgB.apiKey.key), payload: { outcome: 'clean' } });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual({ error: 'Indicator not found' });
    expect((await get('/iocs', bearer(t.orgB.apiKey.key))).json()).toMatchObject({ total: 0, availableTypes: [] });
  });
});

describe('GET /stats', () => {
  it('aggregates the feed', async () => {
    const res = await get('/stats', bearer(reader.key));
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ totalItems: 5, severityBreakdown: { critical: 1, high: 1, medium: 1, low: 1, none: 1 }, platformBreakdown: { linux: 4, windows: 1, network: 1 }, sourcePublishers: ['Seed Research'] });
    expect(body.recentItems[0]).toEqual({ id: seeded.itemIds[4], title: 'Weekly roundup 4', severity: 'none', publishTime: '2026-11-05T00:00:00.000Z' });
    expect((await get('/stats', bearer(nobody.key))).statusCode).toBe(403);
  });
});

describe('POST /items/{id}/detection-context', () => {
  it('builds context and a Sigma draft pinned to the indicators, fetchable again at chatUrl', async () => {
    const res = await t.app.inject({ method: 'POST', url: `/items/${seeded.itemIds[0]}/detection-context`, headers: admin });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.asset).toMatchObject({ type: 'sigma_rule', title: expect.stringContaining('LockBit') });
    expect(body.asset.content).toContain('dst_ip:');
    expect(body.asset.content).toContain('"203.0.113.1"');
    expect(body.asset.content).toContain('"c2-0.evil-example.net"');
    expect(body.asset.content).toContain('attack.t1190');
    expect(body.detectionContext).toMatchObject({ itemId: seeded.itemIds[0], indicators: { ipv4: ['203.0.113.1'], domain: ['c2-0.evil-example.net'] }, techniques: [{ id: 'T1190' }], logSources: expect.arrayContaining(['firewall', 'dns']) });
    const url = new URL(body.chatUrl);
    const again = await get(url.pathname);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(body);
    const other = await t.app.inject({ method: 'POST', url: `/items/${seeded.itemIds[0]}/detection-context`, headers: bearer(t.orgB.apiKey.key) });
    expect(other.statusCode).toBe(404);
  });
});
