/**
 * Ingestion, end to end (DESIGN.md §7: ≥ 2,000 feed entries/s on 2 cores): a source of 10,000
 * entries (quick: 1,000) served over 127.0.0.1, through the REAL sync job handler as the worker
 * runs it (createSyncSourceJob): fetch, parse, map, dedupe, then chunks of entries enriched
 * (IOC extraction, classification, summaries, dedupe by canonical key) and stored with their
 * indicators and full-text vector, each chunk committed, the next enriched while one is written.
 * Entries whose enrichment throws would be handed to the enrichment job: the bench runs that job
 * on them after the sync, inside the timing (none do in this corpus). Calling the handler
 * directly leaves out graphile-worker's job pickup (one job per sync: negligible). Two kinds of
 * source: RSS 2.0 and a TAXII 2.1 collection of STIX indicators; BENCH_INGEST_RUNS (3; quick: 1)
 * timed runs of each after a warm-up, the median reported. Every run checks that all entries
 * were stored and enriched. BENCH_PG_IO=1: each run prints what the backends wrote per entry (pg_stat_io, pg_stat_wal). BENCH_PG_STATEMENTS=1: each run prints its statements per entry,
 * server side (what database triggers run included). BENCH_CPU_PROF (any value): a V8 CPU profile
 * of this process (the sync runs in it) over the timed runs of each kind,
 * bench/results/profiles/ingest-rss.cpuprofile and ingest-taxii.cpuprofile.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { uuidv7 } from 'uuidv7';
import type { Database } from '../src/platform/db/database.js';
import { createSecretBox } from '../src/platform/secrets.js';
import { createGuardedClient } from '../src/platform/outbound/index.js';
import { createSyncSourceJob } from '../src/modules/intel-ingest/sync.jobs.js';
import { requestSync } from '../src/modules/intel/sources/sources.service.js';
import { createProcessItemsJob } from '../src/modules/intel-ingest/pipeline/process.jobs.js';
import { PROCESS_BATCH } from '../src/modules/intel-ingest/pipeline/process.job-def.js';
import { createOrganization } from '../src/modules/organizations/organizations.service.js';
import { startServer } from '../test/support/fakes/http-server.js';
import { startFakeTaxii } from '../test/support/fakes/taxii-server.js';
import { startBenchDatabase } from './support/db.js';
import { generateRssFeed, generateStixIndicators } from './support/feeds.js';
import { envNumber, onCleanup, type BenchContext, type BenchDefinition, type BenchOutcome } from './support/harness.js';
import { instrument, type Phases, type StatementStat } from './support/phases.js';
import { cpuSeconds } from './support/cpu.js';
import { resetStatements, statementReport } from './support/pg-statements.js';
import { PG_IO, ioReport, ioSnapshot } from './support/pg-io.js';
import { postmasterPid } from './support/http-measure.js';
import { startProfile, stopProfile } from './servers/ipc.js';

const PROFILE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'profiles');

/** Issue 27 §2's targets (DESIGN.md §7 asked ≥ 2,000 entries/s of either kind). */
export const TARGETS = { rss: { entriesPerSec: 5_000, cpuMicrosPerEntry: 350 }, taxii: { entriesPerSec: 10_000 } } as const;

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
  /** Sync handler start → its return (every chunk committed). */
  syncSeconds: number;
  /** Enrichment job runs for entries the sync could not enrich, after it (normally none). */
  handedOff: number;
  totalSeconds: number;
  /** CPU seconds over the run: this process (sync + the feed server) and PostgreSQL (all backends). */
  nodeCpuSeconds: number;
  pgCpuSeconds: number | null;
  indicators: number;
  phases: Phases;
  statements: StatementStat[];
}

type Probe = ReturnType<typeof instrument>;
const jobCtx = (label: string) => ({ jobId: `bench-${label}`, attempt: 1, maxAttempts: 1, logger: pino({ level: 'silent' }), signal: new AbortController().signal });

/** Sync one source as the worker would, timed from the sync's start to its last commit. */
async function ingest(db: Database, pgPid: number | null, probe: Probe, organizationId: string, sourceId: string, label: string, entries: number): Promise<SourceRun> {
  const handedOff: string[] = [];
  const sync = createSyncSourceJob({
    db: probe.db,
    secrets: createSecretBox(randomBytes(32)),
    http: probe.http,
    logger: pino({ level: 'silent' }),
    enqueueEnrichment: async (_tx, ids) => void handedOff.push(...ids),
  });
  const syncJobId = await db.transaction().execute((tx) => requestSync(tx, organizationId, sourceId, 'manual'));
  probe.reset();
  await resetStatements(db);
  const io0 = PG_IO ? await ioSnapshot(db) : null;
  const cpu0 = { node: process.cpuUsage(), pg: cpuSeconds(pgPid, true) };
  const t0 = performance.now();
  await sync.run({ syncJobId }, jobCtx(`${label}-sync`));
  const t1 = performance.now();
  for (let i = 0; i < handedOff.length; i += PROCESS_BATCH) {
    await createProcessItemsJob({ db }).run({ itemIds: handedOff.slice(i, i + PROCESS_BATCH) }, jobCtx(`${label}-enrich`));
  }
  const t2 = performance.now();
  const nodeCpu = process.cpuUsage(cpu0.node);
  const pgCpu = cpuSeconds(pgPid, true);
  // Server side, triggers' own statements included (the search copy, intel out's change queue).
  const pgStatements = await statementReport(db, entries, 'entry', 30);
  if (pgStatements) console.log(`\n[${label}]${pgStatements.text}`);
  if (io0) console.log(`\n[${label}] ${ioReport(io0, await ioSnapshot(db), entries, 'entry')}`);

  const row = await db.selectFrom('intelSyncJobs').select(['status', 'error', 'stats']).where('id', '=', syncJobId).executeTakeFirstOrThrow();
  if (row.status !== 'succeeded') throw new Error(`${label} sync ${row.status}: ${String(row.error)}`);
  const stats = row.stats as { fetched?: number; created?: number };
  const counts = await db
    .selectFrom('intelItems')
    .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.count<string>('processedAt').as('processed')])
    .where('sourceId', '=', sourceId)
    .executeTakeFirstOrThrow();
  if (Number(counts.n) !== entries || Number(counts.processed) !== entries || stats.fetched !== entries || stats.created !== entries) {
    throw new Error(`${label}: expected ${entries} items stored and enriched, found ${counts.n} rows, ${counts.processed} processed (stats ${JSON.stringify(stats)})`);
  }
  const { n: indicators } = await db
    .selectFrom('intelIndicators as ind')
    .innerJoin('intelItems as i', 'i.id', 'ind.itemId')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('i.sourceId', '=', sourceId)
    .executeTakeFirstOrThrow();
  return { entries, syncSeconds: (t1 - t0) / 1000, handedOff: handedOff.length, totalSeconds: (t2 - t0) / 1000, nodeCpuSeconds: (nodeCpu.user + nodeCpu.system) / 1e6, pgCpuSeconds: pgCpu === null || cpu0.pg === null ? null : pgCpu - cpu0.pg, indicators: Number(indicators), phases: probe.phases(t0, t1), statements: probe.top() };
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const m = sorted.length >> 1;
  return sorted.length % 2 ? sorted[m]! : (sorted[m - 1]! + sorted[m]!) / 2;
};

/** The run with the median throughput (the lower middle one for an even count). */
function medianRun(runs: SourceRun[]): SourceRun {
  const sorted = [...runs].sort((a, b) => a.entries / a.totalSeconds - b.entries / b.totalSeconds);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

const timeline = (r: SourceRun) =>
  `sync ${r.syncSeconds.toFixed(2)} s, ${r.handedOff} entries left to the enrichment job (${r.totalSeconds.toFixed(2)} s in all); ` +
  `CPU: Node ${r.nodeCpuSeconds.toFixed(2)} s + PostgreSQL ${r.pgCpuSeconds === null ? 'n/a' : `${r.pgCpuSeconds.toFixed(2)} s`} = ${((r.nodeCpuSeconds + (r.pgCpuSeconds ?? 0)) / r.totalSeconds).toFixed(2)} cores busy`;

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const entries = Math.round(envNumber('BENCH_INGEST_ENTRIES', ctx.quick ? 1_000 : 10_000));
  const runs = Math.max(1, Math.round(envNumber('BENCH_INGEST_RUNS', ctx.quick ? 1 : 3)));
  const database = await startBenchDatabase('ingest');
  const closers: Array<() => Promise<void>> = [];
  try {
    const { db } = database;
    const org = await createOrganization(db, { name: 'Bench Org', adminEmail: 'bench@ingest.test' });
    const orgId = org.organization.id;
    const pgPid = postmasterPid(database.clusterDir);
    const probe = instrument(database.pool, createGuardedClient({ allowPrivateNetworks: true, maxResponseBytes: 100 * 1024 * 1024, timeoutMs: 120_000 }));

    // Each kind of source is first synced once from a smaller source of its own (other entries,
    // ids and CVEs), untimed: the code is then JIT-compiled and PostgreSQL's caches are warm, as
    // in a service that has synced before. The timed runs are the steady state, not the first
    // sync after a process start. Each timed run syncs a source of its own (entries numbered
    // apart, so no run's stories link to another's); the figure is the median run, as one run on
    // a shared 2-core VM moves by ±5%.
    // 30%: with 10% the first timed run still paid for compilation (Node CPU 4.0–4.2 s against
    // 3.4–3.5 s in the runs after it).
    const warmup = Math.max(100, Math.round(entries * 0.3));
    const numbered = (run: number) => run * entries; // warm-up: run = runs

    /** One kind of source: the untimed warm-up sync, then `runs` timed syncs, each of a source of its own. */
    const timedRuns = async (kind: string, source: (label: string, count: number, first: number) => Promise<{ id: string; describe: () => string }>) => {
      const warm = await source(`Warm-up ${kind}`, warmup, numbered(runs));
      await ingest(db, pgPid, probe, orgId, warm.id, `${kind.toLowerCase()}-warmup`, warmup);
      const out: SourceRun[] = [];
      const profile = process.env.BENCH_CPU_PROF ? path.join(PROFILE_DIR, `ingest-${kind.toLowerCase()}.cpuprofile`) : null;
      if (profile) fs.mkdirSync(PROFILE_DIR, { recursive: true });
      for (let r = 0; r < runs; r++) {
        const timed = await source(`Bench ${kind} ${r + 1}`, entries, numbered(r));
        if (profile) await startProfile();
        out.push(await ingest(db, pgPid, probe, orgId, timed.id, kind.toLowerCase(), entries));
        if (profile) await stopProfile(profile); // the last run's profile is kept
        ctx.log(`${kind.toLowerCase()} run ${r + 1}/${runs}: ${timed.describe()}; ${timeline(out[r]!)}`);
      }
      if (profile) ctx.log(`profile: npx tsx bench/profile-summary.ts ${path.relative(process.cwd(), profile)} 40`);
      return out;
    };

    // RSS 2.0: the documents are generated (and encoded) before the clock starts.
    let feedBytes = 0;
    const rssRuns = await timedRuns('RSS', async (label, count, first) => {
      const feed = Buffer.from(generateRssFeed(count, 1, first), 'utf8');
      const server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/rss+xml; charset=utf-8', 'content-length': String(feed.length) });
        res.end(feed);
      });
      closers.push(onCleanup(server.close));
      feedBytes = feed.length;
      const id = await insertSource(db, orgId, { name: label, kind: 'rss', apiType: null, feedUrl: `${server.url}/feed.xml`, serverUrl: null }, count);
      return { id, describe: () => `${count} items, ${(feed.length / 2 ** 20).toFixed(1)} MiB` };
    });

    // TAXII 2.1: STIX indicators, 10 pages (discovery → API root → collections → pages).
    let taxiiRequests = 0;
    const taxiiRuns = await timedRuns('TAXII', async (label, count, first) => {
      const server = await startFakeTaxii({ pageSize: Math.max(1, Math.round(count / 10)), collections: { 'bench-indicators': { title: 'Bench indicators', objects: generateStixIndicators(count, 2, first) } } });
      closers.push(onCleanup(server.close));
      const id = await insertSource(db, orgId, { name: label, kind: 'api', apiType: 'taxii', feedUrl: null, serverUrl: `${server.url}/taxii2/` }, count);
      return { id, describe: () => `${count} objects in ${(taxiiRequests = server.requests.length)} requests` };
    });
    const rss = medianRun(rssRuns);
    const taxii = medianRun(taxiiRuns);
    const rates = (rs: SourceRun[]) => rs.map((r) => Math.round(r.entries / r.totalSeconds).toLocaleString('en')).join(', ');

    const perStatement = (r: SourceRun) => r.statements.map((st) => `${st.count}× ${st.meanMs.toFixed(2)} ms = ${(st.totalMs / 1000).toFixed(2)} s  ${st.sql}`);
    console.log(`\nsync statements (count × mean client-side ms, round trip and event-loop wait included):\n  RSS:\n    ${perStatement(rss).join('\n    ')}\n  TAXII:\n    ${perStatement(taxii).join('\n    ')}`);
    // Each CPU figure is the median of that figure over the runs, not the median-rate run's: a
    // run's PostgreSQL CPU swings 14–24 s with the machine, independently of its wall time, so one
    // build's figure could come from a heavy run and the other's from a light one (2026-11-29).
    const perSource = (label: string, rs: SourceRun[], r: SourceRun, rate: number, cpu?: number) => {
      const perEntry = (of: (x: SourceRun) => number) => median(rs.map((x) => (of(x) * 1e6) / x.entries));
      return [
        { name: `${label} end to end`, value: r.entries / r.totalSeconds, unit: 'entries/s', target: { value: rate, kind: 'min' as const } },
        { name: `  ${label} CPU per entry (Node + PostgreSQL)`, value: perEntry((x) => x.nodeCpuSeconds + (x.pgCpuSeconds ?? 0)), unit: 'µs', ...(cpu ? { target: { value: cpu, kind: 'max' as const } } : {}) },
        { name: `    ${label} Node CPU per entry`, value: perEntry((x) => x.nodeCpuSeconds), unit: 'µs' },
        ...(r.pgCpuSeconds === null ? [] : [{ name: `    ${label} PostgreSQL CPU per entry`, value: perEntry((x) => x.pgCpuSeconds ?? 0), unit: 'µs' }]),
      ];
    };
    return {
      figures: [...perSource('RSS 2.0', rssRuns, rss, TARGETS.rss.entriesPerSec, TARGETS.rss.cpuMicrosPerEntry), ...perSource('TAXII 2.1', taxiiRuns, taxii, TARGETS.taxii.entriesPerSec)],
      notes: [
        `${entries.toLocaleString('en')} entries per source and run, ${runs} run(s) each after an untimed warm-up sync of ${warmup.toLocaleString('en')} other entries of the same kind; rate and phases from the median-rate run, each CPU figure the median of the runs'; RSS feed ${(feedBytes / 2 ** 20).toFixed(1)} MiB (${Math.round(feedBytes / entries)} B/item), TAXII ${taxiiRequests} requests`,
        `every run, entries/s: RSS ${rates(rssRuns)}; TAXII ${rates(taxiiRuns)}`,
        `indicators stored: RSS ${rss.indicators.toLocaleString('en')}, TAXII ${taxii.indicators.toLocaleString('en')}`,
        ...([['RSS', rss], ['TAXII', taxii]] as const).map(([label, r]) => `${label} sync phases: http ${r.phases.httpSeconds.toFixed(2)} s, parse+map ${r.phases.parseSeconds.toFixed(2)} s, store+commit ${r.phases.storeSeconds.toFixed(2)} s; ${timeline(r)}`),
        '(http = inside http.request; parse+map = sync start → first INSERT INTO intel_items, minus http; store = first INSERT → last commit, with the enrichment of the later chunks beside the writes)',
      ],
      details: { entries, runs, rss: { median: rss, runs: rssRuns, feedBytes }, taxii: { median: taxii, runs: taxiiRuns, requests: taxiiRequests } },
    };
  } finally {
    for (const c of closers.reverse()) await c().catch(() => {});
    await database.close();
  }
}

export const ingestBench: BenchDefinition = { name: 'ingest', title: 'Ingestion: RSS and TAXII, end to end (parse, extract and enrich, dedupe, store)', run };
