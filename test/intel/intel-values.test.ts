/**
 * Indicators as analysts paste and filter them (issues 14, 18 and 20): normalized and defanged
 * forms on /iocs rows, defanged searches, strict type and parameter checks, item search by
 * indicator. Items go through the real sync and enrichment from a local RSS feed.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../src/platform/auth/permissions.js';
import { createGuardedClient } from '../../src/platform/outbound/index.js';
import { buildToolSet } from '../../src/modules/tools/toolset.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.js';
import { syncRunner } from '../support/sync.js';

let t: TestContext;
let admin: Record<string, string>;
let server: FixtureServer;
let sourceId: string;
let entries: Array<{ guid: string; title: string; html: string }> = [];

const CAMPAIGN = `<p>An infostealer phishing campaign delivers Lumma Stealer through spearphishing attachments (T1566.001). The lure downloads the payload from hxxp://45.142.212[.]100:8080/gate.php
and the stealer posts to panel.stealer-drop[.]com and 91.215.85[.]17. Replies go to billing[@]invoice-portal[.]net.
It persists under HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run\\LummaUpdate.</p>`;

function feed() {
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>Values Research</title><link>https://values.example/</link>
${entries.map((e) => `<item><guid>${e.guid}</guid><title>${e.title}</title><link>https://values.example/${e.guid}</link><pubDate>Mon, 16 Nov 2026 09:00:00 GMT</pubDate><description><![CDATA[${e.html}]]></description></item>`).join('')}
</channel></rss>`;
}

async function sync() {
  await syncRunner(t.database.db, { secrets: t.secrets }).sync(t.orgA.organization.id, sourceId);
}

const get = (url: string, headers = admin) => t.app.inject({ url, headers });
const itemTitles = async (q: string) => (await get(`/items?${q}`)).json().items.map((i: { event: { title: string } }) => i.event.title);

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  admin = bearer(t.orgA.apiKey.key);
  server = await startFixtureServer({ '/feed': () => ({ type: 'application/rss+xml', body: feed() }) });
  sourceId = (await t.app.inject({ method: 'POST', url: '/sources', headers: admin, payload: { kind: 'rss', name: 'Values', feedUrl: `${server.url}/feed` } })).json().id;
  entries = [{ guid: 'campaign', title: 'Lumma phishing campaign', html: CAMPAIGN }];
  await sync();
});
afterAll(async () => {
  await server?.close();
  await t?.close();
});

describe('GET /iocs rows: as written, normalized, defanged', () => {
  it('carry normalizedValue and defanged beside the value as written', async () => {
    const { rows } = (await get('/iocs?type=url')).json();
    expect(rows).toEqual([
      expect.objectContaining({ value: 'hxxp://45.142.212[.]100:8080/gate.php', normalizedValue: 'http://45.142.212.100:8080/gate.php', defanged: true, type: 'url' }),
    ]);
    const all = (await get('/iocs?perPage=200')).json().rows as Array<{ value: string; normalizedValue: string; defanged: boolean }>;
    expect(all.find((r) => r.normalizedValue === 'billing@invoice-portal.net')).toMatchObject({ value: 'billing[@]invoice-portal[.]net', defanged: true });
    expect(all.find((r) => r.normalizedValue === '91.215.85.17')).toMatchObject({ value: '91.215.85[.]17', defanged: true });
    // A registry key like every other type: the text as written, and the canonical form beside it.
    expect(all.find((r) => r.normalizedValue.startsWith('HKEY_CURRENT_USER'))).toMatchObject({
      value: 'HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run\\LummaUpdate',
      normalizedValue: 'HKEY_CURRENT_USER\\software\\microsoft\\windows\\currentversion\\run\\lummaupdate',
      defanged: false,
    });
    // The host of the URL was written defanged inside it; the row of a plain value is not defanged.
    expect(all.filter((r) => !r.normalizedValue.startsWith('HKEY_')).every((r) => r.defanged === (r.value !== r.normalizedValue))).toBe(true);
  });

  it('finds a row by its pasted defanged value, and by the live one', async () => {
    for (const search of ['hxxp://45.142.212[.]100:8080/gate.php', 'http://45.142.212.100:8080/gate.php', '45.142.212[.]100']) {
      const body = (await get(`/iocs?search=${encodeURIComponent(search)}`)).json();
      expect(body.rows.map((r: { normalizedValue: string }) => r.normalizedValue), search).toContain('http://45.142.212.100:8080/gate.php');
    }
    expect((await get(`/iocs?search=${encodeURIComponent('panel.stealer-drop[.]com')}`)).json()).toMatchObject({ total: 1, rows: [{ type: 'domain', normalizedValue: 'panel.stealer-drop.com' }] });
  });
});

describe('GET /iocs?type=', () => {
  it('accepts one type, a comma list and the documented aliases (ip = ipv4+ipv6, hash), case-insensitively', async () => {
    const types = async (q: string) => [...new Set((await get(`/iocs?perPage=200&${q}`)).json().rows.map((r: { type: string }) => r.type))].sort();
    expect(await types('type=ipv4')).toEqual(['ipv4']);
    expect(await types('type=ip')).toEqual(['ipv4']);
    expect(await types('type=ipv4,domain')).toEqual(['domain', 'ipv4']);
    expect(await types('type=IP,%20email')).toEqual(['email', 'ipv4']);
    const both = (await get('/iocs?type=ipv4,domain&search=.')).json();
    expect(both.statusCounts.unchecked).toBe(both.total);
    expect(both.rows.map((r: { type: string }) => r.type).sort()).toEqual(['domain', 'domain', 'ipv4', 'ipv4']);
  });

  it('answers 400 for an unknown type, like an unknown status', async () => {
    for (const q of ['type=bogus', 'type=ipv4,bogus', 'type=,']) {
      const res = await get(`/iocs?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json(), q).toMatchObject({ error: 'Validation failed', issues: [{ path: 'type', location: 'query', code: 'custom' }] });
    }
    expect((await get('/iocs?type=bogus')).json().issues[0].message).toMatch(/Unknown indicator type\(s\) bogus; allowed: ip, hash, ipv4/);
  });
});

describe('unknown query parameters', () => {
  it('are a 400 on /iocs and /items, one issue per parameter', async () => {
    for (const url of ['/iocs?serach=evil&typ=ipv4', '/items?serach=evil&typ=ipv4']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toEqual({
        error: 'Validation failed',
        issues: [
          { path: 'serach', message: 'Unknown field', code: 'unrecognized_keys', location: 'query' },
          { path: 'typ', message: 'Unknown field', code: 'unrecognized_keys', location: 'query' },
        ],
      });
    }
  });
});

describe('GET /items?search= with indicators', () => {
  it('finds the item whose text says evil[.]com when searching evil.com, and the other way round', async () => {
    expect(await itemTitles('search=panel.stealer-drop.com')).toEqual(['Lumma phishing campaign']);
    expect(await itemTitles(`search=${encodeURIComponent('panel.stealer-drop[.]com')}`)).toEqual(['Lumma phishing campaign']);
    expect(await itemTitles('search=91.215.85.17')).toEqual(['Lumma phishing campaign']);
    expect(await itemTitles(`search=${encodeURIComponent('HXXP://45.142.212[.]100:8080/gate.php')}`)).toEqual(['Lumma phishing campaign']);
    expect(await itemTitles('search=91.215.85.18')).toEqual([]);
    expect(await itemTitles(`search=${encodeURIComponent('Lumma -91.215.85.17')}`)).toEqual(['Lumma phishing campaign']); // words still work
  });

  it('finds items by an indicator their source asserted without writing it in the text', async () => {
    const now = new Date();
    const item = await t.database.db.selectFrom('intelItems').select(['id', 'title']).where('sourceId', '=', sourceId).executeTakeFirstOrThrow();
    await t.database.db.insertInto('intelIndicators').values({ id: crypto.randomUUID(), organizationId: t.orgA.organization.id, itemId: item.id, type: 'ipv4', value: '1.2.3.4', normalizedValue: '1.2.3.4', confidence: 0.8, firstSeen: now, lastSeen: now, ttlDays: 30, intelTitle: item.title, sourceLabel: 'Values', createdAt: now }).execute();
    expect(await itemTitles('search=1.2.3.4')).toEqual(['Lumma phishing campaign']);
    expect((await get('/items?search=1.2.3.4', bearer(t.orgB.apiKey.key))).json().total).toBe(0);
  });
});

describe('ATT&CK offline', () => {
  it('names techniques and recognizes malware with no ATT&CK sync ever run (the shipped catalog)', async () => {
    expect(await t.database.db.selectFrom('attackCatalog').select('id').execute()).toEqual([]);
    const [item] = (await get('/items?search=Lumma')).json().items;
    expect(item.classification.attack).toEqual(expect.arrayContaining([
      expect.objectContaining({ technique: 'T1566', subTechnique: 'T1566.001', techniqueName: 'Phishing: Spearphishing Attachment' }),
      expect.objectContaining({ technique: 'T1566', subTechnique: '', techniqueName: 'Phishing' }), // "phishing" in the text, by name
    ]));
    expect(item.classification.malware).toEqual([expect.objectContaining({ name: 'Lumma Stealer' })]);
  });
});

describe('severity', () => {
  it('rates an infostealer phishing campaign with its live indicators high, not low', async () => {
    const [item] = (await get('/items?search=Lumma')).json().items;
    expect(item.severity).toBe('high');
  });
});

describe('the item\'s iocs object', () => {
  it('lists e-mail addresses in the documented `emails` extension list', async () => {
    const [item] = (await get('/items?search=Lumma')).json().items;
    expect(item.iocs.emails).toEqual([expect.objectContaining({ type: 'email', value: 'billing[@]invoice-portal[.]net', normalizedValue: 'billing@invoice-portal.net' })]);
    const openapi = (await t.app.inject({ url: '/api/docs/openapi.json' })).json();
    expect(Object.keys(openapi.components.schemas.IntelItem.properties.iocs.properties)).toContain('emails');
  });
});

describe('a check belongs to the value, not the mention', () => {
  const ip = '45.142.212.100';
  const rowsOf = async (value: string) => (await get(`/iocs?type=ipv4&search=${value}`)).json();
  const check = (id: string, payload: object) => t.app.inject({ method: 'POST', url: `/iocs/${id}/checks`, headers: admin, payload });

  async function lookup(value: string) {
    const actor = { type: 'user' as const, userId: t.orgA.user.id, organizationId: t.orgA.organization.id, apiKeyId: null, roleId: t.orgA.user.roleId, permissions: new Set<string>(PERMISSIONS) };
    const http = createGuardedClient({ allowPrivateNetworks: false, retries: 0 });
    try {
      const deps = { db: t.database.db, secrets: t.secrets, http, logger: pino({ level: 'silent' }) };
      const { tools } = await buildToolSet(deps, { organizationId: actor.organizationId, actor, runId: crypto.randomUUID(), agentId: crypto.randomUUID(), signal: new AbortController().signal, requestId: 'r' }, ['lookup_indicator']);
      return (await tools.lookup_indicator!.execute!({ value } as never, { toolCallId: 'x', messages: [] })) as { status: string; indicators: Array<{ status: string; exact: boolean }> };
    } finally {
      await http.close();
    }
  }

  it('applies to every mention (rows, statusCounts, lookup_indicator), is stored once, and reaches later mentions', async () => {
    entries.push({ guid: 'follow-up', title: 'Operator keeps its staging host', html: `<p>The same operator still uses ${ip} for staging.</p>` });
    await sync();
    const before = await rowsOf(ip);
    expect(before.rows).toHaveLength(2);
    expect(before.statusCounts).toMatchObject({ unchecked: 2, found: 0 });

    const [newer, older] = before.rows;
    const recorded = await check(older.id, { outcome: 'found', evidence: 'proxy hits', checkedAt: '2026-11-20T10:00:00Z' });
    expect(recorded.json()).toMatchObject({ indicatorId: older.id, ioc: { id: older.id, status: 'found' } });
    const after = await rowsOf(ip);
    expect(after.rows.map((r: { id: string; status: string; lastCheckedAt: string }) => [r.id, r.status, r.lastCheckedAt])).toEqual([
      [newer.id, 'found', '2026-11-20T10:00:00.000Z'],
      [older.id, 'found', '2026-11-20T10:00:00.000Z'],
    ]);
    expect(after.statusCounts).toMatchObject({ found: 2, unchecked: 0 });
    expect((await get('/iocs?status=found')).json().total).toBe(2);
    const looked = await lookup('45.142.212[.]100');
    expect(looked.status).toBe('found');
    expect(looked.indicators.filter((i) => i.exact).map((i) => i.status)).toEqual(['found', 'found']);

    // An older report through the other mention is history, not the status.
    await check(newer.id, { outcome: 'clean', checkedAt: '2026-11-19T10:00:00Z' });
    expect((await rowsOf(ip)).statusCounts).toMatchObject({ found: 2, clean: 0 });
    const checks = await t.database.db.selectFrom('intelIndicatorChecks').select(['valueId', 'indicatorId', 'outcome']).orderBy('checkedAt').execute();
    expect(checks).toHaveLength(2);
    expect(new Set(checks.map((c) => c.valueId)).size).toBe(1);

    // A mention that arrives later takes the value's status.
    entries.push({ guid: 'third', title: 'Third report on the staging host', html: `<p>Staging at ${ip.replace(/\.(\d+)$/, '[.]$1')} again.</p>` });
    await sync();
    const third = await rowsOf(ip);
    expect(third.rows).toHaveLength(3);
    expect(third.rows.map((r: { status: string }) => r.status)).toEqual(['found', 'found', 'found']);
    expect(third.statusCounts).toMatchObject({ found: 3, unchecked: 0 });

    // The history outlives the mention it was recorded through.
    await t.database.db.deleteFrom('intelItems').where('id', '=', older.intelItemId).execute();
    expect(await t.database.db.selectFrom('intelIndicatorChecks').select('indicatorId').orderBy('checkedAt').execute()).toEqual([{ indicatorId: newer.id }, { indicatorId: null }]);
    expect((await rowsOf(ip)).statusCounts).toMatchObject({ found: 2 });
  });

  it('stays within the organization', async () => {
    const other = (await get(`/iocs?search=${ip}`, bearer(t.orgB.apiKey.key))).json();
    expect(other.total).toBe(0);
    const row = (await rowsOf(ip)).rows[0];
    expect((await t.app.inject({ method: 'POST', url: `/iocs/${row.id}/checks`, headers: bearer(t.orgB.apiKey.key), payload: { outcome: 'clean' } })).statusCode).toBe(404);
  });
});
