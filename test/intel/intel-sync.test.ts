import pino from 'pino';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startServer } from '../support/fakes/http-server.js';
import { startFixtureServer } from '../support/fixture-server.js';
import { startFakeTaxii } from '../support/fakes/taxii-server.js';
import { startFakeMisp } from '../support/fakes/misp-server.js';
import { syncRunner } from '../support/sync.js';
import { createGuardedClient } from '../../src/platform/outbound/index.js';

let t: TestContext;
let runner: ReturnType<typeof syncRunner>;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  // The feeds are local servers: the API (which refuses literal private addresses when saved) and the worker share the setting, as in a deployment.
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  runner = syncRunner(t.database.db, { secrets: t.secrets });
});
afterAll(async () => {
  for (const c of closers) await c();
  await t.close();
});

async function createSource(body: Record<string, unknown>): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: '/sources', headers: bearer(t.orgA.apiKey.key), payload: body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id;
}

function items(sourceId: string) {
  return t.database.db.selectFrom('intelItems').selectAll().where('sourceId', '=', sourceId).orderBy('externalId').execute();
}

const org = () => t.orgA.organization.id;

function rssFeed(items: Array<{ guid: string; title: string; body: string }>): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Fake Vendor Research</title><link>https://vendor.example/</link><language>en</language>
${items.map((i) => `<item><guid>${i.guid}</guid><title>${i.title}</title><link>/posts/${i.guid}</link><pubDate>Tue, 10 Nov 2026 04:00:00 +0530</pubDate><description><![CDATA[<p>${i.body}</p>]]></description></item>`).join('\n')}
</channel></rss>`;
}

describe('RSS sync', () => {
  it('stores entries, answers not_modified on a conditional GET, and versions changed content', async () => {
    let feed = rssFeed([
      { guid: 'a-1', title: 'Campaign A', body: 'Contacts <b>evil[.]example</b>' },
      { guid: 'a-2', title: 'Campaign B', body: 'Second post' },
    ]);
    let etag = '"v1"';
    const server = await startFixtureServer(
      { '/feed.xml': () => ({ type: 'application/rss+xml; charset=utf-8', headers: { etag }, body: feed }) },
      {
        onRequest: (req, res) => {
          if (req.headers['if-none-match'] === etag) res.writeHead(304).end();
        },
      },
    );
    closers.push(server.close);
    const id = await createSource({ kind: 'rss', name: 'Fake blog', feedUrl: `${server.url}/feed.xml` });

    const first = await runner.sync(org(), id);
    expect(first.job).toMatchObject({ status: 'succeeded', attemptCount: 1, error: null });
    expect(first.job.stats).toMatchObject({ fetched: 2, created: 2, updated: 0, unchanged: 0 });
    expect(first.state).toMatchObject({ lastStatus: 'ok', lastError: null, etag: '"v1"' });
    const stored = await items(id);
    expect(stored).toHaveLength(2);
    expect(stored[0]).toMatchObject({ externalId: 'a-1', title: 'Campaign A', url: 'https://vendor.example/posts/a-1', publisher: 'Fake Vendor Research', version: 1, status: 'active' });
    expect(stored[0]!.contentText).toContain('evil[.]example');
    expect(stored[0]!.publishedAt?.toISOString()).toBe('2026-11-09T22:30:00.000Z');

    const second = await runner.sync(org(), id);
    expect(second.job.status).toBe('succeeded');
    expect(second.state.lastStatus).toBe('not_modified');
    expect(server.requests.at(-1)!.headers['if-none-match']).toBe('"v1"');

    feed = rssFeed([
      { guid: 'a-1', title: 'Campaign A (updated)', body: 'Contacts evil[.]example and bad[.]example' },
      { guid: 'a-2', title: 'Campaign B', body: 'Second post' },
    ]);
    etag = '"v2"';
    const third = await runner.sync(org(), id);
    expect(third.job.stats).toMatchObject({ fetched: 2, created: 0, updated: 1, unchanged: 1 });
    const after = await items(id);
    expect(after).toHaveLength(2);
    expect(after[0]).toMatchObject({ title: 'Campaign A (updated)', version: 2, status: 'corrected' });
    expect(after[1]).toMatchObject({ version: 1 });

    // A retried job (the same content again) produces the same rows.
    etag = '"v3"';
    await runner.sync(org(), id);
    expect((await items(id)).map((i) => [i.externalId, i.version])).toEqual([['a-1', 2], ['a-2', 1]]);

    const view = (await t.app.inject({ url: '/sources', headers: bearer(t.orgA.apiKey.key) })).json().sources.find((s: { id: string }) => s.id === id);
    expect(view).toMatchObject({ lastStatus: 'ok', itemCountLast24h: 2, syncJob: { status: 'succeeded' } });
  });

  it('respects maxEntries', async () => {
    const server = await startFixtureServer({ '/feed': { type: 'application/rss+xml', body: rssFeed(Array.from({ length: 10 }, (_, i) => ({ guid: `m-${i}`, title: `Post ${i}`, body: 'x' }))) } });
    closers.push(server.close);
    const id = await createSource({ kind: 'rss', name: 'Capped', feedUrl: `${server.url}/feed`, maxEntries: 3 });
    const { job } = await runner.sync(org(), id);
    expect(job.stats).toMatchObject({ fetched: 3, created: 3 });
  });

  // Real work at size (thousands of rows enriched and written): its time follows the machine's
  // load (~40 s at load 20); the limit only bounds a hang.
  it('stores a large feed in chunks, enriched as they are stored; a failed chunk keeps the committed ones and the retry completes', async () => {
    // 2,501 entries, one id twice (the later one wins): 2,500 items in chunks.
    const entries = Array.from({ length: 2_501 }, (_, i) => ({ guid: i === 1_600 ? 'big-5' : `big-${i}`, title: `Post ${i}`, body: `Body ${i} calls 185.220.101.${i % 250}` }));
    const server = await startFixtureServer({ '/feed': { type: 'application/rss+xml', body: rssFeed(entries) } });
    closers.push(server.close);
    const id = await createSource({ kind: 'rss', name: 'Big feed', feedUrl: `${server.url}/feed`, maxEntries: 10_000 });
    const handedOff: string[] = [];
    const chunked = syncRunner(t.database.db, { secrets: t.secrets, enqueueEnrichment: async (_tx, ids) => void handedOff.push(...ids) });

    // One entry the database refuses: its chunk rolls back, the sync fails and leaves the state as it was.
    await sql`CREATE FUNCTION sync_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.external_id = 'big-2000' THEN RAISE EXCEPTION 'refused by test'; END IF; RETURN NEW; END $$`.execute(t.database.db);
    await sql`CREATE TRIGGER sync_test_refuse BEFORE INSERT ON intel_items FOR EACH ROW EXECUTE FUNCTION sync_test_refuse()`.execute(t.database.db);
    let failed;
    try {
      failed = await chunked.sync(org(), id);
    } finally {
      await sql`DROP TRIGGER sync_test_refuse ON intel_items`.execute(t.database.db);
      await sql`DROP FUNCTION sync_test_refuse()`.execute(t.database.db);
    }
    expect(failed.job.status).toBe('failed');
    expect(failed.state.lastStatus).toBe('error');
    expect(failed.state.etag).toBeNull();
    const kept = await items(id);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(2_500);
    expect(kept.some((i) => i.externalId === 'big-2000')).toBe(false);
    expect(kept.every((i) => i.processedAt !== null)).toBe(true); // complete items, enriched in their chunk

    const ok = await chunked.sync(org(), id);
    expect(ok.job).toMatchObject({ status: 'succeeded', stats: { fetched: 2_501, created: 2_500 - kept.length, updated: 0, unchanged: kept.length } });
    expect(ok.state.lastStatus).toBe('ok');
    const stored = await items(id);
    expect(stored).toHaveLength(2_500);
    expect(stored.find((i) => i.externalId === 'big-5')?.title).toBe('Post 1600');
    expect(stored.every((i) => i.processedAt !== null)).toBe(true);
    const searchable = await sql<{ n: string }>`SELECT count(*) AS n FROM intel_items WHERE source_id = ${id} AND intel_item_search(title, content_text) @@ websearch_to_tsquery('simple', 'post')`.execute(t.database.db);
    expect(Number(searchable.rows[0]!.n)).toBe(2_500); // searchable at once
    expect(handedOff).toEqual([]); // nothing failed to enrich: nothing for the enrichment job
    const { n } = await t.database.db
      .selectFrom('intelIndicators as d')
      .innerJoin('intelItems as i', 'i.id', 'd.itemId')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('i.sourceId', '=', id)
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBe(2_500); // one address (indicator) per post
  }, 120_000);

  const failures: Array<[string, (url: string) => Promise<{ url: string; close(): Promise<void> }> | { url: string; close(): Promise<void> }, RegExp, boolean]> = [
    ['an XXE document', async () => serve(200, '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><rss version="2.0"><channel><title>&x;</title></channel></rss>'), /DOCTYPE|entit/i, false],
    ['a billion-laughs document', async () => serve(200, '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><rss version="2.0"><channel><title>&lol2;</title></channel></rss>'), /DOCTYPE|entit/i, false],
    ['malformed XML', async () => serve(200, '<rss version="2.0"><channel><title>broken</channel>'), /./, false],
    ['an HTML page', async () => serve(200, '<html><body>Not a feed</body></html>', 'text/html'), /not an RSS/i, false],
    ['a 5xx answer', async () => serve(503, 'down'), /HTTP 503/, true],
    ['a 404 answer', async () => serve(404, 'gone'), /HTTP 404/, false],
    ['an unreachable host', async () => ({ url: 'http://127.0.0.1:1', close: async () => {} }), /./, true],
    ['a DNS failure', async () => ({ url: 'http://does-not-exist.invalid', close: async () => {} }), /./, true],
  ];
  for (const [label, make, message, transient] of failures) {
    it(`fails cleanly on ${label}, committing nothing`, async () => {
      const server = await make('');
      closers.push(server.close);
      const id = await createSource({ kind: 'rss', name: label, feedUrl: `${server.url}/feed` });
      const first = await runner.sync(org(), id, 1);
      expect(first.state.lastStatus).toBe('error');
      expect(first.state.lastError).toMatch(message);
      expect(first.job.error).toBe(first.state.lastError);
      expect(first.job.status).toBe(transient ? 'pending' : 'failed');
      expect(first.thrown !== null).toBe(transient);
      expect(await items(id)).toEqual([]);
      if (transient) {
        // The last attempt gives up visibly.
        await t.database.db.updateTable('intelSyncJobs').set({ status: 'failed' }).where('id', '=', first.job.id).execute();
        const last = await runner.sync(org(), id, 3);
        expect(last.job.status).toBe('failed');
        expect(last.job.finishedAt).not.toBeNull();
      }
    });
  }

  it('says in its one log line when a transient failure is tried again, and not on the last attempt', async () => {
    const server = await serve(503, 'down');
    closers.push(server.close);
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const logged = syncRunner(t.database.db, { secrets: t.secrets, logger });
    const id = await createSource({ kind: 'rss', name: 'down for now', feedUrl: `${server.url}/feed` });
    const first = await logged.sync(org(), id, 1);
    await t.database.db.updateTable('intelSyncJobs').set({ status: 'failed' }).where('id', '=', first.job.id).execute();
    await logged.sync(org(), id, 3);
    const failed = lines.filter((l) => String(l.msg).startsWith('source sync failed'));
    expect(failed).toHaveLength(2);
    expect(failed[0]).toMatchObject({ retry: true, attempt: 1, maxAttempts: 3, retryInSeconds: 3 });
    expect(failed[0]!.msg).toMatch(/^source sync failed: .*HTTP 503.*; retrying in ~3 s \(attempt 1 of 3\)$/);
    expect(failed[1]).toMatchObject({ retry: false, attempt: 3 });
    expect(failed[1]).not.toHaveProperty('retryInSeconds');
    expect(failed[1]!.msg).not.toMatch(/retrying/);
  });

  it('fails with a clear error when the body is over the size cap or the server is too slow', async () => {
    const big = await serve(200, rssFeed(Array.from({ length: 200 }, (_, i) => ({ guid: `b-${i}`, title: 'x'.repeat(200), body: 'y'.repeat(2000) }))));
    const slow = await startServer(() => {
      /* never answers */
    });
    closers.push(big.close, slow.close);
    const tight = syncRunner(t.database.db, { secrets: t.secrets, http: createGuardedClient({ allowPrivateNetworks: true, maxResponseBytes: 50_000, timeoutMs: 300, retries: 0 }) });
    const bigId = await createSource({ kind: 'rss', name: 'big', feedUrl: `${big.url}/feed` });
    const slowId = await createSource({ kind: 'rss', name: 'slow', feedUrl: `${slow.url}/feed` });
    const a = await tight.sync(org(), bigId);
    expect(a.state.lastError).toMatch(/larger|too large|size/i);
    const b = await tight.sync(org(), slowId);
    expect(b.state.lastError).toMatch(/timed out|timeout/i);
    expect(await items(bigId)).toEqual([]);
  });

  it('refuses a redirect to a private address when private networks are not allowed', async () => {
    const server = await startFixtureServer({ '/feed': { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } } });
    closers.push(server.close);
    // Treat the fake's own loopback address as public so that only the redirect target is refused.
    const guarded = syncRunner(t.database.db, {
      secrets: t.secrets,
      http: createGuardedClient({ allowPrivateNetworks: false, retries: 0, addressPolicy: (ip: string) => (ip === '127.0.0.1' ? null : ip.startsWith('169.254.') ? 'cloud metadata' : null) }),
    });
    const id = await createSource({ kind: 'rss', name: 'redirector', feedUrl: `${server.url}/feed` });
    const { state, job } = await guarded.sync(org(), id);
    expect(job.status).toBe('failed');
    expect(state.lastError).toMatch(/169\.254\.169\.254/);
  });
});

async function serve(status: number, body: string, type = 'application/rss+xml') {
  return startFixtureServer({ '*': { status, type, body } });
}

describe('MISP REST sync', () => {
  it('pulls published events page by page with the key, incrementally, splitting compound attributes', async () => {
    const events = Array.from({ length: 130 }, (_, i) => ({
      id: String(i + 1),
      uuid: `5f0c1a2b-0000-4000-8000-${String(i).padStart(12, '0')}`,
      info: `Event ${i}`,
      published: i !== 5,
      timestamp: String(1_700_000_000 + i),
      publish_timestamp: String(1_700_000_000 + i),
      date: '2026-11-01',
      Orgc: { name: 'CIRCL' },
      Tag: [{ name: 'tlp:white' }],
      Attribute: [
        { uuid: `aaaaaaaa-0000-4000-8000-${String(i).padStart(12, '0')}`, type: 'filename|sha256', value: `drop${i}.exe|${'a'.repeat(63)}${i % 10}`, to_ids: true },
        { uuid: `bbbbbbbb-0000-4000-8000-${String(i).padStart(12, '0')}`, type: 'link', value: 'https://analysis.example/report', to_ids: false },
      ],
    }));
    const misp = await startFakeMisp({ apiKey: 'misp-automation-key', events });
    closers.push(misp.close);
    const id = await createSource({ kind: 'api', apiType: 'misp', name: 'MISP', serverUrl: misp.url, apiKey: 'misp-automation-key', maxEntries: 1000 });
    const first = await runner.sync(org(), id);
    expect(first.job.status, String(first.job.error)).toBe('succeeded');
    expect(first.job.stats).toMatchObject({ created: 129 });
    const bodies = misp.requests.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => b.page)).toEqual([1, 2]);
    expect(misp.requests[0]!.headers.authorization).toBe('misp-automation-key');
    const one = (await items(id)).find((i) => i.title === 'Event 7')!;
    const indicators = one.structuredIndicators as Array<{ type: string; value: string }>;
    expect(indicators.map((x) => x.type).sort()).toEqual(['filename', 'sha256']);
    expect(one.referenceUrls).toEqual(['https://analysis.example/report']);
    expect(one.tags).toContain('tlp:white');

    await runner.sync(org(), id);
    const lastBody = JSON.parse(misp.requests.at(-1)!.body);
    expect(lastBody.timestamp).toBe(String(1_700_000_129));
    expect(await items(id)).toHaveLength(129);
  });

  it('reads every event of a busy second across syncs cut by maxEntries, and one changed later in the synced second', async () => {
    const event = (i: number, timestamp: number) => ({
      id: String(i + 1),
      uuid: `6a0c1a2b-0000-4000-8000-${String(i).padStart(12, '0')}`,
      info: `Bulk ${i}`,
      published: true,
      timestamp: String(timestamp),
      date: '2026-11-01',
      Attribute: [{ uuid: `cccccccc-0000-4000-8000-${String(i).padStart(12, '0')}`, type: 'domain', value: `bulk${i}.example.net`, to_ids: true }],
    });
    // Five events published in one second (a bulk import), synced three at a time.
    const events = Array.from({ length: 5 }, (_, i) => event(i, 1_700_100_000));
    const misp = await startFakeMisp({ apiKey: 'k', events });
    closers.push(misp.close);
    const id = await createSource({ kind: 'api', apiType: 'misp', name: 'MISP bulk', serverUrl: misp.url, apiKey: 'k', maxEntries: 3 });
    expect((await runner.sync(org(), id)).job.stats).toMatchObject({ created: 3 });
    expect((await runner.sync(org(), id)).job.stats).toMatchObject({ created: 2 });
    // Written after that sync, in the very second it had read up to.
    events.push(event(5, 1_700_100_000));
    await runner.sync(org(), id);
    expect((await items(id)).map((i) => i.title).sort()).toEqual(['Bulk 0', 'Bulk 1', 'Bulk 2', 'Bulk 3', 'Bulk 4', 'Bulk 5']);
  });

  it('reports a refused key clearly', async () => {
    const misp = await startFakeMisp({ apiKey: 'right', events: [] });
    closers.push(misp.close);
    const id = await createSource({ kind: 'api', apiType: 'misp', name: 'MISP bad key', serverUrl: misp.url, apiKey: 'wrong' });
    const { job, state } = await runner.sync(org(), id);
    expect(job.status).toBe('failed');
    expect(state.lastError).toMatch(/refused the API key \(HTTP 403\)/);
  });
});

describe('MISP feed sync', () => {
  it('downloads only events changed since the last sync', async () => {
    const manifest: Record<string, { info: string; timestamp: string }> = {
      '11111111-1111-4111-8111-111111111111': { info: 'Old event', timestamp: '1700000000' },
      '22222222-2222-4222-8222-222222222222': { info: 'New event', timestamp: '1700000500' },
    };
    const event = (uuid: string) => ({ Event: { uuid, info: manifest[uuid]!.info, timestamp: manifest[uuid]!.timestamp, date: '2026-11-01', Attribute: [{ uuid: `${uuid.slice(0, 8)}-aaaa-4aaa-8aaa-aaaaaaaaaaaa`, type: 'ip-dst', value: '203.0.113.10', to_ids: true }] } });
    const server = await startFixtureServer({
      '/feed/manifest.json': () => ({ json: manifest }),
      '*': (req) => {
        const m = /^\/feed\/([0-9a-f-]{36})\.json$/.exec(req.url);
        return m && manifest[m[1]!] ? { json: event(m[1]!) } : { status: 404, json: {} };
      },
    });
    closers.push(server.close);
    const id = await createSource({ kind: 'api', apiType: 'misp_feed', name: 'Feed', serverUrl: `${server.url}/feed/` });
    const first = await runner.sync(org(), id);
    expect(first.job.stats).toMatchObject({ created: 2 });
    manifest['33333333-3333-4333-8333-333333333333'] = { info: 'Newest event', timestamp: '1700000900' };
    server.requests.length = 0;
    const second = await runner.sync(org(), id);
    expect(second.job.stats).toMatchObject({ created: 1 });
    expect(server.requests.map((r) => r.url)).toEqual(['/feed/manifest.json', '/feed/33333333-3333-4333-8333-333333333333.json']);
  });
});

describe('TAXII 2.1 sync', () => {
  const objects = Array.from({ length: 5 }, (_, i) => ({
    type: 'indicator',
    spec_version: '2.1',
    id: `indicator--0000000${i}-0000-4000-8000-000000000000`,
    created: '2026-11-01T00:00:00.000Z',
    modified: '2026-11-01T00:00:00.000Z',
    name: `Indicator ${i}`,
    pattern: `[ipv4-addr:value = '198.51.100.${i}'] OR [domain-name:value = 'c2-${i}.example']`,
    pattern_type: 'stix',
    valid_from: '2026-11-01T00:00:00Z',
    date_added: `2026-11-0${i + 1}T00:00:00.000Z`,
  }));

  it('walks discovery → API root → collections → paged objects, then syncs incrementally without duplicates', async () => {
    const taxii = await startFakeTaxii({ token: 'tok', pageSize: 2, collections: { 'col-1': { title: 'Indicators', objects }, 'col-2': { title: 'Hidden', canRead: false, objects } } });
    closers.push(taxii.close);
    const id = await createSource({ kind: 'api', apiType: 'taxii', name: 'TAXII', serverUrl: `${taxii.url}/taxii2/`, apiKey: 'tok' });
    const first = await runner.sync(org(), id);
    expect(first.job.status, String(first.job.error)).toBe('succeeded');
    expect(first.job.stats).toMatchObject({ fetched: 5, created: 5 });
    const paths = taxii.requests.map((r) => r.url);
    expect(paths.slice(0, 3)).toEqual(['/taxii2/', '/api1/collections/', '/api1/collections/col-1/objects/']);
    expect(paths.filter((p) => p.includes('next='))).toHaveLength(2);
    expect(paths.some((p) => p.includes('col-2'))).toBe(false);
    expect(taxii.requests.every((r) => r.headers.accept === 'application/taxii+json;version=2.1')).toBe(true);
    const stored = await items(id);
    expect((stored[0]!.structuredIndicators as Array<{ type: string; value: string }>).map((x) => `${x.type}:${x.value}`).sort()).toEqual(['domain:c2-0.example', 'ipv4:198.51.100.0']);

    taxii.requests.length = 0;
    const second = await runner.sync(org(), id);
    expect(second.job.status).toBe('succeeded');
    expect(taxii.requests.at(-1)!.url).toContain('added_after=2026-11-05T00%3A00%3A00.000Z');
    // The boundary object comes back (inclusive server) but is not duplicated.
    expect(second.job.stats).toMatchObject({ fetched: 1, created: 0, unchanged: 1 });
    expect(await items(id)).toHaveLength(5);
  });

  it('the built-in ATT&CK source refreshes the technique catalog before enriching its own objects', async () => {
    const phishing = {
      type: 'attack-pattern',
      spec_version: '2.1',
      id: 'attack-pattern--a62a8db3-f23a-4d8f-afd6-9dbc77e7813b',
      created: '2026-11-01T00:00:00.000Z',
      modified: '2026-11-01T00:00:00.000Z',
      name: 'Glasswing Lure',
      description: 'Adversaries may send lures (T9566) to gain access to victim systems.',
      kill_chain_phases: [{ kill_chain_name: 'mitre-attack', phase_name: 'initial-access' }],
      external_references: [{ source_name: 'mitre-attack', external_id: 'T9566', url: 'https://attack.mitre.org/techniques/T9566' }],
      date_added: '2026-11-01T00:00:00.000Z',
    };
    const taxii = await startFakeTaxii({ collections: { attack: { title: 'Enterprise ATT&CK', objects: [phishing] } } });
    closers.push(taxii.close);
    const { db } = t.database;
    const builtin = await db.selectFrom('intelSources').select(['id']).where('builtinKey', '=', 'mitre-attack-enterprise').executeTakeFirstOrThrow();
    await db.updateTable('intelSources').set({ serverUrl: `${taxii.url}/taxii2/`, collectionId: 'attack' }).where('id', '=', builtin.id).execute();

    const { job } = await runner.sync(org(), builtin.id);
    expect(job.status, String(job.error)).toBe('succeeded');
    expect(await db.selectFrom('attackCatalog').select(['id', 'name']).where('id', '=', 'T9566').executeTakeFirst()).toEqual({ id: 'T9566', name: 'Glasswing Lure' });
    const [item] = await db.selectFrom('intelItems').select(['classification', 'processedAt']).where('sourceId', '=', builtin.id).where('organizationId', '=', org()).execute();
    expect(item?.processedAt).not.toBeNull();
    expect(JSON.stringify(item?.classification)).toContain('Glasswing Lure'); // named from the catalog of this same sync
  });

  it('accepts an API root or a collection URL as serverUrl, and an empty {} page', async () => {
    const taxii = await startFakeTaxii({ collections: { 'col-1': { title: 'Empty', objects: [] } } });
    closers.push(taxii.close);
    const root = await createSource({ kind: 'api', apiType: 'taxii', name: 'root', serverUrl: `${taxii.url}/api1/` });
    expect((await runner.sync(org(), root)).job.status).toBe('succeeded');
    const direct = await createSource({ kind: 'api', apiType: 'taxii', name: 'direct', serverUrl: `${taxii.url}/api1/collections/col-1/` });
    const r = await runner.sync(org(), direct);
    expect(r.job.status).toBe('succeeded');
    expect(r.job.stats).toMatchObject({ fetched: 0 });
  });

  const statuses: Array<[number, RegExp, boolean]> = [
    [401, /credentials \(HTTP 401\)/, false],
    [403, /refused access \(HTTP 403\)/, false],
    [404, /HTTP 404/, false],
    [406, /does not accept TAXII 2\.1/, false],
    [413, /HTTP 413/, false],
    [429, /rate limiting/, true],
  ];
  for (const [status, message, transient] of statuses) {
    it(`explains HTTP ${status}`, async () => {
      const taxii = await startFakeTaxii({ objectsStatus: status, collections: { c: { title: 'c', objects } } });
      closers.push(taxii.close);
      const id = await createSource({ kind: 'api', apiType: 'taxii', name: `s${status}`, serverUrl: `${taxii.url}/taxii2/` });
      const { state, job } = await runner.sync(org(), id);
      expect(state.lastError).toMatch(message);
      expect(job.status).toBe(transient ? 'pending' : 'failed');
    });
  }

  it('reports wrong credentials from discovery', async () => {
    const taxii = await startFakeTaxii({ token: 'right', collections: {} });
    closers.push(taxii.close);
    const id = await createSource({ kind: 'api', apiType: 'taxii', name: 'wrong creds', serverUrl: `${taxii.url}/taxii2/`, apiKey: 'wrong' });
    const { state } = await runner.sync(org(), id);
    expect(state.lastError).toMatch(/HTTP 401/);
  });
});
