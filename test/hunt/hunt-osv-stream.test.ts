import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { zipSync, strToU8 } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { osvFixture } from '../support/fakes/osv-server.js';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.js';
import { syncRunner } from '../support/sync.js';

/**
 * Issue 28: an OSV export is streamed — downloaded to a temporary file, read back record by
 * record and stored batch by batch (1,000 entries) — with no 10,000 cap, and a sync that fails
 * part-way is retried idempotently: the batches it stored are found unchanged.
 */
let t: TestContext;
let key: Record<string, string>;
let org: string;
let runner: ReturnType<typeof syncRunner>;
let server: FixtureServer;
let tmp: string;
const savedTmp = process.env.TMPDIR;
const COUNT = 2_300;
const base = osvFixture('GHSA-229r-pqp6-8w6g.json') as Record<string, unknown>;
const records = Array.from({ length: COUNT }, (_, i) => ({ ...base, id: `GHSA-strm-${String(i).padStart(4, '0')}-test`, aliases: [`CVE-2026-${70000 + i}`] }));
let brokenAt: number | null = 1_500;

function zip(): Buffer {
  const files: Record<string, Uint8Array> = {};
  records.forEach((r, i) => (files[`${r.id}.json`] = strToU8(i === brokenAt ? '{"id":' : JSON.stringify(r))));
  return Buffer.from(zipSync(files, { level: 1 }));
}

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  key = bearer(t.orgA.apiKey.key);
  org = t.orgA.organization.id;
  runner = syncRunner(t.database.db, { secrets: t.secrets });
  const etag = () => `"${brokenAt ?? 'ok'}"`;
  server = await startFixtureServer(
    { '/npm/all.zip': () => ({ type: 'application/zip', headers: { etag: etag() }, body: zip() }) },
    {
      onRequest: (req, res) => {
        if (req.headers['if-none-match'] === etag()) res.writeHead(304).end();
      },
    },
  );
  // The connector's temporary download goes here: the test sees it deleted after each sync.
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'osv-stream-test-'));
  process.env.TMPDIR = tmp;
});
afterAll(async () => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  fs.rmSync(tmp, { recursive: true, force: true });
  await server?.close();
  await t?.close();
});

describe('osv source, streamed', () => {
  it('accepts maxEntries above 10,000 for osv only (400 naming the field otherwise)', async () => {
    const nvd = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'nvd', name: 'NVD', serverUrl: `${server.url}/x`, maxEntries: 50_000 } });
    expect(nvd.statusCode).toBe(400);
    expect(nvd.json().issues).toEqual([expect.objectContaining({ path: 'maxEntries', message: 'must be at most 10000 (only apiType "osv", streamed, reads up to 10000000)' })]);
    const osvDefault = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'osv', name: 'OSV default', serverUrl: `${server.url}/npm/all.zip` } });
    expect(osvDefault.json().maxEntries).toBe(10_000_000);
    const put = await t.app.inject({ method: 'PUT', url: `/sources/${osvDefault.json().id}`, headers: key, payload: { maxEntries: 20_000 } });
    expect(put.statusCode, put.body).toBe(200);
  });

  // Real work at size (thousands of rows enriched and written): its time follows the machine's
  // load (~40 s at load 20); the limit only bounds a hang.
  it('a sync that fails part-way keeps the batches it stored; the retry finds them unchanged and stores the rest', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'osv', name: 'OSV stream', serverUrl: `${server.url}/npm/all.zip`, maxEntries: 50_000 } });
    expect(res.statusCode, res.body).toBe(200);
    const sourceId = res.json().id;
    const count = async () => Number((await t.database.db.selectFrom('intelItems').select((eb) => eb.fn.countAll().as('n')).where('sourceId', '=', sourceId).executeTakeFirstOrThrow()).n);

    const failed = await runner.sync(org, sourceId);
    expect(failed.job.status).toBe('failed');
    expect(failed.job.error).toBe(`The OSV document has invalid JSON in ${records[1_500]!.id}.json`);
    expect(await count()).toBe(1_000); // the first batch, committed before the broken record was read
    expect(failed.state.etag).toBeNull(); // the next sync downloads the export again
    expect(fs.readdirSync(tmp)).toEqual([]);

    brokenAt = null;
    const retried = await runner.sync(org, sourceId);
    expect(retried.job.status, String(retried.job.error)).toBe('succeeded');
    expect(retried.job.stats).toEqual({ fetched: COUNT, created: COUNT - 1_000, updated: 0, unchanged: 1_000 });
    expect(await count()).toBe(COUNT);
    expect(retried.state.etag).toBe('"ok"');
    expect(fs.readdirSync(tmp)).toEqual([]);

    const again = await runner.sync(org, sourceId);
    expect(again.state.lastStatus).toBe('not_modified');
    expect(fs.readdirSync(tmp)).toEqual([]);
  }, 120_000);

  it('maxEntries still caps a sync, in the export\'s order', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'osv', name: 'OSV capped', serverUrl: `${server.url}/npm/all.zip`, maxEntries: 1_200 } });
    const out = await runner.sync(org, res.json().id);
    expect(out.job.stats).toMatchObject({ fetched: 1_200 });
  });
});
