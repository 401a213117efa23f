import pino from 'pino';
import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle, Queryable } from '../../src/platform/db/database.js';
import type { IntelEntry, StructuredIndicator } from '../../src/modules/intel/entries.js';
import { storeEntries } from '../../src/modules/intel/items/items.store.js';
import { loadAttackCatalog } from '../../src/modules/intel/attack/catalog.repo.js';
import { processItem, type ProcessResult } from '../../src/modules/intel-ingest/pipeline/process.fns.js';
import { createProcessItemsJob, enqueueProcessing } from '../../src/modules/intel-ingest/pipeline/process.jobs.js';
import { writeResults } from '../../src/modules/intel/items/results.store.js';
import { knownItems, writePrepared } from '../../src/modules/intel/items/ingest.store.js';
import { prepareEntries } from '../../src/modules/intel-ingest/pipeline/prepare.fns.js';
import { createOrganization } from '../../src/modules/organizations/organizations.service.js';
import { createTestDatabase } from '../support/db.js';
import { until } from '../support/until.js';

/**
 * The enrichment job writes a whole batch with set-based statements (process.jobs.ts). These
 * tests hold it to what the per-item writer it replaced produced (kept below as the reference),
 * and cover the edges batching creates: stories shared inside one batch, retried batches, one
 * failing item in a batch, and the one-statement enqueue.
 */
let database: DatabaseHandle & { url: string };
const logger = pino({ level: 'silent' });
const ctx = () => ({ jobId: 'test', attempt: 1, maxAttempts: 5, logger, signal: new AbortController().signal });

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.close());

async function newOrgAndSource(name: string): Promise<{ orgId: string; sourceId: string }> {
  const { db } = database;
  const org = await createOrganization(db, { name, adminEmail: `${name.toLowerCase().replace(/\W+/g, '-')}-${uuidv7()}@batch.test` });
  const sourceId = uuidv7();
  const now = new Date();
  await db
    .insertInto('intelSources')
    .values({ id: sourceId, organizationId: org.organization.id, builtinKey: null, name, displayName: 'Batch feed', kind: 'rss', apiType: null, feedUrl: 'https://batch.example/feed', serverUrl: null, collectionId: null, authType: null, username: null, apiKeyCiphertext: null, scheduleCron: '0 * * * *', maxEntries: 100, createdBy: null, createdAt: now, updatedAt: now })
    .execute();
  return { orgId: org.organization.id, sourceId };
}

function entry(externalId: string, over: Partial<IntelEntry> = {}): IntelEntry {
  return {
    externalId,
    title: `Post ${externalId}`,
    url: `https://batch.example/posts/${externalId}`,
    publisher: 'Batch Research',
    publishedAt: '2026-11-16T09:00:00.000Z',
    updatedAt: null,
    language: 'en',
    contentText: `Nothing to see in ${externalId}.`,
    contentHtml: null,
    indicators: [],
    references: [],
    tags: [],
    raw: { id: externalId },
    ...over,
  };
}

const sha = (n: number) => `9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a${n.toString(16).padStart(2, '0')}`;
const CORPUS: IntelEntry[] = [
  entry('c-1', {
    title: 'LockBit affiliate exploits CVE-2026-1234',
    url: 'https://batch.example/lockbit?utm_source=rss',
    contentText:
      'Researchers observed the LockBit affiliate exploiting CVE-2026-1234 in Fortinet FortiOS 7.0.0 through 7.0.12; the flaw is actively exploited in the wild.\n\n' +
      'The implant beacons to hxxps://update-check[.]evil-cdn[.]net/api/v2 and 185.220.101[.]45 over TLS (T1071.001), after initial access through the VPN (T1190).\n\n' +
      `The dropper SHA-256 is ${sha(1)}. Do not block 8.8.8.8 or 192.0.2.10.`,
  }),
  entry('c-2', { title: 'Follow-up on CVE-2026-1234', contentText: 'More on CVE-2026-1234 exploitation from 185.220.101.46.' }),
  entry('c-3', { title: 'Third take on CVE-2026-1234', contentText: 'Yet more.' }),
  entry('c-4', {
    title: 'STIX indicator bundle',
    url: null,
    indicators: [
      { type: 'domain', value: 'C2.Example-Bad.net', confidence: 0.9, origin: 'stix:pattern' },
      { type: 'ipv4', value: '198.51.100.77', confidence: 0.6, origin: 'stix:pattern' },
      { type: 'cve', value: 'cve-2025-0001', confidence: 1, origin: 'stix:pattern' },
    ],
    tags: ['revoked'],
  }),
  entry('c-5', { url: null, contentText: `Hash ${sha(5)} seen with evil-five.example.org.` }),
  entry('c-6', { url: 'https://www.batch.example/shared-story/', contentText: 'Covered at 185.220.101.9 first.' }),
  entry('c-7', { url: 'https://batch.example/shared-story#comments', contentText: 'Covered again.' }),
];

/** The corpus's second version: c-1 loses an address, c-5 keeps only its hash. */
const change = (e: IntelEntry): IntelEntry =>
  e.externalId === 'c-1' ? { ...e, contentText: e.contentText.replace('185.220.101[.]45', 'an address') } : e.externalId === 'c-5' ? { ...e, contentText: `Hash ${sha(5)} only.` } : e;

/** A hunt result on c-5's hash, which its second version keeps: the status must survive re-enrichment. */
async function markHashFound(sourceId: string): Promise<void> {
  await database.db
    .updateTable('intelIndicators')
    .set({ status: 'found' })
    .where('normalizedValue', '=', sha(5))
    .where('itemId', 'in', (eb) => eb.selectFrom('intelItems').select('id').where('sourceId', '=', sourceId))
    .execute();
}

/** The per-item writer the batched one replaced (one transaction per item), as the reference. */
async function referenceWrite(tx: Queryable, row: { id: string; organizationId: string; title: string; sourceLabel: string }, r: ProcessResult): Promise<void> {
  await tx
    .updateTable('intelItems')
    .set({
      processedAt: new Date(),
      severity: r.severity,
      relevance: r.relevance,
      platforms: r.platforms,
      summary: r.summary,
      tldr: r.tldr,
      abstract: r.abstract,
      attackPath: JSON.stringify(r.attackPath),
      classification: JSON.stringify({ ...r.classification, passages: undefined }),
      affectedProducts: JSON.stringify(r.affectedProducts),
      iocs: JSON.stringify(r.iocs),
      provenance: JSON.stringify({ supportingPassages: r.passages }),
      droppedCandidates: JSON.stringify(r.dropped),
      eventConfidence: r.eventConfidence,
      canonicalKey: r.canonicalKey,
      ...(r.retracted ? { status: 'retracted' } : {}),
    })
    .where('id', '=', row.id)
    .execute();
  await tx.updateTable('intelItems').set({ duplicateOf: null }).where('id', '=', row.id).execute();
  if (r.canonicalKey) {
    await sql`
      WITH g AS (
        SELECT id, first_value(id) OVER (ORDER BY created_at, id) AS first
        FROM intel_items WHERE organization_id = ${row.organizationId} AND canonical_key = ${r.canonicalKey}
      )
      UPDATE intel_items i SET duplicate_of = NULLIF(g.first, i.id) FROM g WHERE i.id = g.id`.execute(tx);
  }
  const now = new Date();
  if (r.indicators.length) {
    await tx
      .insertInto('intelIndicators')
      .values(r.indicators.map((ind) => ({ id: uuidv7(), organizationId: row.organizationId, itemId: row.id, type: ind.type, value: ind.value.slice(0, 4096), normalizedValue: ind.normalizedValue.slice(0, 4096), confidence: ind.confidence, firstSeen: now, lastSeen: now, ttlDays: ind.ttlDays, intelTitle: row.title.slice(0, 500), sourceLabel: row.sourceLabel, createdAt: now })))
      .onConflict((oc) => oc.columns(['itemId', 'type', 'normalizedValue']).doUpdateSet((eb) => ({ value: eb.ref('excluded.value'), confidence: eb.ref('excluded.confidence'), ttlDays: eb.ref('excluded.ttlDays'), intelTitle: eb.ref('excluded.intelTitle'), lastSeen: eb.ref('excluded.lastSeen') })))
      .execute();
  }
  const keep = r.indicators.map((i) => `${i.type}\u001f${i.normalizedValue.slice(0, 4096)}`);
  await tx.deleteFrom('intelIndicators').where('itemId', '=', row.id).where(sql<boolean>`(type || chr(31) || normalized_value) <> ALL(${keep}::text[])`).execute();
}

async function referenceRun(itemIds: string[]): Promise<void> {
  const { db } = database;
  const rows = await db
    .selectFrom('intelItems as i')
    .innerJoin('intelSources as s', 's.id', 'i.sourceId')
    .select(['i.id', 'i.organizationId', 'i.title', 'i.contentText', 'i.url', 'i.tags', 'i.structuredIndicators', 'i.publishedAt', 'i.createdAt', 's.displayName as sourceLabel'])
    .where('i.id', 'in', itemIds)
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  const catalog = await loadAttackCatalog(db);
  for (const id of itemIds) {
    const row = byId.get(id)!;
    const result = processItem({ title: row.title, contentText: row.contentText, url: row.url, tags: row.tags, structuredIndicators: row.structuredIndicators as StructuredIndicator[], publishedAt: row.publishedAt, now: row.createdAt }, catalog);
    await db.transaction().execute((tx) => referenceWrite(tx, row, result));
  }
}

/** Items and indicators of a source, keyed by externalId, without ids and write times. */
async function snapshot(sourceId: string) {
  const { db } = database;
  const items = await db.selectFrom('intelItems').selectAll().where('sourceId', '=', sourceId).orderBy('externalId').execute();
  const extOf = new Map(items.map((i) => [i.id, i.externalId]));
  const indicators = await db
    .selectFrom('intelIndicators as d')
    .innerJoin('intelItems as i', 'i.id', 'd.itemId')
    .select(['i.externalId', 'd.type', 'd.value', 'd.normalizedValue', 'd.confidence', 'd.ttlDays', 'd.intelTitle', 'd.sourceLabel', 'd.status'])
    .where('i.sourceId', '=', sourceId)
    .orderBy('i.externalId')
    .orderBy('d.type')
    .orderBy('d.normalizedValue')
    .execute();
  return {
    items: items.map(({ id: _id, organizationId: _o, sourceId: _s, processedAt, createdAt: _c, updatedAt: _u, duplicateOf, contentHash: _h, ...rest }) => ({
      ...rest,
      processed: processedAt !== null,
      duplicateOf: duplicateOf === null ? null : extOf.get(duplicateOf),
    })),
    indicators,
  };
}

async function store(sourceId: string, orgId: string, entries: IntelEntry[]): Promise<string[]> {
  const ids: string[] = [];
  // One entry per call: distinct created_at, so "the first item of a story" is well defined.
  for (const e of entries) ids.push(...(await storeEntries(database.db, orgId, sourceId, [e])).changedIds);
  return ids;
}

describe('batched enrichment writes', () => {
  it('writes the same items and indicators as the per-item writer, including stories across and inside batches', async () => {
    const ref = await newOrgAndSource('Reference');
    const bat = await newOrgAndSource('Batched');
    const refIds = await store(ref.sourceId, ref.orgId, CORPUS);
    const batIds = await store(bat.sourceId, bat.orgId, CORPUS);

    // c-3 first, alone (a later story item before the first is processed), then the rest, newest first.
    await referenceRun([refIds[2]!]);
    await referenceRun([...refIds].reverse().filter((id) => id !== refIds[2]));
    const job = createProcessItemsJob({ db: database.db });
    await job.run({ itemIds: [batIds[2]!] }, ctx());
    await job.run({ itemIds: [...batIds].reverse().filter((id) => id !== batIds[2]) }, ctx());

    const expected = await snapshot(ref.sourceId);
    const actual = await snapshot(bat.sourceId);
    expect(actual).toEqual(expected);
    // And what that means: one story per canonical key, pointing at its oldest item.
    const dup = Object.fromEntries(actual.items.map((i) => [i.externalId, [i.canonicalKey, i.duplicateOf]]));
    expect(dup).toMatchObject({
      'c-1': ['CVE-2026-1234', null],
      'c-2': ['CVE-2026-1234', 'c-1'],
      'c-3': ['CVE-2026-1234', 'c-1'],
      'c-6': ['https://batch.example/shared-story', null],
      'c-7': ['https://batch.example/shared-story', 'c-6'],
    });
    expect(actual.items.find((i) => i.externalId === 'c-4')?.status).toBe('retracted');
    expect(actual.indicators.length).toBeGreaterThan(5);

    // Changed content, re-processed in one batch: indicators an item no longer carries go, the
    // ones it keeps keep their hunt status.
    for (const s of [ref, bat]) {
      await markHashFound(s.sourceId);
      await storeEntries(database.db, s.orgId, s.sourceId, CORPUS.map(change));
    }
    await referenceRun([refIds[0]!, refIds[4]!]);
    await job.run({ itemIds: [batIds[0]!, batIds[4]!] }, ctx());
    const expected2 = await snapshot(ref.sourceId);
    const actual2 = await snapshot(bat.sourceId);
    expect(actual2).toEqual(expected2);
    expect(actual2.indicators.filter((i) => i.externalId === 'c-1').map((i) => i.normalizedValue)).not.toContain('185.220.101.45');
    expect(actual2.indicators.find((i) => i.externalId === 'c-5' && i.normalizedValue === sha(5))?.status).toBe('found');
    expect(actual2.indicators.some((i) => i.externalId === 'c-5' && i.normalizedValue === 'evil-five.example.org')).toBe(false);
  });

  it('two items of one batch sharing a key: the older stands, whatever order the batch lists them in', async () => {
    const s = await newOrgAndSource('Same batch');
    const ids = await store(s.sourceId, s.orgId, [
      entry('s-1', { title: 'Patch now: CVE-2026-7777' }),
      entry('s-2', { title: 'CVE-2026-7777 exploited' }),
      entry('s-3', { title: 'Roundup', contentText: 'Only CVE-2026-7777 this week.' }),
    ]);
    await createProcessItemsJob({ db: database.db }).run({ itemIds: [ids[2]!, ids[1]!, ids[0]!] }, ctx());
    const rows = await database.db.selectFrom('intelItems').select(['id', 'canonicalKey', 'duplicateOf']).where('sourceId', '=', s.sourceId).orderBy('externalId').execute();
    expect(rows.map((r) => r.canonicalKey)).toEqual(['CVE-2026-7777', 'CVE-2026-7777', 'CVE-2026-7777']);
    expect(rows.map((r) => r.duplicateOf)).toEqual([null, ids[0], ids[0]]);
  });

  it('two batches writing one story at once: the later writer waits for the earlier and links both', async () => {
    const s = await newOrgAndSource('Concurrent story');
    const [olderId, newerId] = await store(s.sourceId, s.orgId, [entry('k-1', { title: 'CVE-2026-8888 patched' }), entry('k-2', { title: 'CVE-2026-8888 exploited' })]);
    const { db } = database;
    const newer = await db.selectFrom('intelItems').selectAll().where('id', '=', newerId!).executeTakeFirstOrThrow();
    const result = processItem({ title: newer.title, contentText: newer.contentText, url: newer.url, tags: newer.tags, structuredIndicators: [], publishedAt: newer.publishedAt, now: newer.createdAt }, await loadAttackCatalog(db));
    expect(result.canonicalKey).toBe('CVE-2026-8888');

    // Writer 1 writes the newer item and holds its transaction open…
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let written!: () => void;
    const wasWritten = new Promise<void>((r) => (written = r));
    const writer1 = db.transaction().execute(async (tx) => {
      await writeResults(tx, [{ row: { id: newer.id, organizationId: s.orgId, title: newer.title, sourceLabel: 'Batch feed', processedAt: null }, result }]);
      written();
      await released;
    });
    await wasWritten;
    // …while the job enriches the older item: it must wait for writer 1 (a lock not granted)
    // rather than link the story without the newer item.
    let jobDone = false;
    const job = createProcessItemsJob({ db }).run({ itemIds: [olderId!] }, ctx()).finally(() => (jobDone = true));
    let waiting = false;
    try {
      // Until the job waits or ends, whichever comes first: the bound only turns a hang into a
      // failure (a loaded machine can take more than the 5 s a fixed 100 tries gave the job to
      // get there). Only this file's database: pg_locks is the whole server's, and another
      // file's waiting advisory lock (a migration's) would have read as this job waiting.
      await until(
        'the job to wait for writer 1, or to end',
        async () => {
          if (jobDone) return true;
          const { rows } = await sql<{ n: number }>`
            SELECT count(*)::int AS n FROM pg_locks
            WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`.execute(db);
          waiting = (rows[0]?.n ?? 0) > 0;
          return waiting;
        },
        { timeoutMs: 15_000, everyMs: 50 },
      );
      expect({ waiting, jobDone }).toEqual({ waiting: true, jobDone: false });
    } finally {
      release();
      await writer1;
      await job;
    }

    const rows = await db.selectFrom('intelItems').select(['id', 'duplicateOf']).where('sourceId', '=', s.sourceId).orderBy('externalId').execute();
    expect(rows.map((r) => r.duplicateOf)).toEqual([null, olderId]);
  });

  it('a retried batch gives the same rows (same indicator ids)', async () => {
    const s = await newOrgAndSource('Retry');
    const ids = await store(s.sourceId, s.orgId, CORPUS.map((e) => ({ ...e, externalId: `r-${e.externalId}` })));
    const job = createProcessItemsJob({ db: database.db });
    await job.run({ itemIds: ids }, ctx());
    const indicatorRows = () => database.db.selectFrom('intelIndicators as d').innerJoin('intelItems as i', 'i.id', 'd.itemId').select(['d.id', 'd.type', 'd.normalizedValue', 'd.firstSeen']).where('i.sourceId', '=', s.sourceId).orderBy('d.id').execute();
    const first = { snap: await snapshot(s.sourceId), ind: await indicatorRows() };
    await job.run({ itemIds: ids }, ctx());
    expect(await snapshot(s.sourceId)).toEqual(first.snap);
    expect(await indicatorRows()).toEqual(first.ind);
  });

  it('one item failing to process: the others are written, then the job fails to be retried', async () => {
    const s = await newOrgAndSource('Bad processing');
    const ids = await store(s.sourceId, s.orgId, [entry('b-1', { contentText: 'Beacon to 185.220.101.50.' }), entry('b-2'), entry('b-3', { contentText: `Hash ${sha(3)}.` })]);
    // A structured indicator whose value is not a string: processItem throws on it.
    await database.db.updateTable('intelItems').set({ structuredIndicators: JSON.stringify([{ type: 'domain', value: 42, confidence: 1, origin: 'x' }]) }).where('id', '=', ids[1]!).execute();
    await expect(createProcessItemsJob({ db: database.db }).run({ itemIds: ids }, ctx())).rejects.toThrow(/^1 of 3 items could not be enriched/);
    const rows = await database.db.selectFrom('intelItems').select(['externalId', 'processedAt']).where('sourceId', '=', s.sourceId).orderBy('externalId').execute();
    expect(rows.map((r) => [r.externalId, r.processedAt !== null])).toEqual([['b-1', true], ['b-2', false], ['b-3', true]]);
    const n = await database.db.selectFrom('intelIndicators').select((eb) => eb.fn.countAll<number>().as('n')).where('itemId', 'in', [ids[0]!, ids[2]!]).executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(2);
  });

  it('one item failing to store: the batch is written again item by item, the others land, the job fails', async () => {
    const s = await newOrgAndSource('Bad write');
    const ids = await store(s.sourceId, s.orgId, [entry('w-1', { contentText: 'Beacon to 185.220.101.60.' }), entry('w-2', { title: 'poison pill' }), entry('w-3', { title: 'CVE-2026-8888 story' }), entry('w-4', { title: 'CVE-2026-8888 again' })]);
    await sql`
      CREATE FUNCTION batch_test_poison() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.title = 'poison pill' AND NEW.processed_at IS NOT NULL THEN RAISE EXCEPTION 'poisoned item'; END IF;
        RETURN NEW;
      END $$`.execute(database.db);
    await sql`CREATE TRIGGER batch_test_poison BEFORE UPDATE ON intel_items FOR EACH ROW EXECUTE FUNCTION batch_test_poison()`.execute(database.db);
    try {
      await expect(createProcessItemsJob({ db: database.db }).run({ itemIds: ids }, ctx())).rejects.toThrow(/^1 of 4 items could not be enriched: poisoned item/);
    } finally {
      await sql`DROP TRIGGER batch_test_poison ON intel_items`.execute(database.db);
      await sql`DROP FUNCTION batch_test_poison()`.execute(database.db);
    }
    const rows = await database.db.selectFrom('intelItems').select(['externalId', 'processedAt', 'duplicateOf']).where('sourceId', '=', s.sourceId).orderBy('externalId').execute();
    expect(rows.map((r) => [r.externalId, r.processedAt !== null])).toEqual([['w-1', true], ['w-2', false], ['w-3', true], ['w-4', true]]);
    expect(rows.map((r) => r.duplicateOf)).toEqual([null, null, null, ids[2]]);
    const ind = await database.db.selectFrom('intelIndicators').select('normalizedValue').where('itemId', '=', ids[0]!).execute();
    expect(ind.map((i) => i.normalizedValue)).toEqual(['185.220.101.60']);
  });
});

describe('enqueueProcessing', () => {
  it('adds one job per 100 ids, in order, in one statement of the caller’s transaction', async () => {
    const ids = Array.from({ length: 250 }, () => uuidv7());
    await sql`DELETE FROM graphile_worker._private_jobs`.execute(database.db);
    await database.db
      .transaction()
      .execute(async (tx) => {
        await enqueueProcessing(tx, ids);
        throw new Error('roll back');
      })
      .catch(() => {});
    const jobs = () => sql<{ taskIdentifier: string; payload: { itemIds: string[] }; maxAttempts: number; key: string | null; priority: number }>`
      SELECT t.identifier AS task_identifier, j.payload, j.max_attempts, j.key, j.priority
      FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id ORDER BY j.id`.execute(database.db);
    expect((await jobs()).rows).toEqual([]);

    await database.db.transaction().execute((tx) => enqueueProcessing(tx, ids));
    await database.db.transaction().execute((tx) => enqueueProcessing(tx, []));
    const { rows } = await jobs();
    expect(rows.map((r) => r.payload.itemIds)).toEqual([ids.slice(0, 100), ids.slice(100, 200), ids.slice(200)]);
    expect(rows.every((r) => r.taskIdentifier === 'intel:processItems' && r.maxAttempts === 5 && r.key === null && r.priority === 0)).toBe(true);
    await sql`DELETE FROM graphile_worker._private_jobs`.execute(database.db);
  });
});

describe("the sync's write path: entries enriched before they are stored (ingest.store.ts)", () => {
  const target = (s: { orgId: string; sourceId: string }) => ({ organizationId: s.orgId, sourceId: s.sourceId, sourceLabel: 'Batch feed' });

  /** One entry per transaction, as store() does: distinct created_at, so story order is defined. */
  async function ingest(s: { orgId: string; sourceId: string }, entries: IntelEntry[]) {
    const catalog = await loadAttackCatalog(database.db);
    const totals = { created: 0, updated: 0, unchanged: 0 };
    for (const e of entries) {
      const known = await knownItems(database.db, target(s), [e]);
      const chunk = await prepareEntries([e], known, catalog, new Date(), (_e, err) => {
        throw err;
      });
      const out = await database.db.transaction().execute((tx) => writePrepared(tx, target(s), chunk));
      expect(out.unenrichedIds).toEqual([]);
      totals.created += out.created;
      totals.updated += out.updated;
      totals.unchanged += out.unchanged;
    }
    return totals;
  }

  it('writes the same items, stories and indicators as storing and then running the enrichment job', async () => {
    const viaJob = await newOrgAndSource('Via job');
    const viaSync = await newOrgAndSource('Via sync');
    const ids = await store(viaJob.sourceId, viaJob.orgId, CORPUS);
    const job = createProcessItemsJob({ db: database.db });
    await job.run({ itemIds: ids }, ctx());
    expect(await ingest(viaSync, CORPUS)).toEqual({ created: CORPUS.length, updated: 0, unchanged: 0 });
    expect(await snapshot(viaSync.sourceId)).toEqual(await snapshot(viaJob.sourceId));

    // Changed content: indicators an item no longer carries go, the ones it keeps keep their hunt status.
    for (const s of [viaJob, viaSync]) await markHashFound(s.sourceId);
    const changed = await storeEntries(database.db, viaJob.orgId, viaJob.sourceId, CORPUS.map(change));
    await job.run({ itemIds: changed.changedIds }, ctx());
    expect(await ingest(viaSync, CORPUS.map(change))).toEqual({ created: 0, updated: 2, unchanged: CORPUS.length - 2 });
    const after = await snapshot(viaSync.sourceId);
    expect(after).toEqual(await snapshot(viaJob.sourceId));
    expect(after.items.find((i) => i.externalId === 'c-1')).toMatchObject({ version: 2, status: 'corrected', processed: true });
    expect(after.indicators.filter((i) => i.externalId === 'c-1').map((i) => i.normalizedValue)).not.toContain('185.220.101.45');
    expect(after.indicators.find((i) => i.externalId === 'c-5' && i.normalizedValue === sha(5))?.status).toBe('found');
    expect(after.indicators.some((i) => i.externalId === 'c-5' && i.normalizedValue === 'evil-five.example.org')).toBe(false);
  });

  it('an entry whose enrichment throws is stored as is and handed on for the enrichment job; the rest are enriched', async () => {
    const s = await newOrgAndSource('Sync enrichment failure');
    // A structured indicator whose value is not a string: processItem throws on it.
    const bad = entry('f-2', { indicators: [{ type: 'domain', value: 42 as unknown as string, confidence: 1, origin: 'x' }] });
    const failed: string[] = [];
    const chunk = await prepareEntries([entry('f-1', { contentText: 'Beacon to 185.220.101.70.' }), bad], new Map(), await loadAttackCatalog(database.db), new Date(), (e) => failed.push(e.externalId));
    expect(failed).toEqual(['f-2']);
    const out = await database.db.transaction().execute((tx) => writePrepared(tx, target(s), chunk));
    expect(out).toMatchObject({ created: 2, updated: 0, unchanged: 0 });
    const rows = await database.db.selectFrom('intelItems').select(['id', 'externalId', 'processedAt']).where('sourceId', '=', s.sourceId).orderBy('externalId').execute();
    expect(rows.map((r) => [r.externalId, r.processedAt !== null])).toEqual([['f-1', true], ['f-2', false]]);
    expect(out.unenrichedIds).toEqual([rows[1]!.id]);
    const ind = await database.db.selectFrom('intelIndicators').select('normalizedValue').where('itemId', '=', rows[0]!.id).execute();
    expect(ind.map((i) => i.normalizedValue)).toEqual(['185.220.101.70']);
  });
});
