/**
 * HTTP: authenticated GET /api/output-destinations on the real app (server A, wired as `rampart
 * serve`) against a bare Fastify route running the same SQL (server B), each in a child process,
 * driven over 127.0.0.1 by a closed-loop load generator in this process (DESIGN.md §7: ≥ 8k
 * req/s, p99 < 20 ms, A ≥ 80 % of B). Server C answers B's rows from memory: the machine's HTTP
 * ceiling without a database round trip, so a miss can be told apart from our overhead.
 *
 * Knobs: BENCH_WARMUP_S (3; quick 1), BENCH_DURATION_S (10; quick 3) per server,
 * BENCH_CONNECTIONS (50), BENCH_ROUNDS (2: the measured time is split into slices alternating
 * A, B, C, so all see the same neighbours on a shared machine), BENCH_LOG_LEVEL (server A's
 * LOG_LEVEL, info), BENCH_CPU_PROF (a | b | c | both = a and b | all: V8 CPU profiles of the
 * servers' main threads to bench/results/profiles/; sampling costs throughput, so compare
 * profiled runs only with each other; summarise with bench/profile-summary.ts).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { createOrganization } from '../src/modules/organizations/organizations.service.js';
import { POOL_SIZE, startBenchDatabase } from './support/db.js';
import { DESTINATIONS, getJson, seedDestinations } from './support/destinations.js';
import { envNumber, type BenchContext, type BenchDefinition, type BenchOutcome } from './support/harness.js';
import { memoryOf, profileStart, profileStop, startChildServer, waitReady, type ChildServer } from './support/http-children.js';
import { combine, drive, postmasterPid, type Slice } from './support/http-measure.js';
import { table } from './support/report.js';

const ROUTE = '/api/output-destinations';
const PROFILE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'profiles');
export const TARGETS = { rps: 8000, p99Ms: 20, ratio: 0.8, idleRssMb: 150, readyMs: 1000 } as const;

/** Lines and bytes of server A's request log (its stdout), to show what logging cost. */
function countLines(file: string): { lines: number; bytes: number } {
  try {
    const buf = fs.readFileSync(file);
    let lines = 0;
    for (const b of buf) if (b === 10) lines++;
    return { lines, bytes: buf.length };
  } catch {
    return { lines: 0, bytes: 0 };
  }
}

const f = (v: number | null | undefined, digits = 1) => (v === null || v === undefined || Number.isNaN(v) ? 'n/a' : v.toFixed(digits));
const mb = (bytes: number) => bytes / 2 ** 20;

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const warmupMs = envNumber('BENCH_WARMUP_S', ctx.quick ? 1 : 3) * 1000;
  const durationMs = envNumber('BENCH_DURATION_S', ctx.quick ? 3 : 10) * 1000;
  const connections = Math.round(envNumber('BENCH_CONNECTIONS', 50));
  const rounds = Math.max(1, Math.round(envNumber('BENCH_ROUNDS', 2)));
  const logLevel = process.env.BENCH_LOG_LEVEL || 'info';
  const cpuProf = (process.env.BENCH_CPU_PROF ?? '').toLowerCase();
  const prof = { a: ['a', 'both', 'all'].includes(cpuProf), b: ['b', 'both', 'all'].includes(cpuProf), c: ['c', 'all'].includes(cpuProf) };
  const log = ctx.log;

  const database = await startBenchDatabase('http');
  const servers: ChildServer[] = [];
  try {
    const org = await createOrganization(database.db, { name: 'Bench Org', adminEmail: 'bench@http.test' });
    // The parent's pool stays idle during the load; only the children's pools work.
    const dbEnv = { DATABASE_URL: database.connectionString };

    // Server A: the real app. Its logger writes to stdout, pointed at a file as in production.
    const logFile = path.join(database.dataDir, 'server-a.log');
    const a = await startChildServer(
      'server-a',
      'rampart.ts',
      { ...dbEnv, RAMPART_SECRET_KEY: randomBytes(32).toString('base64url'), RAMPART_DATA_DIR: path.join(database.dataDir, 'rampart-a'), RAMPART_RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: logLevel },
      logFile,
    );
    servers.push(a);
    const readyMs = await waitReady(a);
    log(`server A ready: /readyz 200 ${f(readyMs, 0)} ms after spawn (in-process build + listen ${f(a.startupMs, 0)} ms)`);
    const auth = { authorization: `Bearer ${org.apiKey.key}` };
    const seeded = await seedDestinations(a.origin, ROUTE, org.apiKey.key);
    const checkA = await getJson(`${a.origin}${ROUTE}`, auth);
    const listA = checkA.body as Array<{ token?: string }>;
    if (checkA.status !== 200 || !Array.isArray(listA) || listA.length !== DESTINATIONS) throw new Error(`server A: expected ${DESTINATIONS} destinations, got ${checkA.status} ${JSON.stringify(checkA.body).slice(0, 300)}`);
    const revealed = listA.filter((d) => d.token).length;
    const unauth = await request(`${a.origin}${ROUTE}`);
    await unauth.body.dump();
    if (unauth.statusCode !== 401) throw new Error(`server A answered ${unauth.statusCode} without an API key (expected 401)`);
    const idleMemA = await memoryOf(a);

    // Servers B (same SQL, bare) and C (same rows from memory).
    const bareEnv = { ...dbEnv, BENCH_ORG_ID: org.organization.id, BENCH_POOL_SIZE: String(POOL_SIZE) };
    const b = await startChildServer('server-b', 'bare.ts', bareEnv, null);
    servers.push(b);
    const c = await startChildServer('server-c', 'bare.ts', { ...bareEnv, BENCH_STATIC: '1' }, null);
    servers.push(c);
    for (const s of [b, c]) {
      await waitReady(s);
      const check = await getJson(`${s.origin}${ROUTE}`);
      if (check.status !== 200 || !Array.isArray(check.body) || check.body.length !== DESTINATIONS) throw new Error(`${s.name}: expected ${DESTINATIONS} rows, got ${check.status}`);
    }
    log(`seeded ${seeded.count} destinations (${seeded.withToken} with a token, ${revealed} revealed to the Super Admin key); A: LOG_LEVEL=${logLevel} to a file, rate limit off, pool ${POOL_SIZE}`);

    // Load, one server at a time, the others idle; each later slice re-warms for 0.5 s (its
    // load generator opens new connections).
    const logBefore = countLines(logFile);
    const pgPid = postmasterPid(database.clusterDir);
    const parts: Record<'a' | 'b' | 'c', Slice[]> = { a: [], b: [], c: [] };
    const sliceMs = durationMs / rounds;
    let loadMemA = idleMemA;
    log(`load: ${connections} keep-alive connections, ${warmupMs / 1000} s warm-up + ${durationMs / 1000} s measured per server in ${rounds} alternating slice(s)`);
    for (let i = 0; i < rounds; i++) {
      const w = i === 0 ? warmupMs : Math.min(500, warmupMs);
      for (const [key, server, headers] of [['a', a, auth], ['b', b, {}], ['c', c, {}]] as const) {
        if (prof[key] && i === 0) await profileStart(server);
        parts[key].push(await drive(server, { path: ROUTE, headers, connections, warmupMs: w, durationMs: sliceMs, pgPid }));
        if (prof[key] && i === rounds - 1) await profileStop(server, path.join(PROFILE_DIR, `${server.name}.cpuprofile`));
        if (key === 'a' && i === rounds - 1) loadMemA = await memoryOf(a);
      }
      log(`  slice ${i + 1}/${rounds}: A ${f(parts.a[i]!.load.rps, 0)}, B ${f(parts.b[i]!.load.rps, 0)}, C ${f(parts.c[i]!.load.rps, 0)} req/s`);
    }
    const logAfter = countLines(logFile);
    const [ra, rb, rc] = [combine(parts.a), combine(parts.b), combine(parts.c)];
    if (cpuProf) log(`profiles in ${path.relative(process.cwd(), PROFILE_DIR)}; e.g. npx tsx bench/profile-summary.ts ${path.relative(process.cwd(), PROFILE_DIR)}/server-a.cpuprofile 30 ${ra.totalResponses}`);

    const failures = ([['A', ra], ['B', rb], ['C', rc]] as const).flatMap(([n, r]) => (r.non2xx || r.errors ? [`${n}: ${r.non2xx} non-2xx, ${r.errors} errors ${JSON.stringify(r.statusCounts)} ${r.errorSamples.join(' | ')}`] : []));
    if (failures.length) throw new Error(`responses other than 200 during the bench: ${failures.join('; ')}`);

    const rows = ([['A Rampart', ra], ['B bare, same SQL', rb], ['C bare, no DB', rc]] as const).map(([label, r]) => [
      label,
      f(r.rps, 0),
      f(r.latencyMs.p50, 2),
      f(r.latencyMs.p99, 2),
      f(r.latencyMs.max, 1),
      String(r.bytesPerResponse),
      f(r.cpu.serverCpuUsPerRequest, 0),
      f(r.cpu.postgresCpuUsPerRequest, 0),
      `${f(r.cpu.serverCores, 2)}/${f(r.cpu.postgresCores, 2)}/${f(r.cpu.loadGeneratorCores, 2)}/${f(r.cpu.otherCores, 2)}`,
    ]);
    console.log(`\n${table(['server', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'bytes', 'server µs/req', 'PG µs/req', 'cores srv/PG/load/other'], rows, [1, 2, 3, 4, 5, 6, 7])}`);
    const otherMax = Math.max(ra.cpu.otherCores ?? 0, rb.cpu.otherCores ?? 0, rc.cpu.otherCores ?? 0);
    const ratio = ra.rps / rb.rps;
    const cpuRatio = (rb.cpu.serverCpuUsPerRequest ?? NaN) / (ra.cpu.serverCpuUsPerRequest ?? NaN);
    const logLines = logAfter.lines - logBefore.lines;

    return {
      figures: [
        { name: 'A throughput', value: ra.rps, unit: 'req/s', target: { value: TARGETS.rps, kind: 'min' } },
        { name: 'A p99 latency', value: ra.latencyMs.p99, unit: 'ms', digits: 2, target: { value: TARGETS.p99Ms, kind: 'max' } },
        { name: 'A/B throughput', value: ratio, unit: '', digits: 3, target: { value: TARGETS.ratio, kind: 'min' } },
        { name: 'A RSS idle after start', value: mb(idleMemA.rss), unit: 'MiB', digits: 1, target: { value: TARGETS.idleRssMb, kind: 'max' } },
        { name: 'B throughput (bare, same SQL)', value: rb.rps, unit: 'req/s' },
        { name: 'C throughput (bare, no DB)', value: rc.rps, unit: 'req/s' },
        { name: 'A server CPU per request', value: ra.cpu.serverCpuUsPerRequest ?? NaN, unit: 'µs' },
        { name: 'B server CPU per request', value: rb.cpu.serverCpuUsPerRequest ?? NaN, unit: 'µs' },
        { name: 'B/A server CPU per request', value: cpuRatio, unit: '', digits: 3 },
        { name: 'A RSS after the run', value: mb(loadMemA.rss), unit: 'MiB', digits: 1 },
        { name: 'A spawn → /readyz 200', value: readyMs, unit: 'ms', target: { value: TARGETS.readyMs, kind: 'max' } },
      ],
      notes: [
        'A = the real app with Bearer auth (Super Admin key), permission check, token decryption, schema serialization, request logging; B = the same Kysely query + JSON.stringify; C = B without the query',
        'server µs/req = CPU time of the server process per response (warm-up included): the overhead figure contention distorts least; B/A ≥ 0.8 would mean our overhead fits the target',
        `A's request log during the run: ${logLines} lines, ${mb(logAfter.bytes - logBefore.bytes).toFixed(1)} MiB (LOG_LEVEL=${logLevel}); spawn → ready uses an already running PostgreSQL`,
        ...(otherMax > 0.15 ? [`other processes used up to ${otherMax.toFixed(2)} cores during the runs: throughput and latency are not those of a quiet machine`] : []),
      ],
      details: {
        load: { route: `GET ${ROUTE}`, connections, keepAlive: true, warmupS: warmupMs / 1000, durationS: durationMs / 1000, rounds, generator: 'bench/support/load.ts (undici Pool, closed loop)' },
        setup: { destinations: seeded, tokensRevealedPerResponse: revealed, poolSize: POOL_SIZE, serverA: { logLevel, rateLimit: 'disabled (0)', auth: 'Bearer, Super Admin API key' } },
        serverA: { ...ra, readyMs, startupInProcessMs: a.startupMs, rssIdleBytes: idleMemA.rss, rssAfterRunBytes: loadMemA.rss, heapUsedAfterRunBytes: loadMemA.heapUsed, requestLogLines: logLines },
        serverB: rb,
        serverC: rc,
        ratioAB: ratio,
        cpuRatioBA: cpuRatio,
        otherProcessesMaxCores: otherMax,
        cores: os.cpus().length,
      },
    };
  } finally {
    for (const s of servers.reverse()) await s.stop();
    await database.close();
  }
}

export const httpBench: BenchDefinition = { name: 'http', title: 'HTTP: authenticated GET /api/output-destinations', run };
