/**
 * Ingestion scale-out (issue 50 item 5): one OSV export of N records (hunt-osv's records, a zip
 * laid out as OSV's all.zip) served by a local HTTP server that answers Range requests as OSV's
 * bucket does, synced by 1, 2 and 3 worker processes of the production layout
 * (bench/servers/ingest-worker.ts: the service's job catalog, each its own process, one
 * PostgreSQL). The sync job plans shards of N / SHARDS records and every worker takes shards.
 * Per worker count: wall time from the sync's request to its outcome, records/s, CPU per record
 * (the worker processes' Node, PostgreSQL's backends), and the load average, since on a shared
 * machine the wall figure is noise and CPU per record is what compares.
 *
 * Each worker count syncs on a fresh database (every record created into empty tables: the same work each time).
 * Knobs: BENCH_INGEST_SCALE_RECORDS (30,000; quick 5,000), BENCH_INGEST_SCALE_WORKERS ("1,2,3"),
 * BENCH_INGEST_SCALE_SHARDS (12: enough for 3 workers × 4 slots), RAMPART_WORKER_CONCURRENCY (4).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createAuthenticator } from '../src/platform/auth/authenticator.js';
import { createSecretBox } from '../src/platform/secrets.js';
import { createOrganization } from '../src/modules/organizations/organizations.service.js';
import { requestSync } from '../src/modules/intel/sources/sources.service.js';
import { writeExport } from './hunt-osv.bench.js';
import { startBenchDatabase } from './support/db.js';
import { cpuSeconds } from './support/cpu.js';
import { postmasterPid } from './support/http-measure.js';
import { envNumber, onCleanup, type BenchContext, type BenchDefinition, type BenchOutcome } from './support/harness.js';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));

/** The export, with Range support (bytes=a-b, bytes=-n) and an ETag, as GCS serves OSV's. */
function serveExport(file: string): http.Server {
  const size = fs.statSync(file).size;
  return http.createServer((req, res) => {
    const m = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
    const headers = { 'content-type': 'application/zip', etag: '"bench"', 'accept-ranges': 'bytes' };
    if (!m) {
      res.writeHead(200, { ...headers, 'content-length': size });
      return fs.createReadStream(file).pipe(res);
    }
    const [from, to] = m[1] === '' ? [Math.max(0, size - Number(m[2])), size - 1] : [Number(m[1]), m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1)];
    res.writeHead(206, { ...headers, 'content-length': to - from + 1, 'content-range': `bytes ${from}-${to}/${size}` });
    fs.createReadStream(file, { start: from, end: to }).pipe(res);
  });
}

interface Worker {
  child: ChildProcess;
  stop(): Promise<void>;
}

async function startWorker(env: Record<string, string>): Promise<Worker> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(BENCH_DIR, 'servers', 'ingest-worker.ts')], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TMPDIR: os.tmpdir(), ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('ready\n')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`a worker exited (${code}) before it was ready`)));
  });
  return {
    child,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

interface ScaleRow { workers: number; wallS: number; perSecond: number; nodeUsPerRecord: number; pgUsPerRecord: number; load: number[]; stats: unknown }

/**
 * One sync of the export by `k` worker processes, on a database of its own: each worker count
 * starts from empty tables, since a second sync into tables that already hold the first one's
 * rows pays for larger indexes (measured 2026-11-30: PostgreSQL's CPU per record 319 µs on a
 * fresh database against 544 µs after a 1-worker run, both with 2 workers).
 */
async function syncWith(ctx: BenchContext, k: number, url: string, records: number, env: Record<string, string>): Promise<ScaleRow> {
  const database = await startBenchDatabase(`ingest-scale-${k}`);
  let app: FastifyInstance | null = null;
  let workers: Worker[] = [];
  try {
    const org = await createOrganization(database.db, { name: 'Bench Org', adminEmail: 'bench@scale.test' });
    const organizationId = org.organization.id;
    const config = loadConfig({ RAMPART_DATA_DIR: database.dataDir, LOG_LEVEL: 'silent', DATABASE_URL: database.connectionString, RAMPART_RATE_LIMIT_PER_MINUTE: '0', RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' });
    app = await buildApp({ config, database, logger: pino({ level: 'silent' }), authenticator: createAuthenticator(database.db), secrets: createSecretBox(randomBytes(32)) });
    const pgPid = postmasterPid(database.clusterDir);
    workers = await Promise.all(Array.from({ length: k }, () => startWorker({ ...env, DATABASE_URL: database.connectionString })));
    const created = await app.inject({ method: 'POST', url: '/sources', headers: { authorization: `Bearer ${org.apiKey.key}` }, payload: { kind: 'api', apiType: 'osv', name: `OSV (bench, ${k} workers)`, serverUrl: url } });
    if (created.statusCode !== 200) throw new Error(`source: ${created.statusCode} ${created.body}`);
    const sourceId = created.json().id as string;
    const load0 = os.loadavg();
    const cpu0 = { node: workers.map((w) => cpuSeconds(w.child.pid) ?? 0), pg: cpuSeconds(pgPid, true) ?? 0 };
    const t0 = performance.now();
    const syncJobId = await database.db.transaction().execute((tx) => requestSync(tx, organizationId, sourceId, 'manual'));
    let job;
    for (;;) {
      job = await database.db.selectFrom('intelSyncJobs').selectAll().where('id', '=', syncJobId).executeTakeFirstOrThrow();
      if (job.status === 'succeeded' || job.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const wallS = (performance.now() - t0) / 1000;
    const nodeS = workers.reduce((n, w, i) => n + ((cpuSeconds(w.child.pid) ?? 0) - cpu0.node[i]!), 0);
    const pgS = (cpuSeconds(pgPid, true) ?? 0) - cpu0.pg;
    const load = os.loadavg().map((l, i) => Math.max(l, load0[i]!));
    if (job.status !== 'succeeded') throw new Error(`sync with ${k} workers ${job.status}: ${job.error}`);
    const row = { workers: k, wallS, perSecond: records / wallS, nodeUsPerRecord: (nodeS * 1e6) / records, pgUsPerRecord: (pgS * 1e6) / records, load: load0, stats: job.stats };
    ctx.log(`${k} worker(s): ${wallS.toFixed(1)} s, ${row.perSecond.toFixed(0)} records/s; CPU per record Node ${row.nodeUsPerRecord.toFixed(0)} µs + PostgreSQL ${row.pgUsPerRecord.toFixed(0)} µs; load ${load0.map((l) => l.toFixed(1)).join(' ')} → ${load.map((l) => l.toFixed(1)).join(' ')}; ${JSON.stringify(job.stats)}`);
    return row;
  } finally {
    await Promise.all(workers.map((w) => w.stop().catch(() => {})));
    await app?.close().catch(() => {});
    await database.close();
  }
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const records = Math.round(envNumber('BENCH_INGEST_SCALE_RECORDS', ctx.quick ? 5_000 : 30_000));
  const counts = (process.env.BENCH_INGEST_SCALE_WORKERS ?? '1,2,3').split(',').map(Number);
  const shards = Math.round(envNumber('BENCH_INGEST_SCALE_SHARDS', 12));
  const concurrency = String(Math.round(envNumber('RAMPART_WORKER_CONCURRENCY', 4)));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-bench-scale-'));
  const removeDir = onCleanup(async () => fs.rmSync(dir, { recursive: true, force: true }));
  let server: http.Server | null = null;
  try {
    const file = path.join(dir, 'all.zip');
    await writeExport(file, records);
    ctx.log(`wrote ${records.toLocaleString('en')} OSV records (${(fs.statSync(file).size / 1e6).toFixed(0)} MB zip)`);
    server = serveExport(file);
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/npm/all.zip`;
    const env = { RAMPART_OSV_SHARD_RECORDS: String(Math.ceil(records / shards)), RAMPART_WORKER_CONCURRENCY: concurrency, LOG_LEVEL: 'warn' };
    const rows: ScaleRow[] = [];
    for (const k of counts) rows.push(await syncWith(ctx, k, url, records, env));
    const base = rows[0]!;
    return {
      figures: rows.flatMap((r) => [
        { name: `OSV sync, ${records.toLocaleString('en')} records, ${r.workers} worker process${r.workers > 1 ? 'es' : ''}`, value: r.perSecond, unit: 'records/s', digits: 0 },
        { name: `  speed-up over ${base.workers} worker${base.workers > 1 ? 's' : ''}`, value: r.perSecond / base.perSecond, unit: '×', digits: 2 },
        { name: '  CPU per record (workers\' Node + PostgreSQL)', value: r.nodeUsPerRecord + r.pgUsPerRecord, unit: 'µs', digits: 0 },
      ]),
      notes: [`${os.cpus().length} cores; shards of ${Math.ceil(records / shards)} records; ${concurrency} jobs per worker; each worker count on a fresh database; load average at each start: ${rows.map((r) => `${r.workers}w ${r.load.map((l) => l.toFixed(1)).join('/')}`).join(', ')}`],
      details: { records, shards, concurrency: Number(concurrency), cores: os.cpus().length, rows },
    };
  } finally {
    await new Promise((r) => (server ? server.close(r) : r(null)));
    await removeDir();
  }
}

export const ingestScaleBench: BenchDefinition = { name: 'ingest-scale', title: 'Ingestion scale-out: a sharded OSV sync on 1, 2 and 3 worker processes', run };
