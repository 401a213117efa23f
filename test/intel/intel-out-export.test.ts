import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { createTestApp, bearer, type TestContext } from '../support/app.js';
import { seedIntel } from '../support/intel-data.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';
import { loadStixSchemas, STIX_SCHEMAS_DIR } from '../support/stix-schemas.js';
import { entryFromMispEvent, parseFeedEvent } from '../../src/modules/intel-ingest/connectors/misp/misp.fns.js';
import { indicatorUuid } from '../../src/modules/intel-out/stix.fns.js';

describe('GET /iocs/export', () => {
  let t: TestContext;
  let reader: TestUser;
  let seeded: Awaited<ReturnType<typeof seedIntel>>;

  beforeAll(async () => {
    t = await createTestApp({ env: { RAMPART_RATE_LIMIT_PER_MINUTE: '0' } });
    const db = t.database.db;
    const org = t.orgA.organization.id;
    seeded = await seedIntel(db, org, { items: 2 });
    await seedIntel(db, t.orgB.organization.id, { items: 1, sourceName: 'b' });
    const now = new Date();
    const row = (itemId: string, type: string, value: string, confidence = 0.5) => ({ id: uuidv7(), organizationId: org, itemId, type, value, normalizedValue: value, confidence, firstSeen: now, lastSeen: now, ttlDays: 30, intelTitle: 't', sourceLabel: 'Seeded source', createdAt: now });
    await db.insertInto('intelIndicators').values([
      // The same value named by a second item: one entry in every export.
      row(seeded.itemIds[1]!, 'ipv4', '203.0.113.1', 0.3),
      row(seeded.itemIds[0]!, 'ipv4', '198.51.100.0/24'),
      row(seeded.itemIds[0]!, 'ipv4', '198.51.100.9/32'),
      row(seeded.itemIds[0]!, 'url', 'https://evil.example/a,"b"?x=1'),
      row(seeded.itemIds[0]!, 'filename', '=cmd.exe'),
      row(seeded.itemIds[0]!, 'cve', 'CVE-2026-1234'),
    ]).execute();
    await db.updateTable('intelIndicators').set({ status: 'found' }).where('normalizedValue', '=', 'c2-1.evil-example.net').execute();
    reader = await userWithPermissions(db, org, ['intel.read']);
  });
  afterAll(() => t?.close());

  const exp = (qs: string, key = reader.key) => t.app.inject({ url: `/iocs/export?${qs}`, headers: bearer(key) });
  const lines = (body: string) => body.split('\n').filter(Boolean).sort();

  it('txt: one normalized value per line, once, hosts and CIDR-free addresses, with a role that only has intel.read', async () => {
    const all = await exp('format=txt');
    expect(all.statusCode).toBe(200);
    expect(all.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(all.headers['content-disposition']).toBe('attachment; filename="rampart-iocs.txt"');
    const values = lines(all.body);
    expect(values.filter((v) => v === '203.0.113.1')).toHaveLength(1);
    expect(values).not.toContain('CVE-2026-1234'); // no observable: not an indicator of a list
    expect(values).not.toContain('203.0.113.1'.replace('1', '9')); // another organization's
    const ips = await exp('format=txt&type=ipv4');
    expect(lines(ips.body)).toEqual(['198.51.100.9', '203.0.113.1', '203.0.113.2']);
    expect(lines((await exp('format=txt&type=domain')).body)).toEqual(['c2-0.evil-example.net', 'c2-1.evil-example.net']);
    // A firewall sends the key as the password of Basic auth.
    const basic = await t.app.inject({ url: '/iocs/export?format=txt&type=ipv4', headers: { authorization: `Basic ${Buffer.from(`edl:${reader.key}`).toString('base64')}` } });
    expect(lines(basic.body)).toEqual(lines(ips.body));
  });

  it('txt: defang, and the filters status, search, minConfidence and since', async () => {
    expect(lines((await exp('format=txt&type=ipv4&defang=true')).body)).toEqual(['198.51.100[.]9', '203.0.113[.]1', '203.0.113[.]2']);
    expect(lines((await exp('format=txt&type=url&defang=true')).body)).toEqual(['hxxps://evil[.]example/a,"b"?x=1']);
    expect(lines((await exp('format=txt&status=found')).body)).toEqual(['c2-1.evil-example.net']);
    expect(lines((await exp('format=txt&search=EVIL-example')).body)).toEqual(['c2-0.evil-example.net', 'c2-1.evil-example.net']);
    // The same type and search rules as /iocs: lists, aliases, a pasted defanged value; unknown types are a 400.
    expect(lines((await exp('format=txt&search=c2-1.evil-example[.]net')).body)).toEqual(['c2-1.evil-example.net']);
    expect(lines((await exp('format=txt&type=ip')).body)).toEqual(['198.51.100.9', '203.0.113.1', '203.0.113.2']);
    expect(lines((await exp('format=txt&type=ipv4,domain')).body)).toHaveLength(5);
    const bogus = await exp('format=txt&type=bogus');
    expect(bogus.statusCode).toBe(400);
    expect(bogus.json().issues[0].message).toContain('Unknown indicator type(s) bogus');
    // minConfidence is on the 0..100 scale: the seeded rows are 0.8, the extra ones 0.5.
    expect(lines((await exp('format=txt&minConfidence=80')).body)).toHaveLength(6);
    expect(lines((await exp('format=txt&since=2999-01-01T00:00:00Z')).body)).toEqual([]);
    expect(lines((await exp('format=txt&since=2000-01-01T00:00:00Z')).body).length).toBeGreaterThan(6);
  });

  it('csv: RFC 4180 with the documented columns, quoted fields and no formula injection', async () => {
    const res = await exp('format=csv&type=url');
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    const [header, row, end] = res.body.split('\r\n');
    expect(header).toBe('type,value,confidence,valid_from,valid_until,first_added,modified,sources,stix_id');
    expect(row).toMatch(/^url,"https:\/\/evil\.example\/a,""b""\?x=1",50,[^,]+Z,[^,]+Z,[^,]+Z,[^,]+Z,Seeded source,indicator--[0-9a-f-]{36}$/);
    expect(end).toBe('');
    const file = (await exp('format=csv&type=filename')).body.split('\r\n')[1]!;
    expect(file.startsWith("filename,'=cmd.exe,")).toBe(true);
  });

  it('stix: a bundle of indicators, reports and ATT&CK relationships valid against the OASIS STIX 2.1 schemas', async (ctx) => {
    const res = await exp('format=stix');
    expect(res.headers['content-type']).toBe('application/stix+json;version=2.1');
    const bundle = res.json() as { type: string; id: string; objects: Array<Record<string, unknown>> };
    const byType = (type: string) => bundle.objects.filter((o) => o.type === type);
    const ip = byType('indicator').find((o) => o.name === '203.0.113.1')!;
    expect(ip).toMatchObject({ id: `indicator--${indicatorUuid(t.orgA.organization.id, 'ipv4', '203.0.113.1')}`, pattern: "[ipv4-addr:value = '203.0.113.1']", confidence: 80 });
    expect(byType('indicator').filter((o) => o.name === '203.0.113.1')).toHaveLength(1);
    expect(byType('report')).toHaveLength(2);
    expect(byType('report').every((r) => (r.object_refs as string[]).every((ref) => bundle.objects.some((o) => o.id === ref)))).toBe(true);
    expect(byType('attack-pattern')).toMatchObject([{ name: 'Exploit Public-Facing Application', external_references: [{ source_name: 'mitre-attack', external_id: 'T1190' }] }]);
    expect(byType('relationship').length).toBeGreaterThan(0);
    expect(byType('relationship').every((r) => r.relationship_type === 'indicates' && r.target_ref === byType('attack-pattern')[0]!.id)).toBe(true);
    const schemas = loadStixSchemas();
    if (!schemas) return ctx.skip(`OASIS STIX schemas not found at ${STIX_SCHEMAS_DIR}`);
    expect(schemas.bundle(bundle)).toEqual([]);
    expect(bundle.objects.flatMap((o) => schemas.object(o))).toEqual([]);
  });

  it('misp: one event that Rampart\'s own MISP parser reads back to the same indicators', async () => {
    const res = await exp('format=misp&type=ipv4');
    expect(res.headers['content-type']).toBe('application/json');
    const event = parseFeedEvent(res.json());
    const entry = entryFromMispEvent(event, { serverUrl: null, publisher: null });
    expect(entry.indicators.map((i) => `${i.type}:${i.value}`).sort()).toEqual(['ipv4:198.51.100.0/24', 'ipv4:198.51.100.9/32', 'ipv4:203.0.113.1', 'ipv4:203.0.113.2']);
    expect((res.json() as { Event: { Attribute: Array<Record<string, unknown>> } }).Event.Attribute[0]).toMatchObject({ type: 'ip-dst', category: 'Network activity', to_ids: true });
  });

  it('refuses bad input (400), missing keys (401) and roles without intel.read (403)', async () => {
    const bad = await exp('format=xml');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'Validation failed', issues: [{ path: 'format', location: 'query' }] });
    expect((await exp('format=txt&minConfidence=101')).statusCode).toBe(400);
    expect((await exp('format=txt&since=yesterday')).statusCode).toBe(400);
    expect((await exp('')).json()).toMatchObject({ issues: [{ path: 'format' }] });
    expect((await t.app.inject({ url: '/iocs/export?format=txt' })).statusCode).toBe(401);
    const other = await userWithPermissions(t.database.db, t.orgA.organization.id, ['alert.read']);
    const denied = await exp('format=txt', other.key);
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['intel.read'] });
  });
});
