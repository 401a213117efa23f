import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';
import { blocklistsModule } from '../../src/modules/blocklists/index.js';
import { noEvents } from '../../src/platform/events.js';
import pino from 'pino';

/** Block lists through the real HTTP API: lists, entries, the allow list, the external list and the TAXII collection. */
let t: TestContext;
let key: string;
let reader: TestUser;
const TAXII = 'application/taxii+json;version=2.1';
const basic = (k: string) => ({ authorization: `Basic ${Buffer.from(`edl:${k}`).toString('base64')}` });

async function createList(body: Record<string, unknown>, k = key) {
  return t.app.inject({ method: 'POST', url: '/api/blocklists', headers: bearer(k), payload: body });
}
async function addEntry(listId: string, body: Record<string, unknown>, k = key) {
  return t.app.inject({ method: 'POST', url: `/api/blocklists/${listId}/entries`, headers: bearer(k), payload: body });
}

beforeAll(async () => {
  t = await createTestApp();
  key = t.orgA.apiKey.key;
  reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['blocklist.read']);
});
afterAll(async () => {
  await t?.close();
});

describe('block lists', () => {
  let listId: string;

  it('creates, reads, renames and refuses a taken name', async () => {
    const created = await createList({ name: 'perimeter', description: 'Edge firewalls', indicatorTypes: ['ipv4', 'ipv6', 'domain', 'url'], defaultTtlSeconds: 86_400 });
    expect(created.statusCode, created.body).toBe(201);
    const list = created.json();
    listId = list.id;
    expect(list).toEqual({
      id: expect.any(String),
      name: 'perimeter',
      description: 'Edge firewalls',
      indicatorTypes: ['ipv4', 'ipv6', 'domain', 'url'],
      defaultTtlSeconds: 86_400,
      activeEntries: 0,
      url: `${t.config.baseUrl.replace(/\/+$/, '')}/blocklists/perimeter.txt`,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    const again = await createList({ name: 'perimeter', indicatorTypes: ['ipv4'] });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'A block list named "perimeter" already exists' });

    const other = (await createList({ name: 'hashes', indicatorTypes: ['sha256'] })).json();
    const renamedTaken = await t.app.inject({ method: 'PATCH', url: `/api/blocklists/${other.id}`, headers: bearer(key), payload: { name: 'perimeter' } });
    expect(renamedTaken.statusCode).toBe(409);
    expect(renamedTaken.json()).toEqual({ error: 'A block list named "perimeter" already exists' });
    const patched = await t.app.inject({ method: 'PATCH', url: `/api/blocklists/${other.id}`, headers: bearer(key), payload: { name: 'malware-hashes', defaultTtlSeconds: null } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ name: 'malware-hashes', defaultTtlSeconds: null, url: expect.stringMatching(/\/blocklists\/malware-hashes\.txt$/) });

    const all = await t.app.inject({ url: '/api/blocklists', headers: bearer(reader.key) });
    expect(all.statusCode).toBe(200);
    expect(all.json()).toMatchObject({ totalCount: 2, blocklists: [{ name: 'malware-hashes' }, { name: 'perimeter' }] });
    const one = await t.app.inject({ url: `/api/blocklists/${listId}`, headers: bearer(reader.key) });
    expect(one.json()).toMatchObject({ id: listId, name: 'perimeter' });

    const gone = await t.app.inject({ method: 'DELETE', url: `/api/blocklists/${other.id}`, headers: bearer(key) });
    expect(gone.json()).toEqual({ success: true });
    expect((await t.app.inject({ url: `/api/blocklists/${other.id}`, headers: bearer(key) })).statusCode).toBe(404);
  });

  it('refuses bad input with 400 naming the field', async () => {
    const badName = await createList({ name: 'Perimeter List', indicatorTypes: ['ipv4'] });
    expect(badName.statusCode).toBe(400);
    expect(badName.json()).toMatchObject({ error: 'Validation failed', issues: [expect.objectContaining({ path: 'name', location: 'body' })] });
    const badType = await createList({ name: 'x', indicatorTypes: ['cve'] });
    expect(badType.statusCode).toBe(400);
    expect(badType.json().issues[0].path).toMatch(/^indicatorTypes/);
    const noTypes = await createList({ name: 'x', indicatorTypes: [] });
    expect(noTypes.statusCode).toBe(400);
    const shortTtl = await createList({ name: 'x', indicatorTypes: ['ipv4'], defaultTtlSeconds: 5 });
    expect(shortTtl.statusCode).toBe(400);
    const emptyPatch = await t.app.inject({ method: 'PATCH', url: `/api/blocklists/${listId}`, headers: bearer(key), payload: {} });
    expect(emptyPatch.statusCode).toBe(400);
    const badId = await t.app.inject({ url: '/api/blocklists/not-a-uuid', headers: bearer(key) });
    expect(badId.statusCode).toBe(400);
  });

  it('answers 401 without a key, 403 naming the missing permission, 404 for another organization\'s ids', async () => {
    const anonymous = await t.app.inject({ url: '/api/blocklists' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({ error: 'Missing Authorization header (expected "Bearer <API key>")' });
    const denied = await createList({ name: 'nope', indicatorTypes: ['ipv4'] }, reader.key);
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['blocklist.manage'] });
    const nobody = await userWithPermissions(t.database.db, t.orgA.organization.id, []);
    const cannotRead = await t.app.inject({ url: '/api/blocklists', headers: bearer(nobody.key) });
    expect(cannotRead.statusCode).toBe(403);
    expect(cannotRead.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['blocklist.read'] });
    const cannotAdd = await addEntry(listId, { type: 'ipv4', value: '198.51.100.1', reason: 'x' }, reader.key);
    expect(cannotAdd.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['blocklist.manage'] });

    const keyB = t.orgB.apiKey.key;
    for (const [method, url, payload] of [
      ['GET', `/api/blocklists/${listId}`, undefined],
      ['PATCH', `/api/blocklists/${listId}`, { description: 'mine now' }],
      ['DELETE', `/api/blocklists/${listId}`, undefined],
      ['GET', `/api/blocklists/${listId}/entries`, undefined],
      ['POST', `/api/blocklists/${listId}/entries`, { type: 'ipv4', value: '198.51.100.1', reason: 'x' }],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: bearer(keyB), ...(payload ? { payload } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toEqual({ error: 'Block list not found' });
    }
    const txt = await t.app.inject({ url: '/blocklists/perimeter.txt', headers: basic(keyB) });
    expect(txt.statusCode).toBe(404);
    expect(txt.json()).toEqual({ error: 'Block list not found' });
  });

  it('adds entries, normalized, and blocking again renews', async () => {
    const ip = await addEntry(listId, { type: 'ipv4', value: '198.51.100.23', reason: 'C2 beacon seen from 3 hosts' });
    expect(ip.statusCode, ip.body).toBe(201);
    expect(ip.json()).toEqual({
      id: expect.any(String),
      blocklistId: listId,
      type: 'ipv4',
      value: '198.51.100.23',
      reason: 'C2 beacon seen from 3 hosts',
      expiresAt: expect.any(String),
      addedBy: { type: 'user', userId: t.orgA.user.id },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    // The list's default TTL (a day) applies.
    const ttl = new Date(ip.json().expiresAt).getTime() - new Date(ip.json().createdAt).getTime();
    expect(Math.round(ttl / 1000 / 60)).toBe(24 * 60);

    const renewed = await addEntry(listId, { type: 'ipv4', value: '198.51.100.23', reason: 'Still beaconing', expiresAt: null });
    expect(renewed.statusCode).toBe(200);
    expect(renewed.json()).toMatchObject({ id: ip.json().id, reason: 'Still beaconing', expiresAt: null });

    const domain = await addEntry(listId, { type: 'domain', value: 'Login-Rnicrosoft[.]COM', reason: 'Credential phishing', ttlSeconds: 3600 });
    expect(domain.statusCode, domain.body).toBe(201);
    expect(domain.json().value).toBe('login-rnicrosoft.com');
    const net = await addEntry(listId, { type: 'ipv4', value: '203.0.113.77/24', reason: 'Bulletproof hosting range' });
    expect(net.json().value).toBe('203.0.113.0/24');
    const url = await addEntry(listId, { type: 'url', value: 'hxxps://files.evil-cdn[.]net/payload.exe', reason: 'Dropper' });
    expect(url.statusCode, url.body).toBe(201);
    expect(url.json().value).toBe('https://files.evil-cdn.net/payload.exe');
    const v6 = await addEntry(listId, { type: 'ipv6', value: '2001:DB8:0:0::5', reason: 'Scanner' });
    expect(v6.json().value).toBe('2001:db8::5');

    const listed = await t.app.inject({ url: `/api/blocklists/${listId}/entries?type=ipv4`, headers: bearer(reader.key) });
    expect(listed.json()).toMatchObject({ totalCount: 2, entries: [{ value: '198.51.100.23' }, { value: '203.0.113.0/24' }] });
    expect((await t.app.inject({ url: `/api/blocklists/${listId}`, headers: bearer(key) })).json().activeEntries).toBe(5);
  });

  it('refuses what the list does not hold, what is not a value of the type, and a past expiry', async () => {
    const wrongType = await addEntry(listId, { type: 'sha256', value: 'a'.repeat(64), reason: 'x' });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json()).toEqual({ error: 'Validation failed', issues: [{ path: 'type', message: 'The block list "perimeter" holds ipv4, ipv6, domain, url, not sha256', code: 'type_not_accepted', location: 'body' }] });
    const notIp = await addEntry(listId, { type: 'ipv4', value: 'evil.example.net', reason: 'x' });
    expect(notIp.statusCode).toBe(400);
    expect(notIp.json().issues[0]).toMatchObject({ path: 'value', code: 'invalid_value' });
    const past = await addEntry(listId, { type: 'ipv4', value: '198.51.100.9', reason: 'x', expiresAt: '2020-01-01T00:00:00Z' });
    expect(past.statusCode).toBe(400);
    expect(past.json().issues[0]).toEqual({ path: 'expiresAt', message: 'must be in the future', code: 'expiry_in_past', location: 'body' });
    const both = await addEntry(listId, { type: 'ipv4', value: '198.51.100.9', reason: 'x', expiresAt: '2099-01-01T00:00:00Z', ttlSeconds: 600 });
    expect(both.statusCode).toBe(400);
    const noReason = await addEntry(listId, { type: 'ipv4', value: '198.51.100.9' });
    expect(noReason.statusCode).toBe(400);
  });

  it('refuses private, loopback and link-local addresses and the organization\'s own domains and ranges with 422', async () => {
    const private1918 = await addEntry(listId, { type: 'ipv4', value: '10.20.30.40', reason: 'lateral movement' });
    expect(private1918.statusCode).toBe(422);
    expect(private1918.json()).toEqual({
      error: '10.20.30.40 must never be blocked: the allow list protects 10.0.0.0/8 (private network (RFC 1918))',
      code: 'allowlisted',
      allowRule: { kind: 'cidr', value: '10.0.0.0/8', builtin: true },
    });
    // A network wider than a private range covers it too.
    const wide = await addEntry(listId, { type: 'ipv4', value: '8.0.0.0/6', reason: 'x' });
    expect(wide.statusCode).toBe(422);
    expect(wide.json().allowRule).toEqual({ kind: 'cidr', value: '10.0.0.0/8', builtin: true });
    for (const [type, value] of [['ipv4', '127.0.0.1'], ['ipv4', '169.254.169.254'], ['ipv4', '192.168.1.10'], ['ipv6', 'fe80::1'], ['ipv6', '::1'], ['url', 'http://172.16.0.5/admin']] as const) {
      const res = await addEntry(listId, { type, value, reason: 'x' });
      expect(res.statusCode, `${type} ${value}`).toBe(422);
      expect(res.json().code).toBe('allowlisted');
    }

    const rule = await t.app.inject({ method: 'POST', url: '/api/blocklist-allowlist', headers: bearer(key), payload: { kind: 'domain', value: 'Corp.Example.COM.', note: 'our domain' } });
    expect(rule.statusCode, rule.body).toBe(201);
    expect(rule.json()).toEqual({ id: expect.any(String), kind: 'domain', value: 'corp.example.com', note: 'our domain', builtin: false, createdAt: expect.any(String) });
    const dup = await t.app.inject({ method: 'POST', url: '/api/blocklist-allowlist', headers: bearer(key), payload: { kind: 'domain', value: 'corp.example.com' } });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toEqual({ error: 'The allow list already holds corp.example.com' });
    const range = await t.app.inject({ method: 'POST', url: '/api/blocklist-allowlist', headers: bearer(key), payload: { kind: 'cidr', value: '198.51.100.200/29' } });
    expect(range.json()).toMatchObject({ kind: 'cidr', value: '198.51.100.200/29' });
    const badRange = await t.app.inject({ method: 'POST', url: '/api/blocklist-allowlist', headers: bearer(key), payload: { kind: 'cidr', value: 'corp.example.com' } });
    expect(badRange.statusCode).toBe(400);
    expect(badRange.json().issues[0]).toMatchObject({ path: 'value', code: 'invalid_value' });

    const sub = await addEntry(listId, { type: 'domain', value: 'vpn.corp.example.com', reason: 'x' });
    expect(sub.statusCode).toBe(422);
    expect(sub.json()).toEqual({ error: 'vpn.corp.example.com must never be blocked: the allow list protects corp.example.com (our domain)', code: 'allowlisted', allowRule: { kind: 'domain', value: 'corp.example.com', builtin: false } });
    const parent = await addEntry(listId, { type: 'url', value: 'https://example.com/login', reason: 'x' });
    expect(parent.statusCode).toBe(422);
    const inRange = await addEntry(listId, { type: 'ipv4', value: '198.51.100.201', reason: 'x' });
    expect(inRange.statusCode).toBe(422);
    expect(inRange.json().allowRule).toEqual({ kind: 'cidr', value: '198.51.100.200/29', builtin: false });

    const rules = (await t.app.inject({ url: '/api/blocklist-allowlist', headers: bearer(reader.key) })).json().rules;
    expect(rules.filter((r: { builtin: boolean }) => r.builtin).map((r: { value: string }) => r.value)).toEqual(expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '127.0.0.0/8', '169.254.0.0/16', 'fe80::/10', 'localhost']));
    expect(rules.filter((r: { builtin: boolean }) => !r.builtin).map((r: { value: string }) => r.value)).toEqual(['198.51.100.200/29', 'corp.example.com']);

    // Other organizations do not see or remove it; removing it lets the value through.
    const otherOrg = await t.app.inject({ method: 'DELETE', url: `/api/blocklist-allowlist/${range.json().id}`, headers: bearer(t.orgB.apiKey.key) });
    expect(otherOrg.statusCode).toBe(404);
    expect(otherOrg.json()).toEqual({ error: 'Allow rule not found' });
    const readerDelete = await t.app.inject({ method: 'DELETE', url: `/api/blocklist-allowlist/${range.json().id}`, headers: bearer(reader.key) });
    expect(readerDelete.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['blocklist.manage'] });
    expect((await t.app.inject({ method: 'DELETE', url: `/api/blocklist-allowlist/${range.json().id}`, headers: bearer(key) })).json()).toEqual({ success: true });
    expect((await addEntry(listId, { type: 'ipv4', value: '198.51.100.201', reason: 'x' })).statusCode).toBe(201);
  });

  it('serves the external list with the API key as the Basic password, by type, without expired entries', async () => {
    const res = await t.app.inject({ url: '/blocklists/perimeter.txt', headers: basic(reader.key) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.body.split('\n')).toEqual(['198.51.100.23', 'login-rnicrosoft.com', '203.0.113.0/24', 'files.evil-cdn.net/payload.exe', '2001:db8::5', '198.51.100.201', '']);
    const ips = await t.app.inject({ url: '/blocklists/perimeter.txt?type=ip', headers: basic(reader.key) });
    expect(ips.body).toBe('198.51.100.23\n203.0.113.0/24\n2001:db8::5\n198.51.100.201\n');
    const bearerToo = await t.app.inject({ url: '/blocklists/perimeter.txt?type=domain', headers: bearer(reader.key) });
    expect(bearerToo.body).toBe('login-rnicrosoft.com\n');

    const noAuth = await t.app.inject({ url: '/blocklists/perimeter.txt' });
    expect(noAuth.statusCode).toBe(401);
    expect(noAuth.json()).toEqual({ error: 'Missing Authorization header (expected "Bearer <API key>")' });
    const wrongKey = await t.app.inject({ url: '/blocklists/perimeter.txt', headers: basic('rmp_wrong') });
    expect(wrongKey.statusCode).toBe(401);
    const nobody = await userWithPermissions(t.database.db, t.orgA.organization.id, ['intel.read']);
    const denied = await t.app.inject({ url: '/blocklists/perimeter.txt', headers: basic(nobody.key) });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['blocklist.read'] });
    const unknown = await t.app.inject({ url: '/blocklists/nothing-here.txt', headers: basic(reader.key) });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'Block list not found' });
    const badType = await t.app.inject({ url: '/blocklists/perimeter.txt?type=cve', headers: basic(reader.key) });
    expect(badType.statusCode).toBe(400);

    // The domain's hour passes (the clock moved in the database): it leaves the list, the API and the count at once.
    await sql`UPDATE blocklist_entries SET expires_at = now() - interval '1 second' WHERE value = 'login-rnicrosoft.com'`.execute(t.database.db);
    expect((await t.app.inject({ url: '/blocklists/perimeter.txt?type=domain', headers: basic(reader.key) })).body).toBe('');
    const active = (await t.app.inject({ url: `/api/blocklists/${listId}/entries`, headers: bearer(key) })).json();
    expect(active.entries.map((e: { value: string }) => e.value)).not.toContain('login-rnicrosoft.com');
    const withExpired = (await t.app.inject({ url: `/api/blocklists/${listId}/entries?includeExpired=true`, headers: bearer(key) })).json();
    expect(withExpired.entries.map((e: { value: string }) => e.value)).toContain('login-rnicrosoft.com');
    expect((await t.app.inject({ url: `/api/blocklists/${listId}`, headers: bearer(key) })).json().activeEntries).toBe(5);

    // The cleanup pass deletes it once its grace (an hour) is over, not before.
    const pass = blocklistsModule.schedulerPasses![0]!;
    const deps = { db: t.database.db, logger: pino({ level: 'silent' }), events: noEvents, runGraceMs: 0 };
    await pass.run(deps);
    expect((await t.app.inject({ url: `/api/blocklists/${listId}/entries?includeExpired=true`, headers: bearer(key) })).json().totalCount).toBe(6);
    await sql`UPDATE blocklist_entries SET expires_at = now() - interval '2 hours' WHERE value = 'login-rnicrosoft.com'`.execute(t.database.db);
    await pass.run(deps);
    expect((await t.app.inject({ url: `/api/blocklists/${listId}/entries?includeExpired=true`, headers: bearer(key) })).json().totalCount).toBe(5);
  });

  it('serves each list as a TAXII 2.1 collection of indicators valid until their expiry', async () => {
    // The TAXII server's intel.read, and the list's blocklist.read: with only the first, the collection is not there.
    const both = await userWithPermissions(t.database.db, t.orgA.organization.id, ['intel.read', 'blocklist.read']);
    const intelOnly = await userWithPermissions(t.database.db, t.orgA.organization.id, ['intel.read']);
    const notListed = (await t.app.inject({ url: '/taxii2/api/collections/', headers: { ...basic(intelOnly.key), accept: TAXII } })).json().collections;
    expect(notListed.map((c: { id: string }) => c.id)).not.toContain(listId);
    const hidden = await t.app.inject({ url: `/taxii2/api/collections/${listId}/objects/`, headers: { ...basic(intelOnly.key), accept: TAXII } });
    expect(hidden.statusCode).toBe(404);
    const taxii = { ...basic(both.key), accept: TAXII };
    const listed = await t.app.inject({ url: "/taxii2/api/collections/", headers: taxii });
    expect(listed.statusCode, listed.body).toBe(200);
    const collections = listed.json().collections;
    expect(collections).toContainEqual({ id: listId, title: 'Block list perimeter', description: 'Edge firewalls', can_read: true, can_write: false, media_types: ['application/stix+json;version=2.1'] });
    const one = await t.app.inject({ url: `/taxii2/api/collections/${listId}/`, headers: taxii });
    expect(one.json()).toMatchObject({ id: listId, title: 'Block list perimeter' });
    const page = await t.app.inject({ url: `/taxii2/api/collections/${listId}/objects/?limit=2`, headers: taxii });
    expect(page.statusCode, page.body).toBe(200);
    const body = page.json();
    expect(body.more).toBe(true);
    expect(body.objects).toHaveLength(2);
    expect(body.objects[0]).toMatchObject({ type: 'indicator', spec_version: '2.1', pattern: "[ipv4-addr:value = '198.51.100.23']", pattern_type: 'stix', description: 'Still beaconing', labels: ['blocklist'] });
    expect(body.objects[0].valid_until).toBeUndefined();
    const rest = (await t.app.inject({ url: `/taxii2/api/collections/${listId}/objects/?next=${body.next}`, headers: taxii })).json();
    expect(rest.more).toBe(false);
    const patterns = [...body.objects, ...rest.objects].map((o: { pattern: string }) => o.pattern);
    expect(patterns).toEqual(expect.arrayContaining(["[ipv4-addr:value = '203.0.113.0/24']", "[url:value = 'https://files.evil-cdn.net/payload.exe']", "[ipv6-addr:value = '2001:db8::5']"]));
    expect(patterns).toHaveLength(5);
    const withExpiry = [...body.objects, ...rest.objects].find((o: { pattern: string }) => o.pattern.includes('203.0.113.0/24'));
    expect(new Date(withExpiry.valid_until).getTime()).toBeGreaterThan(Date.now());

    const byId = await t.app.inject({ url: `/taxii2/api/collections/${listId}/objects/${withExpiry.id}/`, headers: taxii });
    expect(byId.json().objects).toEqual([withExpiry]);
    const otherOrg = await t.app.inject({ url: `/taxii2/api/collections/${listId}/objects/`, headers: { ...basic(t.orgB.apiKey.key), accept: TAXII } });
    expect(otherOrg.statusCode).toBe(404);
  });

  it('removes an entry; another organization\'s entry ids are 404', async () => {
    const entries = (await t.app.inject({ url: `/api/blocklists/${listId}/entries?type=ipv6`, headers: bearer(key) })).json().entries;
    const entryId = entries[0].id;
    const missing = await t.app.inject({ method: 'DELETE', url: `/api/blocklists/${listId}/entries/00000000-0000-7000-8000-000000000000`, headers: bearer(key) });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'Entry not found' });
    const otherOrg = await t.app.inject({ method: 'DELETE', url: `/api/blocklists/${listId}/entries/${entryId}`, headers: bearer(t.orgB.apiKey.key) });
    expect(otherOrg.statusCode).toBe(404);
    const readerDelete = await t.app.inject({ method: 'DELETE', url: `/api/blocklists/${listId}/entries/${entryId}`, headers: bearer(reader.key) });
    expect(readerDelete.statusCode).toBe(403);
    const removed = await t.app.inject({ method: 'DELETE', url: `/api/blocklists/${listId}/entries/${entryId}`, headers: bearer(key) });
    expect(removed.json()).toEqual({ success: true });
    expect((await t.app.inject({ url: '/blocklists/perimeter.txt?type=ip', headers: basic(key) })).body).not.toContain('2001:db8::5');

    const audit = (await t.app.inject({ url: '/api/audit-logs?limit=50', headers: bearer(key) })).json();
    const actions = JSON.stringify(audit);
    for (const action of ['blocklist.create', 'blocklist.entry.add', 'blocklist.entry.renew', 'blocklist.entry.remove', 'blocklist.allowlist.add']) expect(actions).toContain(action);
  });
});
