/**
 * Golden test of what the intel feed shows for synced OSV records (issue 50 item 2: OSV records
 * move beside the generic item and the feed shows them through a view; this pins that no answer
 * moved). Real records — the GitHub Advisory Database sample under test/fixtures/osv (CC-BY 4.0,
 * see its README) served as OSV's all.zip by a local fake, with one malicious-package record
 * written for this test (its text names indicators) — beside a real Atom feed
 * (../shared/fixtures/rss-atom/rss-parser_heise.atom, MIT) and the real CIRCL OSINT MISP feed
 * (../shared/fixtures/misp-feed, ISC), so the feed mixes the kinds. The sources are created
 * through the API and synced by the real sync job; then every answer below
 * is captured through the HTTP API with the organization's API key: /items pages (page size 4,
 * every page), each filter of GET /items, searches by a title word, a CVE id, a GHSA id and a
 * package, /items/{id} of an OSV and an RSS item, /iocs pages and filters, /stats, the TAXII 2.1
 * collections and objects (paged by `next`), and the hunt's threats and verdicts for one asset.
 *
 * Only what varies between runs is normalized: uuids become `<uuid-N>` by first appearance in
 * the capture, timestamps at or after the run's start ("now") become `<now>`, and TAXII `next`
 * tokens (they encode a "now" timestamp) `<next>`. Everything else, the order included, is
 * compared byte for byte with test/intel/__golden__/osv-item-view.json.
 *
 * To regenerate the snapshot (on main, never to make a change pass):
 *   UPDATE_GOLDEN=1 npx vitest run test/intel/osv-item-view.golden.test.ts
 *
 * Skips the golden part when the team's shared fixtures are absent. The second test (deleting
 * the OSV source leaves nothing of it behind) always runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { githubAdvisoryRecords, osvFixture, startFakeOsv, LOG4J_ASSET } from '../support/fakes/osv-server.js';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.js';
import { hasShared, sharedPath } from '../support/shared-dir.js';
import { syncRunner } from '../support/sync.js';
import { syncThreatsFromIntel } from '../../src/modules/hunt/index.js';
import { serviceEvents } from '../../src/events.js';

const GOLDEN = path.join(import.meta.dirname, '__golden__', 'osv-item-view.json');
const RSS_FIXTURE = 'fixtures/rss-atom/rss-parser_heise.atom';
const MISP_FIXTURE = 'fixtures/misp-feed';
const withRss = hasShared(RSS_FIXTURE);
const withMisp = hasShared(MISP_FIXTURE, 'manifest.json');
const TAXII = 'application/taxii+json;version=2.1';

/**
 * A malicious-package record in the exact shape of the OpenSSF malicious-packages database's OSV
 * records, written for this test (CC0; the package, the hosts and the hash are made up). Its text
 * names a URL, a host and a hash; a structured record's text is not read for indicators
 * (process.fns.ts processStructured), so the snapshot pins that the view shows none of them,
 * in /items, /iocs and TAXII alike.
 */
const MALICIOUS = {
  modified: '2024-05-02T10:11:12Z',
  published: '2024-04-30T08:00:00Z',
  schema_version: '1.6.0',
  id: 'MAL-2024-90077',
  summary: 'Malicious code in rampart-golden-telemetry (npm)',
  details:
    '\n---\n_-= Per source details. Do not edit below this line.=-_\n\n## Source: ossf-package-analysis\nThe package runs a postinstall script that downloads a second stage from hxxp://91.215.85[.]17/stage2.sh and posts the environment variables to telemetry-cdn.npm-metrics[.]top. The second stage has SHA-256 5f2b7e4c2d1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c.\n',
  affected: [{ package: { ecosystem: 'npm', name: 'rampart-golden-telemetry' }, versions: ['1.0.0', '1.0.1'], database_specific: { cwes: [{ cweId: 'CWE-506', description: 'The product contains code that appears to be malicious in nature.', name: 'Embedded Malicious Code' }] } }],
  database_specific: { 'malicious-packages-origins': [{ import_time: '2024-05-02T10:11:12Z', modified_time: '2024-04-30T08:00:00Z', sha256: '0f4e4d7a1c3b2a5968776655443322110ffeeddccbbaa99887766554433221100', source: 'ossf-package-analysis', versions: ['1.0.0', '1.0.1'] }] },
};

/** The real records: the nine of the sample and the two kept as separate files; then the malicious-package record. */
const records = [...githubAdvisoryRecords(), osvFixture('GHSA-229r-pqp6-8w6g.json'), osvFixture('GHSA-24fg-p96v-hxh8.json'), MALICIOUS] as Array<Record<string, any>>;

let t: TestContext;
let key: Record<string, string>;
let org: string;
let osv: Awaited<ReturnType<typeof startFakeOsv>>;
let feed: FixtureServer | undefined;
let misp: FixtureServer | undefined;
let mispSourceId: string | undefined;
let osvSourceId: string;
let rssSourceId: string | undefined;
let startedAt: number;

beforeAll(async () => {
  startedAt = Date.now();
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true', RAMPART_BASE_URL: 'https://rampart.example', RAMPART_RATE_LIMIT_PER_MINUTE: '0' } });
  key = bearer(t.orgA.apiKey.key);
  org = t.orgA.organization.id;
  const runner = syncRunner(t.database.db, { secrets: t.secrets });

  osv = await startFakeOsv(records);
  const osvSource = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'osv', name: 'GitHub advisories', serverUrl: `${osv.url}/Maven/all.zip` } });
  expect(osvSource.statusCode, osvSource.body).toBe(200);
  osvSourceId = osvSource.json().id;
  const osvRun = await runner.sync(org, osvSourceId);
  expect(osvRun.job.status, String(osvRun.job.error)).toBe('succeeded');

  if (withRss) {
    feed = await startFixtureServer({ '/atom': { file: sharedPath(RSS_FIXTURE), type: 'application/atom+xml' } });
    const rss = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'rss', name: 'heise developer', feedUrl: `${feed.url}/atom` } });
    expect(rss.statusCode, rss.body).toBe(200);
    rssSourceId = rss.json().id;
    const rssRun = await runner.sync(org, rssSourceId!);
    expect(rssRun.job.status, String(rssRun.job.error)).toBe('succeeded');
  }

  if (withMisp) {
    // The real CIRCL OSINT feed (two events, one trimmed): indicators from a non-OSV source beside the OSV ones.
    const dir = sharedPath(MISP_FIXTURE);
    const files = Object.fromEntries(fs.readdirSync(dir).filter((f) => /^[0-9a-f-]{36}(\.trimmed)?\.json$/.test(f)).map((f) => [f.slice(0, 36), path.join(dir, f)]));
    misp = await startFixtureServer({
      '/misp/manifest.json': { file: path.join(dir, 'manifest.json') },
      '*': (req) => {
        const m = /^\/misp\/([0-9a-f-]{36})\.json$/.exec(req.url.split('?')[0]!);
        return m && files[m[1]!] ? { file: files[m[1]!] } : { status: 404, json: {} };
      },
    });
    const source = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'misp_feed', name: 'CIRCL OSINT', serverUrl: `${misp.url}/misp/` } });
    expect(source.statusCode, source.body).toBe(200);
    mispSourceId = source.json().id;
    const run = await runner.sync(org, mispSourceId!);
    expect(run.job.status, String(run.job.error)).toBe('succeeded');
  }

  // The hunt: an application on log4j-core 2.15.0, threats derived from the synced items.
  const asset = await t.app.inject({ method: 'POST', url: '/api/assets', headers: key, payload: LOG4J_ASSET });
  expect(asset.statusCode, asset.body).toBe(200);
  await syncThreatsFromIntel(t.database.db, org, { events: serviceEvents() });
});
afterAll(async () => {
  await feed?.close();
  await misp?.close();
  await osv?.close();
  await t?.close();
});

async function getJson(url: string, headers: Record<string, string> = key) {
  const res = await t.app.inject({ url, headers });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return res.json();
}

/** Every page of a page/perPage listing, followed while hasNext. */
async function pages(base: string, perPage: number) {
  const out: unknown[] = [];
  for (let page = 1; ; page++) {
    const body = await getJson(`${base}${base.includes('?') ? '&' : '?'}page=${page}&perPage=${perPage}`);
    out.push(body);
    if (!body.hasNext) break;
    expect(page, `${base}: more pages than expected`).toBeLessThan(50);
  }
  return out;
}

/** A TAXII collection's objects, paged by `next`, with the page range headers. */
async function taxiiObjects(collectionId: string, limit: number) {
  const headers = { ...key, accept: TAXII };
  const out: unknown[] = [];
  let next: string | undefined;
  for (let i = 0; ; i++) {
    const url = `/taxii2/api/collections/${collectionId}/objects/?limit=${limit}${next ? `&next=${encodeURIComponent(next)}` : ''}`;
    const res = await t.app.inject({ url, headers });
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    const body = res.json();
    out.push({ headers: { first: res.headers['x-taxii-date-added-first'] ?? null, last: res.headers['x-taxii-date-added-last'] ?? null }, body });
    if (!body.more) break;
    next = body.next;
    expect(i, 'more TAXII pages than expected').toBeLessThan(100);
  }
  return out;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})/g;

/**
 * What must vary between runs, and only that: uuids (placeholders by first appearance, so two
 * fields naming the same id still name the same placeholder), timestamps of this run, TAXII
 * `next` tokens. The capture is walked in its own (insertion) order.
 */
function normalize(capture: unknown): unknown {
  const ids = new Map<string, string>();
  const since = startedAt - 1_000;
  const text = (s: string) =>
    s
      .replace(UUID, (u) => {
        const k = u.toLowerCase();
        if (!ids.has(k)) ids.set(k, `<uuid-${ids.size + 1}>`);
        return ids.get(k)!;
      })
      .replace(ISO, (d) => (Date.parse(d) >= since ? '<now>' : d));
  const walk = (v: unknown, keyName?: string): unknown => {
    if (typeof v === 'string') return keyName === 'next' ? '<next>' : text(v);
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [text(k), walk(x, k)]));
    return v;
  };
  return walk(capture);
}

async function capture() {
  const c: Record<string, unknown> = {};
  const osvItems = (await getJson(`/items?source=${osvSourceId}&perPage=100`)).items as Array<Record<string, any>>;
  const rssItems = rssSourceId ? ((await getJson(`/items?source=${rssSourceId}&perPage=100`)).items as Array<Record<string, any>>) : [];
  expect(osvItems).toHaveLength(records.length);
  const log4shell = osvItems.find((i) => i.externalId === 'GHSA-jfh8-c2jp-5v3q')!;
  expect(log4shell).toBeDefined();

  // The feed in its default order, small pages, every one of them.
  c['items, default order, perPage 4'] = await pages('/items', 4);
  c['items, scope relevant'] = await pages('/items?scope=relevant', 4);
  c['items, scope all'] = await getJson('/items?scope=all&perPage=100');
  c['items, source osv by id'] = await pages(`/items?source=${osvSourceId}`, 5);
  c['items, source osv by name'] = await getJson('/items?source=GitHub%20advisories&perPage=100');
  if (rssSourceId) c['items, source rss by id'] = await getJson(`/items?source=${rssSourceId}&perPage=100`);
  if (mispSourceId) c['items, source misp by id'] = await getJson(`/items?source=${mispSourceId}&perPage=100`);
  c['items, source unknown'] = await getJson('/items?source=no-such-source');
  for (const severity of ['critical', 'high', 'medium', 'low', 'none']) c[`items, severity ${severity}`] = await getJson(`/items?severity=${severity}&perPage=100`);
  c['items, severity high + source osv'] = await getJson(`/items?severity=high&source=${osvSourceId}&perPage=100`);
  for (const status of ['active', 'corrected', 'retracted']) c[`items, status ${status}`] = await getJson(`/items?status=${status}&perPage=100`);
  const platforms = [...new Set([...osvItems, ...rssItems].flatMap((i) => i.classification.platforms as string[]))].sort();
  c['platforms seen'] = platforms;
  for (const platform of [...platforms, 'windows']) c[`items, platform ${platform}`] = await getJson(`/items?platform=${encodeURIComponent(platform)}&perPage=100`);
  for (const minRelevance of [0, 40, 70]) c[`items, minRelevance ${minRelevance}`] = await getJson(`/items?minRelevance=${minRelevance}&perPage=100`);
  c['items, scope relevant + minRelevance 20'] = await getJson('/items?scope=relevant&minRelevance=20&perPage=100');
  for (const search of ['Log4j', 'regexp', 'rampart-golden-telemetry', 'MAL-2024-90077', '91.215.85.17', 'telemetry-cdn.npm-metrics[.]top', 'Locky', 'CVE-2021-44228', 'GHSA-3h5v-q93c-6h6q', 'org.apache.logging.log4j:log4j-core', 'path-to-regexp', 'urllib3', '"Remote code"', 'WildFly', 'Scrum'])
    c[`items, search ${search}`] = await getJson(`/items?search=${encodeURIComponent(search)}&perPage=100`);
  c['items, search CVE + source osv'] = await getJson(`/items?search=CVE-2021-44228&source=${osvSourceId}&perPage=100`);

  // One item of each kind, with its annotated text.
  c['item osv log4shell'] = await getJson(`/items/${log4shell.id}`);
  for (const i of osvItems) c[`item osv ${i.externalId}`] = await getJson(`/items/${i.id}`);
  if (rssItems[0]) c['item rss first'] = await getJson(`/items/${rssItems[0].id}`);
  if (mispSourceId) for (const [n, i] of ((await getJson(`/items?source=${mispSourceId}&perPage=100`)).items as Array<{ id: string }>).entries()) c[`item misp ${n}`] = await getJson(`/items/${i.id}`);

  // Indicators, flattened: every page, then each type present and each search.
  const iocsAll = (await getJson('/iocs?perPage=200')) as { availableTypes: string[]; rows: Array<{ normalizedValue: string }> };
  c['iocs, perPage 7'] = await pages('/iocs', 7);
  for (const type of iocsAll.availableTypes) c[`iocs, type ${type}`] = await getJson(`/iocs?type=${encodeURIComponent(type)}&perPage=200`);
  for (const type of ['ip', 'hash', 'url,domain']) c[`iocs, type ${type}`] = await getJson(`/iocs?type=${encodeURIComponent(type)}&perPage=200`);
  for (const status of ['found', 'clean', 'unchecked', 'unknown']) c[`iocs, status ${status}`] = await getJson(`/iocs?status=${status}&perPage=200`);
  for (const search of ['CVE-2021', 'log4j', 'heise', '91.215.85', 'npm-metrics[.]top', ...iocsAll.rows.slice(0, 3).map((r) => r.normalizedValue)]) c[`iocs, search ${search}`] = await getJson(`/iocs?search=${encodeURIComponent(search)}&perPage=200`);

  c.stats = await getJson('/stats');

  // TAXII 2.1 out: the collections, the organization's collection of all indicators and each source's.
  const collections = (await getJson('/taxii2/api/collections/', { ...key, accept: TAXII })) as { collections: Array<{ id: string }> };
  c['taxii collections'] = collections;
  for (const col of collections.collections) c[`taxii objects ${col.id}`] = await taxiiObjects(col.id, 5);

  // The hunt's verdicts: threats in their order, and each threat's matches.
  const threats = (await getJson('/api/threats?limit=200')) as { threats: Array<{ id: string; canonicalKey: string }> };
  c['threats'] = threats;
  for (const th of threats.threats) {
    const view = await getJson(`/api/threats/${th.id}`);
    c[`threat ${th.canonicalKey}`] = { threat: view.threat, matches: view.matches, intelItems: view.intelItems, runs: view.runs };
  }
  return c;
}

describe.skipIf(!withRss || !withMisp)('the intel feed of synced OSV records, golden', () => {
  it('answers exactly as the committed snapshot (order included), and the same on a second capture', async () => {
    const first = normalize(await capture());
    const again = normalize(await capture());
    expect(again).toEqual(first); // reading changes nothing
    const text = `${JSON.stringify(first, null, 2)}\n`;
    if (process.env.UPDATE_GOLDEN === '1') {
      fs.mkdirSync(path.dirname(GOLDEN), { recursive: true });
      fs.writeFileSync(GOLDEN, text);
    }
    const golden = fs.readFileSync(GOLDEN, 'utf8');
    // Key by key first (a readable diff names the answer that moved), then the whole text byte for byte.
    const want = JSON.parse(golden) as Record<string, unknown>;
    const got = first as Record<string, unknown>;
    expect(Object.keys(got)).toEqual(Object.keys(want));
    for (const k of Object.keys(want)) expect(got[k], k).toEqual(want[k]);
    expect(text).toBe(golden);
  });
});

describe('deleting the OSV source', () => {
  it('leaves no item, indicator, vulnerability record or threat link of it behind', async () => {
    const before = await getJson(`/items?source=${osvSourceId}&perPage=100`);
    expect(before.total).toBe(records.length);
    const itemIds = (before.items as Array<{ id: string }>).map((i) => i.id);
    // What there is to remove: a test that cannot fail proves nothing.
    const held = await sql<{ indicators: number; vulns: number; links: number }>`
      SELECT (SELECT count(*)::int FROM intel_indicators WHERE item_id = ANY(${itemIds}::uuid[])) AS indicators,
             (SELECT count(*)::int FROM intel_vulnerabilities WHERE organization_id = ${org} AND source_id = ${osvSourceId}) AS vulns,
             (SELECT count(*)::int FROM hunt_threat_items WHERE item_id = ANY(${itemIds}::uuid[])) AS links`.execute(t.database.db);
    // None to begin with: a structured record's text is not read for indicators (the golden pins it too);
    // if the view ever gives OSV items indicators, this says so and the checks below must still hold.
    expect(held.rows[0]!.indicators).toBe(0);
    expect(held.rows[0]!.vulns).toBe(records.length);
    expect(held.rows[0]!.links).toBeGreaterThan(0);
    const totalBefore = (await getJson('/items?perPage=1')).total as number;

    const del = await t.app.inject({ method: 'DELETE', url: `/sources/${osvSourceId}`, headers: key });
    expect(del.statusCode, del.body).toBe(200);
    expect(del.json()).toEqual({ success: true });

    // The source is gone: filtering by its id finds nothing (and says it does not know it).
    const after = await getJson(`/items?source=${osvSourceId}&perPage=100`);
    expect(after.items).toEqual([]);
    expect(after.total).toBe(0);
    const all = await getJson('/items?perPage=100');
    expect((all.items as Array<{ id: string }>).filter((i) => itemIds.includes(i.id))).toEqual([]);
    expect(all.total).toBe(totalBefore - records.length);
    const iocs = await getJson('/iocs?perPage=200');
    expect((iocs.rows as Array<{ intelItemId: string }>).filter((r) => itemIds.includes(r.intelItemId))).toEqual([]);
    expect((await getJson('/iocs?search=npm-metrics.top&perPage=200')).rows).toEqual([]);
    const threats = (await getJson('/api/threats?limit=200')).threats as Array<{ intelItemIds: string[] }>;
    expect(threats.flatMap((th) => th.intelItemIds).filter((id) => itemIds.includes(id))).toEqual([]);

    // The tables, directly: no row of its items anywhere.
    const left = await sql<{ items: number; indicators: number; vulns: number; links: number }>`
      SELECT (SELECT count(*)::int FROM intel_items WHERE organization_id = ${org} AND source_id = ${osvSourceId}) AS items,
             (SELECT count(*)::int FROM intel_indicators WHERE item_id = ANY(${itemIds}::uuid[])) AS indicators,
             (SELECT count(*)::int FROM intel_vulnerabilities WHERE organization_id = ${org} AND source_id = ${osvSourceId}) AS vulns,
             (SELECT count(*)::int FROM hunt_threat_items WHERE item_id = ANY(${itemIds}::uuid[])) AS links`.execute(t.database.db);
    expect(left.rows[0]).toEqual({ items: 0, indicators: 0, vulns: 0, links: 0 });
  });
});
