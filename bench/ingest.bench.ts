/**
 * Ingestion, end to end (DESIGN.md §7: ≥ 2,000 feed entries/s on 2 cores): a source of 10,000
 * entries (quick: 1,000) served over 127.0.0.1, through the REAL job handlers, as the worker
 * runs them:
 *   1. sync (createSyncSourceJob): fetch, parse, map, dedupe, then store in chunks of 1,000,
 *      each chunk committed with the ids it reports as changed (what `enqueueProcessing` queues);
 *   2. enrichment (createProcessItemsJob) over those ids in batches of PROCESS_BATCH, 4 batches
 *      at a time (RAMPART_WORKER_CONCURRENCY's default), each chunk's batches from its COMMIT
 *      on, beside the rest of the sync: IOC extraction, classification, dedupe by canonical
 *      key, indicators stored.
 * Calling the handlers directly leaves out graphile-worker's job pickup (one job per 100 items:
 * negligible next to the work). Two sources: RSS 2.0 and a TAXII 2.1 collection of STIX
 * indicators. Every run checks that all entries were stored and enriched.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { uuidv7 } from 'uuidv7';
import type { Database } from '../src/platform/db/database.js';
import { createSecretBox } from '../src/platform/secrets.js';
import { createGuardedClient } from '../src/platform/outbound/index.js';
import { createSyncSourceJob } from '../src/modules/intel/sources/sync.jobs.js';
import { requestSync } from '../src/modules/intel/sources/sources.service.js';
import { createProcessItemsJob } from '../src/modules/intel/pipeline/process.jobs.js';
import { PROCESS_BATCH } from '../src/modules/intel/pipeline/process.job-def.js';
import { createOrganization } from '../src/modules/organizations/organizations.service.js';
import { startServer } from '../test/support/fakes/http-server.js';
import { startFakeTaxii } from '../test/support/fakes/taxii-server.js';
import { startBenchDatabase } from './support/db.js';
import { generateRssFeed, generateStixIndicators } from './support/feeds.js';
import { envNumber, onCleanup, type BenchContext, type BenchDefinition, type BenchOutcome } from './support/harness.js';
import { instrument, statementLog, type Phases } from './support/phases.js';
import { cpuSeconds } from './support/cpu.js';
import { postmasterPid } from './support/http-measure.js';

export const TARGET_ENTRIES_PER_SEC = 2_000;
const WORKER_CONCURRENCY = 4;

interface SourceSpec {
  name: string;
  kind: 'rss' | 'api';
  apiType: 'taxii' | null;
  feedUrl: string | null;
  serverUrl: string | null;
}

async function insertSource(db: Database, organizationId: string, spec: SourceSpec, maxEntries: number): Promise<string> {
  const id = uuidv7();
  const now = new Date();
  await db.transaction().execute(async (tx) => {
    await tx
      .insertInto('intelSources')
      .values({ id, organizationId, builtinKey: null, name: spec.name, displayName: spec.name, kind: spec.kind, apiType: spec.apiType, feedUrl: spec.feedUrl, serverUrl: spec.serverUrl, collectionId: null, authType: null, username: null, apiKeyCiphertext: null, scheduleCron: '0 * * * *', maxEntries, createdBy: null, createdAt: now, updatedAt: now })
      .execute();
    await tx.insertInto('intelSourceStates').values({ organizationId, sourceId: id, subscriptionEnabled: true, updatedAt: now }).execute();
  });
  return id;
}

interface SourceRun {
  entries: number;
  /** Sync handler start → its return (enrichment runs beside it from the first chunk's commit). */
  syncSeconds: number;
  /** Last enrichment commit after the sync returned. */
  tailSeconds: number;
  /** Sync start → first enrichment batch started. */
  firstEnrichSeconds: number;
  totalSeconds: number;
  /** CPU seconds over the run: this process (sync + enrichment + the feed server) and PostgreSQL (all backends). */
  nodeCpuSeconds: number;
  pgCpuSeconds: number | null;
  indicators: number;
  phases: Phases;
  /** Enrichment statements by client-side time (round trips included). */
  enrichStatements: ReturnType<ReturnType<typeof statementLog>['top']>;
}

/**
 * What the job queue does between the sync and the worker: ids handed off inside a chunk's
 * transaction become batches of PROCESS_BATCH (one job each, as enqueueProcessing adds them)
 * when that transaction commits, and WORKER_CONCURRENCY workers take them in order.
 */
function handoffQueue() {
  let staged: string[] = [];
  const ready: string[][] = [];
  let closed = false;
  let waiters: Array<() => void> = [];
  const wake = () => {
    for (const w of waiters) w();
    waiters = [];
  };
  const changed: string[] = [];
  return {
    changed,
    stage(ids: string[]) {
      staged.push(...ids);
      changed.push(...ids);
    },
    commit() {
      for (let i = 0; i < staged.length; i += PROCESS_BATCH) ready.push(staged.slice(i, i + PROCESS_BATCH));
      staged = [];
      wake();
    },
    close() {
      closed = true;
      wake();
    },
    reset() {
      staged = [];
      ready.length = 0;
      changed.length = 0;
      closed = false;
    },
    /** The next batch, waiting for a commit; null once the sync is over and all are taken. */
    async next(): Promise<string[] | null> {
      for (;;) {
        const batch = ready.shift();
        if (batch) return batch;
        if (closed) return null;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}
type Handoff = ReturnType<typeof handoffQueue>;

type Probe = ReturnType<typeof instrument>;
const jobCtx = (label: string) => ({ jobId: `bench-${label}`, attempt: 1, maxAttempts: 1, logger: pino({ level: 'silent' }), signal: new AbortController().signal });

/** Sync and enrich one source, as the worker would run them, timed from the sync's start to the last batch's commit. */
async function ingest(db: Database, pgPid: number | null, probe: Probe, stmts: ReturnType<typeof statementLog>, queue: Handoff, organizationId: string, sourceId: string, label: string, entries: number): Promise<SourceRun> {
  const sync = createSyncSourceJob({
    db: probe.db,
    secrets: createSecretBox(randomBytes(32)),
    http: probe.http,
    logger: pino({ level: 'silent' }),
    onItemsChanged: async (_tx, _org, ids) => queue.stage(ids),
  });
  const enrich = createProcessItemsJob({ db: stmts.db });
  const syncJobId = await db.transaction().execute((tx) => requestSync(tx, organizationId, sourceId, 'manual'));
  queue.reset();
  probe.reset();
  stmts.reset();
  let firstEnrich: number | null = null;
  const cpu0 = { node: process.cpuUsage(), pg: cpuSeconds(pgPid, true) };
  const t0 = performance.now();
  const workers = Promise.all(
    Array.from({ length: WORKER_CONCURRENCY }, async () => {
      for (let itemIds = await queue.next(); itemIds; itemIds = await queue.next()) {
        firstEnrich ??= performance.now();
        await enrich.run({ itemIds }, jobCtx(`${label}-enrich`));
      }
    }),
  );
  let t1: number;
  try {
    await sync.run({ syncJobId }, jobCtx(`${label}-sync`));
  } finally {
    t1 = performance.now();
    queue.close();
  }
  await workers;
  const t2 = performance.now();
  const nodeCpu = process.cpuUsage(cpu0.node);
  const pgCpu = cpuSeconds(pgPid, true);
  const changed = queue.changed;

  const row = await db.selectFrom('intelSyncJobs').select(['status', 'error', 'stats']).where('id', '=', syncJobId).executeTakeFirstOrThrow();
  if (row.status !== 'succeeded') throw new Error(`${label} sync ${row.status}: ${String(row.error)}`);
  const stats = row.stats as { fetched?: number; created?: number };
  const counts = await db
    .selectFrom('intelItems')
    .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.count<string>('processedAt').as('processed')])
    .where('sourceId', '=', sourceId)
    .executeTakeFirstOrThrow();
  if (Number(counts.n) !== entries || Number(counts.processed) !== entries || stats.fetched !== entries || stats.created !== entries || changed.length !== entries) {
    throw new Error(`${label}: expected ${entries} items stored and enriched, found ${counts.n} rows, ${counts.processed} processed, ${changed.length} changed (stats ${JSON.stringify(stats)})`);
  }
  const { n: indicators } = await db
    .selectFrom('intelIndicators as ind')
    .innerJoin('intelItems as i', 'i.id', 'ind.itemId')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('i.sourceId', '=', sourceId)
    .executeTakeFirstOrThrow();
  return { entries, syncSeconds: (t1 - t0) / 1000, tailSeconds: (t2 - t1) / 1000, firstEnrichSeconds: ((firstEnrich ?? t2) - t0) / 1000, totalSeconds: (t2 - t0) / 1000, nodeCpuSeconds: (nodeCpu.user + nodeCpu.system) / 1e6, pgCpuSeconds: pgCpu === null || cpu0.pg === null ? null : pgCpu - cpu0.pg, indicators: Number(indicators), phases: probe.phases(t0, t1), enrichStatements: stmts.top() };
}

const timeline = (r: SourceRun) =>
  `sync ${r.syncSeconds.toFixed(2)} s, enrichment from ${r.firstEnrichSeconds.toFixed(2)} s until ${r.tailSeconds.toFixed(2)} s after the sync (${r.totalSeconds.toFixed(2)} s in all); ` +
  `CPU: Node ${r.nodeCpuSeconds.toFixed(2)} s + PostgreSQL ${r.pgCpuSeconds === null ? 'n/a' : `${r.pgCpuSeconds.toFixed(2)} s`} = ${((r.nodeCpuSeconds + (r.pgCpuSeconds ?? 0)) / r.totalSeconds).toFixed(2)} cores busy`;

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const entries = Math.round(envNumber('BENCH_INGEST_ENTRIES', ctx.quick ? 1_000 : 10_000));
  const pageSize = Math.max(1, Math.round(entries / 10));
  const database = await startBenchDatabase('ingest');
  const closers: Array<() => Promise<void>> = [];
  try {
    const { db } = database;
    const org = await createOrganization(db, { name: 'Bench Org', adminEmail: 'bench@ingest.test' });
    const orgId = org.organization.id;
    const pgPid = postmasterPid(database.clusterDir);
    const queue = handoffQueue();
    const probe = instrument(database.pool, createGuardedClient({ allowPrivateNetworks: true, maxResponseBytes: 100 * 1024 * 1024, timeoutMs: 120_000 }), queue.commit);
    const stmts = statementLog(database.pool);

    // RSS 2.0: the document is generated (and encoded) before the clock starts.
    const feed = Buffer.from(generateRssFeed(entries), 'utf8');
    const rssServer = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/rss+xml; charset=utf-8', 'content-length': String(feed.length) });
      res.end(feed);
    });
    closers.push(onCleanup(rssServer.close));
    const rssId = await insertSource(db, orgId, { name: 'Bench RSS', kind: 'rss', apiType: null, feedUrl: `${rssServer.url}/feed.xml`, serverUrl: null }, entries);
    const rss = await ingest(db, pgPid, probe, stmts, queue, orgId, rssId, 'rss', entries);
    ctx.log(`rss: ${entries} items, ${(feed.length / 2 ** 20).toFixed(1)} MiB; ${timeline(rss)}`);

    // TAXII 2.1: STIX indicators, 10 pages (discovery → API root → collections → pages).
    const taxiiServer = await startFakeTaxii({ pageSize, collections: { 'bench-indicators': { title: 'Bench indicators', objects: generateStixIndicators(entries) } } });
    closers.push(onCleanup(taxiiServer.close));
    const taxiiId = await insertSource(db, orgId, { name: 'Bench TAXII', kind: 'api', apiType: 'taxii', feedUrl: null, serverUrl: `${taxiiServer.url}/taxii2/` }, entries);
    const taxii = await ingest(db, pgPid, probe, stmts, queue, orgId, taxiiId, 'taxii', entries);
    ctx.log(`taxii: ${entries} objects in ${taxiiServer.requests.length} requests; ${timeline(taxii)}`);

    const perItem = (r: SourceRun) => r.enrichStatements.map((st) => `${(st.count / r.entries).toFixed(1)}× ${st.meanMs.toFixed(2)} ms  ${st.sql}`);
    console.log(`\nenrichment statements per item (count × mean client-side ms, round trip included):\n  RSS:\n    ${perItem(rss).join('\n    ')}\n  TAXII:\n    ${perItem(taxii).join('\n    ')}`);
    const target = { value: TARGET_ENTRIES_PER_SEC, kind: 'min' as const };
    const perSource = (label: string, r: SourceRun) => [
      { name: `${label} end to end`, value: r.entries / r.totalSeconds, unit: 'entries/s', target },
      { name: `  ${label} sync (fetch, parse, dedupe, store; enrichment beside it)`, value: r.entries / r.syncSeconds, unit: 'entries/s' },
      { name: `  ${label} enrichment left when the sync returned`, value: r.tailSeconds, unit: 's' },
    ];
    return {
      figures: [...perSource('RSS 2.0', rss), ...perSource('TAXII 2.1', taxii)],
      notes: [
        `${entries.toLocaleString('en')} entries per source, one cold run each; RSS feed ${(feed.length / 2 ** 20).toFixed(1)} MiB (${Math.round(feed.length / entries)} B/item), TAXII ${taxiiServer.requests.length} requests`,
        `enrichment: ${WORKER_CONCURRENCY} batches of ${PROCESS_BATCH} in flight, as the worker runs them; indicators stored: RSS ${rss.indicators.toLocaleString('en')}, TAXII ${taxii.indicators.toLocaleString('en')}`,
        ...([['RSS', rss], ['TAXII', taxii]] as const).map(([label, r]) => `${label} sync phases: http ${r.phases.httpSeconds.toFixed(2)} s, parse+map ${r.phases.parseSeconds.toFixed(2)} s, store+commit ${r.phases.storeSeconds.toFixed(2)} s; ${timeline(r)}`),
        '(http = inside http.request; parse+map = sync start → first INSERT INTO intel_items, minus http; store = first INSERT → committed return)',
      ],
      details: { entries, workerConcurrency: WORKER_CONCURRENCY, processBatch: PROCESS_BATCH, rss: { ...rss, feedBytes: feed.length }, taxii: { ...taxii, requests: taxiiServer.requests.length } },
    };
  } finally {
    for (const c of closers.reverse()) await c().catch(() => {});
    await database.close();
  }
}

export const ingestBench: BenchDefinition = { name: 'ingest', title: 'Ingestion: RSS and TAXII, sync + enrichment, end to end', run };
