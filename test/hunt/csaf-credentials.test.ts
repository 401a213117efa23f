import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.js';
import { syncRunner } from '../support/sync.js';

/**
 * Issue 41 item 5, as the attack: a CSAF provider-metadata.json (or a ROLIE feed) on the source's
 * own server lists a feed, a directory and documents on a second origin — a host that would
 * otherwise receive the source's `Authorization: Bearer <apiKey>`. Two local servers: the key
 * goes to the serverUrl's origin only; the second never sees it, and the sync's job says so.
 */
let t: TestContext;
let key: Record<string, string>;
let org: string;
let runner: ReturnType<typeof syncRunner>;
let home: FixtureServer;
let other: FixtureServer;
const API_KEY = 'tlp-amber-SECRET-key-42';
const fixture = (f: string) => fs.readFileSync(path.join(import.meta.dirname, '../fixtures/csaf', f), 'utf8');

/** The OASIS example feed with one entry pointing at `doc`. */
function feed(doc: string) {
  const f = JSON.parse(fixture('example-01-feed-tlp-white.json'));
  f.feed.entry = [{ ...f.feed.entry[0], id: doc, updated: '2022-03-17T13:03:42.105Z', link: [{ rel: 'self', href: doc }], content: { type: 'application/json', src: doc } }];
  return JSON.stringify(f);
}

/** The real BSI advisory under another tracking id, so each URL is its own item. */
function advisory(id: string) {
  const doc = JSON.parse(fixture('bsi-2022-0001.json'));
  doc.document.tracking.id = id;
  return JSON.stringify(doc);
}

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  key = bearer(t.orgA.apiKey.key);
  org = t.orgA.organization.id;
  runner = syncRunner(t.database.db, { secrets: t.secrets });
  other = await startFixtureServer({
    '/feeds/mirror.json': (_req, base) => ({ body: feed(`${base}/docs/mirror-1.json`) }),
    '/dir/changes.csv': { body: '"2022/dir-1.json","2022-03-17T13:03:42Z"\n' },
    '*': (req) => (req.url.startsWith('/docs/') || req.url.startsWith('/dir/') ? { body: advisory(path.basename(req.url, '.json')) } : { status: 404, body: '{}' }),
  });
  home = await startFixtureServer({
    '/.well-known/csaf/provider-metadata.json': (_req, base) => {
      const pm = JSON.parse(fixture('example-01-provider-metadata.json'));
      pm.canonical_url = `${base}/.well-known/csaf/provider-metadata.json`;
      pm.distributions = [
        { rolie: { feeds: [{ summary: 'own', tlp_label: 'AMBER', url: `${base}/feeds/own.json` }, { summary: 'mirror', tlp_label: 'WHITE', url: `${other.url}/feeds/mirror.json` }] } },
        { directory_url: `${other.url}/dir/` },
      ];
      return { json: pm };
    },
    // The provider's own feed lists one document at home and one on the other origin.
    '/feeds/own.json': (_req, base) => {
      const f = JSON.parse(feed(`${base}/docs/home-1.json`));
      f.feed.entry.push({ ...f.feed.entry[0], id: 'x', link: [{ rel: 'self', href: `${other.url}/docs/listed-by-home.json` }], content: { type: 'application/json', src: `${other.url}/docs/listed-by-home.json` } });
      return { json: f };
    },
    '/docs/home-1.json': () => ({ body: advisory('home-1') }),
  });
});
afterAll(async () => {
  await Promise.all([home?.close(), other?.close()]);
  await t?.close();
});

describe('a CSAF source\'s key goes to its serverUrl\'s origin only', () => {
  it('feeds, changes.csv and documents on a second origin are fetched without Authorization; the job says so', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'csaf', name: 'Amber PSIRT', serverUrl: `${home.url}/.well-known/csaf/provider-metadata.json`, apiKey: API_KEY } });
    expect(created.statusCode, created.body).toBe(200);
    const out = await runner.sync(org, created.json().id);
    expect(out.job.status, String(out.job.error)).toBe('succeeded');

    // Everything was read: the other origin served its feed, directory and documents…
    expect(other.requests.map((r) => r.url).sort()).toEqual(['/dir/2022/dir-1.json', '/dir/changes.csv', '/docs/listed-by-home.json', '/docs/mirror-1.json', '/feeds/mirror.json']);
    expect(out.job.stats).toMatchObject({ fetched: 4 });
    // …without ever seeing the key; the home origin got it on every request.
    expect(other.requests.map((r) => r.headers.authorization)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(JSON.stringify(other.requests)).not.toContain(API_KEY);
    expect(home.requests.map((r) => [r.url, r.headers.authorization])).toEqual([
      ['/.well-known/csaf/provider-metadata.json', `Bearer ${API_KEY}`],
      ['/feeds/own.json', `Bearer ${API_KEY}`],
      ['/docs/home-1.json', `Bearer ${API_KEY}`],
    ]);
    expect((out.job.stats as { notes: string[] }).notes).toEqual([`Fetched without the source's apiKey (sent only to ${home.url}): ${other.url}`]);
  });

  it('a source without a key has nothing to say', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'csaf', name: 'Open PSIRT', serverUrl: `${home.url}/.well-known/csaf/provider-metadata.json` } });
    const out = await runner.sync(org, created.json().id);
    expect(out.job.status, String(out.job.error)).toBe('succeeded');
    expect(out.job.stats).not.toHaveProperty('notes');
  });
});
