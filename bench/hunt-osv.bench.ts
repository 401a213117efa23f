/**
 * Hunt on structured data at scale (issue 28 §4): an OSV export of 200,000 records (a zip laid
 * out as OSV's all.zip, written and served by a local mirror in its own process,
 * bench/servers/osv-export.ts) synced through the real sync job — the
 * guarded client saves it to a temporary file, records are streamed and stored in batches — and
 * 50,000 SBOM components (CycloneDX, imported through POST /api/assets/import) matched against
 * them by the hunt's intel pass: one threat per vulnerability, each assessed against the
 * packages its records name. Targets: sync + threats + matching < 60 s; the RSS of the process
 * that syncs < 400 MB: the sync job runs in a process of its own (bench/servers/osv-sync.ts),
 * which samples its memory; this process holds the app (SBOM import, the intel pass) and the
 * export lives in the mirror's, so neither counts.
 *
 * Records: 20,000 npm packages (`bench-pkg-N`), 10 advisories each, two SEMVER ranges, a CVE
 * alias, summary and details of a real record's length. The SBOMs: 50 assets × 1,000
 * components, each package's version inside a range for 1 in 3.
 *
 * Knobs: BENCH_OSV_RECORDS (200,000; quick 5,000), BENCH_OSV_COMPONENTS (50,000; quick 2,000),
 * BENCH_OSV_OVERLAP (1: the intel pass follows the running sync, as the scheduler's pass does; 0:
 * after it, each phase's CPU and statements apart), BENCH_CPU_PROF (any value: V8 profiles of
 * this process's main thread, bench/results/profiles/hunt-osv-both.cpuprofile overlapped, else
 * hunt-osv-{sync,hunt}, and the sync process's profiles, one per thread, under hunt-osv-sync-process/ (the largest is the main thread's); read them with
 * bench/profile-summary.ts), BENCH_PG_STATEMENTS (each
 * phase's statements per record; overlapped, both in one report), BENCH_OSV_HEAP_SNAPSHOT (MB[,MB…]:
 * heap snapshots of the sync process when its used heap first passes each).
 * Each phase also reports PostgreSQL's background work (support/pg-background.ts): the autovacuum
 * and autoanalyze runs on the tables it writes and their CPU by table (PostgreSQL's own log), and
 * with BENCH_PG_STATEMENTS the statements' execution time per record (wall time inside the
 * server: it includes waiting for a core, so it is not CPU on a loaded machine).
 */
import fs from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createAuthenticator } from '../src/platform/auth/authenticator.js';
import { createSecretBox } from '../src/platform/secrets.js';
import { createOrganization } from '../src/modules/organizations/organizations.service.js';
import { requestSync } from '../src/modules/intel/sources/sources.service.js';
import { settledInstant, syncThreatsFromIntel } from '../src/modules/hunt/index.js';
import { startBenchDatabase } from './support/db.js';
import { cpuSeconds } from './support/cpu.js';
import { postmasterPid } from './support/http-measure.js';
import { resetStatements, statementReport } from './support/pg-statements.js';
import { activityBetween, autovacuumLog, describeRuns, tableActivity } from './support/pg-background.js';
import { PACKAGES } from './support/osv-export.js';
import type { FromChild } from './servers/ipc.js';
import type { FromSyncProcess, SyncMemory, ToSyncProcess } from './servers/osv-sync.js';
import { envNumber, onCleanup, type BenchContext, type BenchDefinition, type BenchOutcome } from './support/harness.js';

const ASSETS = 50; // 1,000 components per SBOM: each import stays under the 1 MB request body limit
export { record, writeExport } from './support/osv-export.js';

const PROFILES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'profiles');
/** BENCH_CPU_PROF: the sync process's profiles, one per thread; the largest is its main thread's. */
const SYNC_PROFILES = path.join(PROFILES, 'hunt-osv-sync-process');

/** BENCH_CPU_PROF: a V8 profile of this thread over one phase (1 ms sampling), written as `hunt-osv-<phase>.cpuprofile`. */
async function profiled<T>(phase: string, fn: () => Promise<T>): Promise<T> {
  if (!process.env.BENCH_CPU_PROF) return fn();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 1000 });
  await session.post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    fs.mkdirSync(PROFILES, { recursive: true });
    fs.writeFileSync(path.join(PROFILES, `hunt-osv-${phase}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

const SERVERS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'servers');

/**
 * The export's mirror in its own process (bench/servers/osv-export.ts): it generates and writes
 * the export, then serves the file. Its memory is not the service's, so it is not in this
 * process's figures. Run through tsx like this process; registered with the bench's cleanup.
 */
async function startExportServer(file: string, records: number): Promise<{ port: number; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(SERVERS, 'osv-export.ts')], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.homedir(), TMPDIR: os.tmpdir(), BENCH_OSV_FILE: file, BENCH_OSV_RECORDS: String(records) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = onCleanup(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.on('message', (m: FromChild) => {
      if (m.type === 'listening') resolve(m.port);
      else if (m.type === 'fatal') reject(new Error(`the OSV mirror failed: ${m.message}`));
    });
    void exited.then(() => reject(new Error(`the OSV mirror exited (code ${child.exitCode})`)));
  }).catch(async (err) => {
    await stop();
    throw err;
  });
  return { port, stop };
}

/**
 * The process that runs the sync (bench/servers/osv-sync.ts: the service's sync job on the bench's
 * database, nothing else): its memory during each sync is the figure, so neither the harness (the
 * HTTP app that imports the SBOMs, the intel pass) nor the export counts. BENCH_CPU_PROF: it writes
 * its own V8 profiles (one per thread, under hunt-osv-sync-process/) when it stops.
 */
async function startSyncProcess(connectionString: string) {
  // One file per thread under its own folder (Node's default names): with `--cpu-prof-name` every
  // thread wrote the same file, and tsx's loader-hooks thread, ending last, overwrote the main
  // thread's profile (the sync's work) with its own (module loading).
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-interval', '1000', '--cpu-prof-dir', SYNC_PROFILES] : [];
  if (prof.length) fs.rmSync(SYNC_PROFILES, { recursive: true, force: true });
  const child: ChildProcess = spawn(process.execPath, [...prof, '--import', 'tsx', path.join(SERVERS, 'osv-sync.ts')], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.homedir(), TMPDIR: os.tmpdir(), DATABASE_URL: connectionString, ...(process.env.BENCH_OSV_HEAP_SNAPSHOT ? { BENCH_OSV_HEAP_SNAPSHOT: process.env.BENCH_OSV_HEAP_SNAPSHOT } : {}) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = onCleanup(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM'); // closes its pool and exits (a CPU profile is written then)
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const next = () =>
    new Promise<FromSyncProcess>((resolve, reject) => {
      child.once('message', resolve);
      void exited.then(() => reject(new Error(`the sync process exited (code ${child.exitCode})`)));
    });
  const ready = await next().catch(async (err) => {
    await stop();
    throw err;
  });
  if (ready.type !== 'ready') throw new Error(`the sync process said ${ready.type} before it was ready`);
  return {
    stop,
    /** Runs the sync job; its CPU and the sync process's memory during it. */
    async run(syncJobId: string): Promise<{ cpuSeconds: number; memory: SyncMemory }> {
      const answer = next();
      child.send({ type: 'sync', syncJobId } satisfies ToSyncProcess);
      const m = await answer;
      if (m.type === 'failed') throw new Error(`the sync process failed: ${m.message}`);
      if (m.type !== 'synced') throw new Error(`the sync process said ${m.type}`);
      return m;
    },
  };
}

function sbom(asset: number, components: number) {
  return {
    bomFormat: 'CycloneDX', specVersion: '1.5', version: 1,
    metadata: { component: { type: 'application', name: `service-${asset}`, version: '1.0.0' } },
    components: Array.from({ length: components }, (_, k) => {
      const n = (asset * components + k) % PACKAGES;
      // 1 in 3 inside the first range of the package's records; the others on a later line.
      const version = k % 3 === 0 ? `${1 + (n % 7)}.2.0` : `${9 + (k % 5)}.0.${k % 9}`;
      const name = `bench-pkg-${n}`;
      return { type: 'library', name, version, purl: `pkg:npm/${name}@${version}`, 'bom-ref': `${name}@${version}#${k}` };
    }),
  };
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const records = Math.round(envNumber('BENCH_OSV_RECORDS', ctx.quick ? 5_000 : 200_000));
  const components = Math.round(envNumber('BENCH_OSV_COMPONENTS', ctx.quick ? 2_000 : 50_000));
  const overlap = process.env.BENCH_OSV_OVERLAP !== '0';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-bench-osv-'));
  const removeDir = onCleanup(async () => fs.rmSync(dir, { recursive: true, force: true }));
  const autovacuumRuns = autovacuumLog();
  const database = await startBenchDatabase('hunt-osv', { postgresFlags: autovacuumRuns.flags, onServerLog: autovacuumRuns.onServerLog });
  let app: FastifyInstance | null = null;
  let stopMirror: (() => Promise<void>) | null = null;
  let stopSyncer: (() => Promise<void>) | null = null;
  try {
    const file = path.join(dir, 'all.zip');
    const tg = performance.now();
    const mirror = await startExportServer(file, records);
    stopMirror = mirror.stop;
    ctx.log(`wrote ${records.toLocaleString('en')} OSV records (${(fs.statSync(file).size / 1e6).toFixed(0)} MB zip, in the mirror's process) in ${((performance.now() - tg) / 1000).toFixed(1)} s`);
    const url = `http://127.0.0.1:${mirror.port}/npm/all.zip`;

    const org = await createOrganization(database.db, { name: 'Bench Org', adminEmail: 'bench@osv.test' });
    const organizationId = org.organization.id;
    const secrets = createSecretBox(randomBytes(32));
    const config = loadConfig({ RAMPART_DATA_DIR: database.dataDir, LOG_LEVEL: 'silent', DATABASE_URL: database.connectionString, RAMPART_RATE_LIMIT_PER_MINUTE: '0', RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' });
    app = await buildApp({ config, database, logger: pino({ level: 'silent' }), authenticator: createAuthenticator(database.db), secrets });
    const headers = { authorization: `Bearer ${org.apiKey.key}` };

    const ti = performance.now();
    const per = Math.ceil(components / ASSETS);
    for (let a = 0; a < ASSETS; a++) {
      const res = await app.inject({ method: 'POST', url: '/api/assets/import', headers, payload: { format: 'cyclonedx', content: sbom(a, Math.min(per, components - a * per)) } });
      if (res.statusCode !== 200) throw new Error(`import: ${res.statusCode} ${res.body.slice(0, 300)}`);
    }
    const importS = (performance.now() - ti) / 1000;
    ctx.log(`imported ${components.toLocaleString('en')} SBOM components on ${ASSETS} assets in ${importS.toFixed(1)} s`);
    const created = await app.inject({ method: 'POST', url: '/sources', headers, payload: { kind: 'api', apiType: 'osv', name: 'OSV npm (bench)', serverUrl: url } });
    if (created.statusCode !== 200) throw new Error(`source: ${created.statusCode} ${created.body}`);
    await sql`ANALYZE`.execute(database.db);

    const syncer = await startSyncProcess(database.connectionString);
    stopSyncer = syncer.stop;
    const syncJobId = await database.db.transaction().execute((tx) => requestSync(tx, organizationId, created.json().id, 'manual'));
    const pgPid = postmasterPid(database.clusterDir);
    let mem: SyncMemory | null = null;
    // The tables the first pass writes, for their autovacuum and autoanalyze runs per phase.
    const activity = () => tableActivity(database.db, ['intel_items', 'intel_vulnerabilities', 'intel_item_indicators', 'intel_indicators'], ['hunt_']);
    const act0 = await activity();
    autovacuumRuns.take(); // what ran before (the migrations', the SBOM import's) is not the first pass's
    await resetStatements(database.db);
    const cpu0 = { node: process.cpuUsage(), pg: cpuSeconds(pgPid, true) };
    const t0 = performance.now();
    // The hunt's intel pass as the scheduler runs it (runHuntIntelPass's loop): page after page of
    // settled items. Overlapped (default), it follows the running sync, so Node and PostgreSQL
    // work on both phases at once; BENCH_OSV_OVERLAP=0 runs it after the sync (the old shape,
    // with each phase's CPU apart). Once the sync has returned every write has committed, and the
    // last pages read up to now.
    let threats = 0;
    // Set when the sync returns: its end, and the CPU used until then.
    // `node` is this process's (the pass's pages meanwhile), `syncNode` the sync process's.
    const atSyncEnd = { t: 0, node: { user: 0, system: 0 } as NodeJS.CpuUsage, syncNode: 0, pg: null as number | null, done: false };
    const pass = async () => {
      for (;;) {
        const done = atSyncEnd.done;
        const r = await syncThreatsFromIntel(database.db, organizationId, { settledBefore: done ? new Date() : await settledInstant(database.db) });
        threats += r.created.length;
        if (!r.created.length && !r.updated.length) {
          if (done) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    };
    const syncing = (async () => {
      let syncNode = 0;
      try {
        const r = await syncer.run(syncJobId);
        [syncNode, mem] = [r.cpuSeconds, r.memory];
      } finally {
        Object.assign(atSyncEnd, { t: performance.now(), node: process.cpuUsage(cpu0.node), syncNode, pg: cpuSeconds(pgPid, true), done: true });
      }
    })();
    await profiled(overlap ? 'both' : 'sync', () => Promise.all([syncing, overlap ? pass() : null]));
    const t1 = atSyncEnd.t;
    const [actSync, avSync] = [await activity(), describeRuns(autovacuumRuns.take())];
    const syncStatements = overlap ? null : await statementReport(database.db, records, 'record', 15);
    if (syncStatements) console.log(`\n[sync]${syncStatements.text}`);
    if (!overlap) await resetStatements(database.db);
    const cpu1b = overlap ? cpu0 : { node: process.cpuUsage(), pg: cpuSeconds(pgPid, true) };
    const job = await database.db.selectFrom('intelSyncJobs').selectAll().where('id', '=', syncJobId).executeTakeFirstOrThrow();
    if (job.status !== 'succeeded') throw new Error(`sync ${job.status}: ${job.error}`);
    if (!mem) throw new Error('the sync process reported no memory');
    const m: SyncMemory = mem;
    ctx.log(`synced in ${((t1 - t0) / 1000).toFixed(1)} s: ${JSON.stringify(job.stats)}; the sync process's heap ${(m.heapStart / 1e6).toFixed(0)} → max ${(m.heapMax / 1e6).toFixed(0)} MB, RSS ${(m.rssStart / 1e6).toFixed(0)} → max ${(m.rssMax / 1e6).toFixed(0)} MB`);

    if (!overlap) await profiled('hunt', pass);
    const t2 = performance.now();
    const cpu2 = { node: process.cpuUsage(cpu1b.node), pg: cpuSeconds(pgPid, true) };
    const [actHunt, avHunt] = [await activity(), describeRuns(autovacuumRuns.take())];
    const huntStatements = await statementReport(database.db, records, 'record', 15);
    if (huntStatements) console.log(`\n[${overlap ? "sync, threats and matching" : "threats and matching"}]${huntStatements.text}`);
    const nodeS = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1e6;
    const pgS = (a: number | null, b: number | null) => (a !== null && b !== null ? b - a : 0);
    // Overlapped, the phases share the CPU: the sync's share is what ran until it returned (the
    // pass's pages meanwhile included), the rest is the pass's tail.
    const cpuSync = { node: nodeS(atSyncEnd.node) + atSyncEnd.syncNode, pg: pgS(cpu0.pg, atSyncEnd.pg) };
    const cpuHunt = overlap ? { node: nodeS(cpu2.node) - nodeS(atSyncEnd.node), pg: pgS(cpu0.pg, cpu2.pg) - cpuSync.pg } : { node: nodeS(cpu2.node), pg: pgS(cpu1b.pg, cpu2.pg) };
    const { rows: verdicts } = await sql<{ verdict: string; n: number }>`
      SELECT m->>'verdict' AS verdict, count(*)::int AS n FROM hunt_threats t JOIN hunt_threat_runs r ON r.id = t.latest_run_id
      CROSS JOIN LATERAL jsonb_array_elements(r.matches) m WHERE t.organization_id = ${organizationId} GROUP BY 1 ORDER BY 1`.execute(database.db);
    const totalS = (t2 - t0) / 1000;
    const cpuS = cpuSync.node + cpuSync.pg + cpuHunt.node + cpuHunt.pg;
    // A re-sync of the same, unchanged export (issue 50 item 2): this server answers 200 whatever
    // If-None-Match says (a mirror without ETags), so every record is read again and the sync
    // alone decides that nothing changed. Then the intel pass, which finds nothing to do.
    const resyncId = await database.db.transaction().execute((tx) => requestSync(tx, organizationId, created.json().id, 'manual'));
    const cpu3 = { node: process.cpuUsage(), pg: cpuSeconds(pgPid, true) };
    const t3 = performance.now();
    const resynced = await syncer.run(resyncId);
    await pass();
    const resync = { s: (performance.now() - t3) / 1000, node: nodeS(process.cpuUsage(cpu3.node)) + resynced.cpuSeconds, pg: pgS(cpu3.pg, cpuSeconds(pgPid, true)), rssMaxMb: resynced.memory.rssMax / 1e6 };
    const resyncJob = await database.db.selectFrom('intelSyncJobs').selectAll().where('id', '=', resyncId).executeTakeFirstOrThrow();
    if (resyncJob.status !== 'succeeded') throw new Error(`re-sync ${resyncJob.status}: ${resyncJob.error}`);
    ctx.log(`re-synced the unchanged export in ${resync.s.toFixed(1)} s: ${JSON.stringify(resyncJob.stats)}; CPU Node ${resync.node.toFixed(1)} + PostgreSQL ${resync.pg.toFixed(1)} s`);
    // Background work per phase: overlapped, the sync's share is what ran until it returned.
    // A run is logged when it ends: one still running at a phase's end counts in the next.
    const background = { sync: { runs: activityBetween(act0, actSync), logged: avSync }, hunt: { runs: activityBetween(actSync, actHunt), logged: avHunt } };
    const statementSeconds = { sync: syncStatements ? syncStatements.rows.reduce((t, r) => t + r.totalMs, 0) / 1000 : null, hunt: huntStatements ? huntStatements.rows.reduce((t, r) => t + r.totalMs, 0) / 1000 : null };
    const pgSplit = (phase: 'sync' | 'hunt', pg: number) => {
      const st = overlap ? null : statementSeconds[phase]; // overlapped, one report covers both phases
      const b = background[phase];
      return `PostgreSQL CPU ${pg.toFixed(1)} s, of which autovacuum and autoanalyze ${b.logged.cpu.toFixed(2)} s (${b.logged.text}; runs counted: ${b.runs.text})${st === null ? '' : `; statements' execution time ${st.toFixed(1)} s`}`;
    };
    ctx.log(`${overlap ? 'until the sync returned' : 'sync'}: ${pgSplit('sync', cpuSync.pg)}`);
    ctx.log(`${overlap ? 'after the sync' : 'threats and matching'}: ${pgSplit('hunt', cpuHunt.pg)}`);
    ctx.log(`threats ${threats} in ${((t2 - t1) / 1000).toFixed(1)} s; matches ${verdicts.map((v) => `${v.verdict}=${v.n}`).join(', ')}; CPU ${cpuS.toFixed(1)} s (sync: Node ${cpuSync.node.toFixed(1)} + PostgreSQL ${cpuSync.pg.toFixed(1)}; threats and matching: Node ${cpuHunt.node.toFixed(1)} + PostgreSQL ${cpuHunt.pg.toFixed(1)})`);
    return {
      figures: [
        { name: `OSV sync + threats + matching (${records.toLocaleString('en')} records × ${components.toLocaleString('en')} components)`, value: totalS, unit: 's', digits: 1, target: { value: 60, kind: 'max' } },
        { name: '  of which the streamed sync', value: (t1 - t0) / 1000, unit: 's', digits: 1 },
        { name: overlap ? '  of which threats and matching after the sync (overlapped)' : '  of which threats and matching', value: (t2 - t1) / 1000, unit: 's', digits: 1 },
        { name: '  CPU (Node + PostgreSQL)', value: cpuS, unit: 's', digits: 1 },
        { name: '  CPU per 1,000 records, all (Node + PostgreSQL)', value: (cpuS * 1000) / records, unit: 's', digits: 2 },
        { name: '  Node CPU per 1,000 records, all', value: ((cpuSync.node + cpuHunt.node) * 1000) / records, unit: 's', digits: 2 },
        { name: overlap ? '  CPU per 1,000 records until the sync returned (overlapped)' : '  CPU per 1,000 records, sync (Node + PostgreSQL)', value: ((cpuSync.node + cpuSync.pg) * 1000) / records, unit: 's', digits: 2 },
        { name: overlap ? '  CPU per 1,000 records after the sync (overlapped)' : '  CPU per 1,000 records, threats and matching', value: ((cpuHunt.node + cpuHunt.pg) * 1000) / records, unit: 's', digits: 2 },
        { name: '  Node heap growth during the sync (max − start), the sync process', value: (m.heapMax - m.heapStart) / 1e6, unit: 'MB', digits: 0 },
        { name: '  RSS max of the sync process (the service\'s sync alone)', value: m.rssMax / 1e6, unit: 'MB', digits: 0, target: { value: 400, kind: 'max' } },
        { name: '  PostgreSQL CPU per 1,000 records, sync', value: (cpuSync.pg * 1000) / records, unit: 's', digits: 3 },
        { name: '  PostgreSQL CPU per 1,000 records, threats and matching', value: (cpuHunt.pg * 1000) / records, unit: 's', digits: 3 },
        { name: '    of which autovacuum and autoanalyze, sync', value: (background.sync.logged.cpu * 1000) / records, unit: 's', digits: 3 },
        { name: '    of which autovacuum and autoanalyze, threats and matching', value: (background.hunt.logged.cpu * 1000) / records, unit: 's', digits: 3 },
        { name: '  autovacuum + autoanalyze runs, sync', value: background.sync.runs.vacuums + background.sync.runs.analyzes, unit: 'runs', digits: 0 },
        { name: '  autovacuum + autoanalyze runs, threats and matching', value: background.hunt.runs.vacuums + background.hunt.runs.analyzes, unit: 'runs', digits: 0 },
        ...(statementSeconds.sync === null ? [] : [{ name: '  statement time per record, sync (pg_stat_statements)', value: (statementSeconds.sync * 1e6) / records, unit: 'µs', digits: 1 }]),
        ...(statementSeconds.hunt === null ? [] : [{ name: overlap ? '  statement time per record, sync, threats and matching (pg_stat_statements)' : '  statement time per record, threats and matching (pg_stat_statements)', value: (statementSeconds.hunt * 1e6) / records, unit: 'µs', digits: 1 }]),
        { name: 'Re-sync of the unchanged export (200, no 304) + intel pass', value: resync.s, unit: 's', digits: 1 },
        { name: '  CPU per 1,000 records, re-sync (Node + PostgreSQL)', value: ((resync.node + resync.pg) * 1000) / records, unit: 's', digits: 3 },
      ],
      notes: [`matches: ${verdicts.map((v) => `${v.verdict} ${v.n}`).join(', ')}`, `the sync process during the sync: RSS ${(m.rssStart / 1e6).toFixed(0)} → max ${(m.rssMax / 1e6).toFixed(0)} MB, heap used ${(m.heapStart / 1e6).toFixed(0)} → max ${(m.heapMax / 1e6).toFixed(0)} MB (committed max ${(m.heapTotalMax / 1e6).toFixed(0)} MB), external + array buffers max ${(m.externalMax / 1e6).toFixed(0)} MB${m.snapshots.length ? `; heap snapshots ${m.snapshots.join(', ')}` : ''}; during the re-sync RSS max ${resync.rssMaxMb.toFixed(0)} MB; SBOM import (not timed) ${importS.toFixed(1)} s`],
      details: { background, statementSeconds, records, components, threats, syncSeconds: (t1 - t0) / 1000, huntSeconds: (t2 - t1) / 1000, totalSeconds: totalS, cpuSeconds: cpuS, cpuSync, cpuHunt, syncProcessMemory: m, stats: job.stats, verdicts, resync, resyncStats: resyncJob.stats },
    };
  } finally {
    await app?.close().catch(() => {});
    await stopSyncer?.();
    await stopMirror?.();
    await database.close();
    await removeDir();
  }
}

export const huntOsvBench: BenchDefinition = { name: 'hunt-osv', title: 'Hunt: streamed OSV sync and structured matching at scale', run };
