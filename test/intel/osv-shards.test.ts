import fs from 'node:fs';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startServiceWorker } from '../support/worker.js';
import { startOsvRangeServer } from '../support/fakes/osv-range-server.js';
import { until } from '../support/until.js';

/**
 * Issue 50 item 5: a sharded OSV sync. The export is a zip of real GitHub Advisory Database
 * records (test/fixtures/osv, CC-BY 4.0) and copies of them under other ids, served as OSV's
 * bucket serves it (HTTP Range, ETag); the service's own job catalog runs in a real worker.
 * Sharded, the sync stores exactly what the unsharded one stores; a shard that fails once is
 * retried to the same result; a server without Range support gets the unsharded sync.
 */
const FIXTURES = path.join(import.meta.dirname, '../fixtures/osv');
const real = [
  ...(JSON.parse(fs.readFileSync(path.join(FIXTURES, 'github-advisory-database.osv.json'), 'utf8')) as Array<Record<string, unknown>>),
  JSON.parse(fs.readFileSync(path.join(FIXTURES, 'GHSA-229r-pqp6-8w6g.json'), 'utf8')) as Record<string, unknown>,
  JSON.parse(fs.readFileSync(path.join(FIXTURES, 'GHSA-24fg-p96v-hxh8.json'), 'utf8')) as Record<string, unknown>,
];
const COUNT = 550;
const SHARD_RECORDS = 100; // 6 shards, the last one of 50
const records = Array.from({ length: COUNT }, (_, i) => (i < real.length ? real[i]! : { ...real[i % real.length]!, id: `GHSA-shrd-${String(i).padStart(4, '0')}-test`, aliases: [`CVE-2026-${80000 + i}`] }));
const names = records.map((r) => `${r.id as string}.json`);
// Stored, not deflated: the export is well past the 128 KiB tail the plan reads first (a real export is tens of MB).
const zip = Buffer.from(zipSync(Object.fromEntries(records.map((r, i) => [names[i]!, strToU8(JSON.stringify(r, null, 2))])), { level: 0 }));

let t: TestContext;
let key: Record<string, string>;
let org: string;
let server: Awaited<ReturnType<typeof startOsvRangeServer>>;
let worker: WorkerRunner;

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  key = bearer(t.orgA.apiKey.key);
  org = t.orgA.organization.id;
  server = await startOsvRangeServer(zip);
  // The helper's client does not retry: a 503 reaches the shard's job, which the worker retries.
  worker = await startServiceWorker(t, { concurrency: 3, deps: { osvShardRecords: SHARD_RECORDS } });
});
afterAll(async () => {
  await worker?.stop();
  await server?.close();
  await t?.close();
});

async function createSource(name: string, url: string): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'osv', name, serverUrl: url } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id as string;
}

/** Asks for a sync through the API and waits for the worker to finish it (the job's own outcome, not a clock). */
async function sync(sourceId: string) {
  const res = await t.app.inject({ method: 'POST', url: `/sources/${sourceId}/sync`, headers: key });
  expect(res.statusCode, res.body).toBe(200);
  // 120 s (what 1,200 tries 100 ms apart gave) bounds a hang.
  return until(
    'the sync to finish',
    async () => {
      const source = (await t.app.inject({ method: 'GET', url: `/sources/${sourceId}`, headers: key })).json();
      return (source.syncJob?.status === 'succeeded' || source.syncJob?.status === 'failed') && source;
    },
    { timeoutMs: 120_000, everyMs: 100 },
  );
}

/** What a sync stored, without what differs by source (ids, source, times). */
async function stored(sourceId: string) {
  const items = await t.database.db
    .selectFrom('intelItems')
    .select(['externalId', 'title', 'contentHash', 'severity', 'summary', 'tags', 'vulnerability', 'structuredIndicators', 'referenceUrls', 'status'])
    .where('sourceId', '=', sourceId)
    .orderBy('externalId')
    .execute();
  const indicators = await t.database.db
    .selectFrom('intelIndicators')
    .innerJoin('intelItems', 'intelItems.id', 'intelIndicators.itemId')
    .select(['intelItems.externalId', 'intelIndicators.type', 'intelIndicators.normalizedValue', 'intelIndicators.confidence'])
    .where('intelItems.sourceId', '=', sourceId)
    .orderBy('intelItems.externalId')
    .orderBy('intelIndicators.type')
    .orderBy('intelIndicators.normalizedValue')
    .execute();
  return { items, indicators };
}

const jobStats = async (id: string) => (await t.database.db.selectFrom('intelSyncJobs').select('stats').where('id', '=', id).executeTakeFirstOrThrow()).stats;

const shardJobs = async () =>
  Number((await t.database.db.selectFrom('intelSyncShards').innerJoin('intelSyncJobs', 'intelSyncJobs.id', 'intelSyncShards.syncJobId').select((eb) => eb.fn.countAll().as('n')).where('intelSyncJobs.organizationId', '=', org).executeTakeFirstOrThrow()).n);

describe('sharded OSV sync', () => {
  let unsharded: Awaited<ReturnType<typeof stored>>;

  it('a server without Range support gets the unsharded sync: one download, no shard', async () => {
    const sourceId = await createSource('OSV without ranges', `${server.url}/norange/npm/all.zip`);
    const before = server.requests.length;
    const out = await sync(sourceId);
    expect(out.syncJob.status, String(out.lastError)).toBe('succeeded');
    expect((await jobStats(out.syncJob.jobId))).toEqual({ fetched: COUNT, created: COUNT, updated: 0, unchanged: 0 });
    expect(server.requests.slice(before)).toHaveLength(1); // the plan's request brought the whole export, read as is
    expect(await shardJobs()).toBe(0);
    unsharded = await stored(sourceId);
    expect(unsharded.items).toHaveLength(COUNT);
  });

  it('stores exactly what the unsharded sync stores, one job per shard, each downloading only its bytes', async () => {
    const sourceId = await createSource('OSV sharded', `${server.url}/npm/all.zip`);
    const before = server.requests.length;
    const out = await sync(sourceId);
    expect(out.syncJob.status, String(out.lastError)).toBe('succeeded');
    expect(out.lastStatus).toBe('ok');
    expect((await jobStats(out.syncJob.jobId))).toEqual({ fetched: COUNT, created: COUNT, updated: 0, unchanged: 0, shards: 6 });
    expect(await stored(sourceId)).toEqual(unsharded);
    // The tail (here it holds the whole directory: ~70 bytes per record), then per shard its
    // directory slice and its members: never the whole export.
    const ranges = server.requests.slice(before).map((r) => String(r.headers.range));
    expect(ranges).toHaveLength(1 + 2 * 6);
    expect(ranges[0]).toBe('bytes=-131072');
    const downloaded = ranges.slice(1).reduce((n, r) => {
      const [a, b] = r.replace('bytes=', '').split('-').map(Number);
      return n + (b! - a! + 1);
    }, 0);
    expect(downloaded).toBeLessThan(zip.length); // each member once, the directory in slices
    // Unchanged export: one conditional request, 304, no shard.
    const again = await sync(sourceId);
    expect(again.lastStatus).toBe('not_modified');
  });

  it('a shard that fails once is retried by the worker and the result is identical', async () => {
    const sourceId = await createSource('OSV sharded, one shard fails once', `${server.url}/npm/all.zip`);
    // The third shard's members start at its first member's local header (its name follows the 30-byte header).
    const thirdShardFrom = zip.indexOf(Buffer.from(names[2 * SHARD_RECORDS]!)) - 30;
    server.failOnce(thirdShardFrom);
    const before = server.requests.length;
    const out = await sync(sourceId);
    expect(out.syncJob.status, String(out.lastError)).toBe('succeeded');
    expect(out.lastStatus).toBe('ok');
    expect(out.lastError).toBeNull();
    expect((await jobStats(out.syncJob.jobId))).toEqual({ fetched: COUNT, created: COUNT, updated: 0, unchanged: 0, shards: 6 });
    expect(await stored(sourceId)).toEqual(unsharded);
    const third = server.requests.slice(before).filter((r) => String(r.headers.range).startsWith(`bytes=${thirdShardFrom}-`));
    expect(third).toHaveLength(2); // the 503, then the retry
  });

  it('an export that changes between the plan and a shard fails the sync with the reason (412), nothing mixed', async () => {
    const sourceId = await createSource('OSV changed mid-sync', `${server.url}/npm/all.zip`);
    const changed = Buffer.from(zipSync({ 'GHSA-chng-0000-test.json': strToU8(JSON.stringify({ ...real[0]!, id: 'GHSA-chng-0000-test' })) }, { level: 0 }));
    server.changeBeforeNextShard(changed); // the plan reads the export; the first shard's download finds a new one
    try {
      const out = await sync(sourceId);
      expect(out.syncJob.status).toBe('failed');
      expect(out.lastStatus).toBe('error');
      expect(out.lastError).toMatch(/^The OSV export at http:\/\/127\.0\.0\.1:\d+\/npm\/all\.zip changed during the sync \(HTTP 412\); the next sync reads the new one$/);
      expect(await shardJobs()).toBeGreaterThan(0);
    } finally {
      server.setBody(zip);
    }
  });

  it('an export served without validators that changes after the plan fails the sync on its size, nothing mixed', async () => {
    const sourceId = await createSource('OSV without validators, changed mid-sync', `${server.url}/novalidators/npm/all.zip`);
    // The same records and one more: every planned range still exists in the new export, at other bytes.
    const extra = { ...real[0]!, id: 'GHSA-grow-0000-test' };
    const grown = Buffer.from(zipSync(Object.fromEntries([...records, extra].map((r) => [`${r.id as string}.json`, strToU8(JSON.stringify(r, null, 2))])), { level: 0 }));
    server.changeAfterPlan(grown);
    try {
      const out = await sync(sourceId);
      expect(out.syncJob.status).toBe('failed');
      expect(out.lastError).toBe(`The OSV export at ${server.url}/novalidators/npm/all.zip changed during the sync (${grown.length} bytes, the plan read ${zip.length}); the next sync reads the new one`);
    } finally {
      server.setBody(zip);
    }
  });

  it("a source whose URL changes after the plan fails the sync rather than reading the new URL's bytes at the plan's offsets", async () => {
    const sourceId = await createSource('OSV whose URL changes mid-sync', `${server.url}/npm/all.zip`);
    // The same export under another URL, so only the URL's change can fail the shards.
    server.holdPlan(async () => {
      const res = await t.app.inject({ method: 'PUT', url: `/sources/${sourceId}`, headers: key, payload: { serverUrl: `${server.url}/mirror/npm/all.zip` } });
      expect(res.statusCode, res.body).toBe(200);
    });
    const out = await sync(sourceId);
    expect(out.syncJob.status).toBe('failed');
    expect(out.lastError).toBe("The source's URL changed during the sync; the next sync reads the new one");
    expect(server.requests.some((r) => r.url.startsWith('/mirror/'))).toBe(false);
  });
});
