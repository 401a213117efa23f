import { deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { osvFixture } from '../support/fakes/osv-server.js';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.js';
import { syncRunner } from '../support/sync.js';
import { bufferSource, inflate, zipEntries } from '../../src/modules/intel-ingest/connectors/osv/zip.fns.js';

/**
 * Issue 41 item 3, as the attack: a 70 kB OSV zip whose central directory lists one 64 MiB
 * deflated member many times (each entry pointing at the same local header) held a worker's
 * event loop for seconds. Zips built here byte by byte: overlapping entries are refused before
 * anything is inflated, a member not named `.json` is skipped unread, a sync stops at the
 * inflated-bytes cap, and inflation lets timers run between its chunks.
 */
let t: TestContext;
let key: Record<string, string>;
let org: string;
let server: FixtureServer;
let served: Buffer = Buffer.alloc(0);
let etag = 0;
const record = osvFixture('GHSA-229r-pqp6-8w6g.json') as { id: string };
const MiB = 1024 * 1024;

interface Member { name: string; method: 0 | 8; stored: Buffer; size: number }
const deflated = (name: string, data: Buffer): Member => ({ name, method: 8, stored: deflateRawSync(data, { level: 9 }), size: data.length });

/**
 * A zip of `members` (local header + data each), whose central directory lists `listed`
 * (default: each member once): indexes into members, repeats allowed — the attack.
 */
function buildZip(members: Member[], listed = members.map((_, i) => i)): Buffer {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let at = 0;
  for (const m of members) {
    const name = Buffer.from(m.name);
    const h = Buffer.alloc(30);
    h.writeUInt32LE(0x04034b50, 0);
    h.writeUInt16LE(20, 4);
    h.writeUInt16LE(m.method, 8);
    h.writeUInt32LE(m.stored.length, 18);
    h.writeUInt32LE(m.size, 22);
    h.writeUInt16LE(name.length, 26);
    offsets.push(at);
    parts.push(h, name, m.stored);
    at += 30 + name.length + m.stored.length;
  }
  const cdStart = at;
  listed.forEach((i, n) => {
    const m = members[i]!;
    const name = Buffer.from(n === i ? m.name : `${n}-${m.name}`);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(m.method, 10);
    c.writeUInt32LE(m.stored.length, 20);
    c.writeUInt32LE(m.size, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(offsets[i]!, 42);
    parts.push(c, name);
    at += 46 + name.length;
  });
  const e = Buffer.alloc(22);
  e.writeUInt32LE(0x06054b50, 0);
  e.writeUInt16LE(listed.length, 8);
  e.writeUInt16LE(listed.length, 10);
  e.writeUInt32LE(at - cdStart, 12);
  e.writeUInt32LE(cdStart, 16);
  parts.push(e);
  return Buffer.concat(parts);
}

const bomb = deflated('GHSA-bomb.json', Buffer.alloc(64 * MiB)); // ~64 kB deflated
const good = deflated(`${record.id}.json`, Buffer.from(JSON.stringify(record)));

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  key = bearer(t.orgA.apiKey.key);
  org = t.orgA.organization.id;
  server = await startFixtureServer({ '*': () => ({ type: 'application/zip', headers: { etag: `"${++etag}"` }, body: served }) });
});
afterAll(async () => {
  await server?.close();
  await t?.close();
});

async function syncZip(zip: Buffer, opts: { osvMaxInflatedBytes?: number } = {}) {
  served = zip;
  const created = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'osv', name: `OSV ${etag}`, serverUrl: `${server.url}/all.zip` } });
  expect(created.statusCode, created.body).toBe(200);
  const out = await syncRunner(t.database.db, { secrets: t.secrets, ...opts }).sync(org, created.json().id);
  const items = await t.database.db.selectFrom('intelItems').select('externalId').where('sourceId', '=', created.json().id).execute();
  return { ...out, items: items.map((i) => i.externalId) };
}

describe('an OSV zip cannot stall the worker', () => {
  it('refuses central-directory entries that share a local header, before inflating any (the 70 kB bomb)', async () => {
    const zip = buildZip([good, bomb], [0, 1, ...Array.from({ length: 150 }, () => 1)]);
    expect(zip.length).toBeLessThan(100 * 1024);
    expect(() => [...zipEntries(bufferSource(zip))]).toThrow('The OSV zip could not be read: 2-GHSA-bomb.json and GHSA-bomb.json overlap (the same local header): a zip that lists a member twice is refused');
    const out = await syncZip(zip);
    expect(out.job.status).toBe('failed');
    expect(out.state.lastError).toBe('The OSV zip could not be read: 2-GHSA-bomb.json and GHSA-bomb.json overlap (the same local header): a zip that lists a member twice is refused');
    expect(out.items).toEqual([]); // refused before the first record
  });

  it('refuses an entry whose member starts inside another\'s data', () => {
    const zip = buildZip([good, bomb]);
    const cd = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), zip.length - 200);
    const second = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), cd + 4);
    zip.writeUInt32LE(10, second + 42); // GHSA-bomb.json "starts" 10 bytes into the first member
    expect(() => [...zipEntries(bufferSource(zip))]).toThrow(/^The OSV zip could not be read: GHSA-bomb\.json and .+\.json overlap \(byte 10\)/);
  });

  it('skips a member not named .json without inflating it', async () => {
    // Its deflate stream is garbage: inflating it would fail the sync.
    const notJson: Member = { name: 'README.bin', method: 8, stored: Buffer.alloc(64 * 1024, 0xff), size: 64 * MiB };
    const out = await syncZip(buildZip([notJson, good]));
    expect(out.job.status, String(out.job.error)).toBe('succeeded');
    expect(out.items).toEqual([record.id]);
  });

  it('stops a sync at the inflated-bytes cap (RAMPART_OSV_MAX_INFLATED_BYTES), before inflating the member over it', async () => {
    const out = await syncZip(buildZip([good, bomb]), { osvMaxInflatedBytes: 32 * MiB });
    expect(out.job.status).toBe('failed');
    expect(out.state.lastError).toBe(`The OSV zip inflates to more than ${32 * MiB} bytes (at GHSA-bomb.json); raise RAMPART_OSV_MAX_INFLATED_BYTES if the export is genuine`);
    expect(out.items).toEqual([]); // the failure came before the first batch (1,000 records) was complete
  });

  it('inflates in chunks that let the event loop turn: a timer fires between them', async () => {
    const source = bufferSource(buildZip([deflated('big.json', Buffer.alloc(16 * MiB))]));
    const [entry] = [...zipEntries(source)];
    let turns = 0;
    let turning = true;
    const tick = () => {
      turns++;
      if (turning) setImmediate(tick);
    };
    setImmediate(tick);
    const data = await inflate(source, entry!);
    const during = turns;
    turning = false;
    expect(data.length).toBe(16 * MiB);
    // 16 MiB in 256 kB steps: the loop turned between steps (a synchronous inflate allows none).
    expect(during).toBeGreaterThan(10);
  });
});
