/**
 * Trigger intake: `POST /api/trigger/webhook/{id}` with the trigger's bearer secret, at a
 * sustained open-loop rate (requests are sent on a fixed schedule whether or not earlier ones
 * answered, so a slow server shows up as latency, not as a lower rate) against the real app
 * wired as `rampart serve`, in a child process (DESIGN.md §7: p99 < 50 ms, work queued, never
 * done inline).
 *
 * The server runs no worker: an answer that waited on the agent could never come. After the
 * load, every answered `executionId` must be a run still `waiting` with its graphile job queued.
 *
 * Latency is measured from each request's scheduled send time to its last response byte (so
 * queueing in the client counts against the server, no coordinated omission).
 *
 * Knobs: BENCH_TRIGGER_RPS (200), BENCH_DURATION_S (10; quick 3), BENCH_WARMUP_S (2; quick 1),
 * BENCH_LOG_LEVEL (server LOG_LEVEL, info), BENCH_CPU_PROF (any value: a V8 profile of the server
 * over the first rate, bench/results/profiles/triggers-server.cpuprofile), BENCH_PG_STATEMENTS=1
 * (statements per request, support/pg-statements.ts). `triggers --knee`: after the first rate,
 * 300, 400, 500… req/s on the same server until p99 reaches 100 ms (or, when the first rate is
 * already over it, 150, 100, 75… until it is under); the knee is the highest rate under it.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { Pool, request } from 'undici';
import { createOrganization } from '../src/modules/organizations/organizations.service.js';
import { startBenchDatabase } from './support/db.js';
import { envNumber, type BenchContext, type BenchDefinition, type BenchOutcome } from './support/harness.js';
import { profileStart, profileStop, startRampartServer, waitReady } from './support/http-children.js';
import { resetStatements, statementReport } from './support/pg-statements.js';
import { cpuSeconds } from './support/cpu.js';
import { postmasterPid } from './support/http-measure.js';
import { table } from './support/report.js';
import { percentile } from './support/stats.js';

export const TARGETS = { p99Ms: 50 } as const;
/** The knee: the highest rate whose p99 stays under this. */
const KNEE_P99_MS = 100;
const KNEE_RATES = [300, 400, 500, 600, 800, 1000, 1200, 1500, 2000];
const KNEE_RATES_DOWN = [150, 100, 75, 50, 25];
const PROFILE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'profiles');

const f = (v: number, digits = 2) => (Number.isFinite(v) ? v.toFixed(digits) : 'n/a');

export async function json(url: string, init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: unknown } = {}) {
  const res = await request(url, {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const body = (await res.body.json()) as Record<string, unknown>;
  if (res.statusCode !== 200) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.statusCode} ${JSON.stringify(body).slice(0, 300)}`);
  return body;
}

export interface OpenLoopResult {
  sent: number;
  latencies: Float64Array;
  statusCounts: Record<string, number>;
  errors: string[];
  executionIds: string[];
  achievedRps: number;
  /** Answers other than 200 during the warm-up (not measured, but nothing may be lost there either). */
  warmupFailures: string[];
}

const webhookBody = (i: number) => ({ alert: { id: i, severity: 'high', host: `host-${i % 50}` } });

/** Sends `rate` req/s for `durationMs` on a fixed schedule; results of requests scheduled in the measured window. */
export async function openLoop(
  origin: string,
  reqPath: string,
  headers: Record<string, string>,
  rate: number,
  warmupMs: number,
  durationMs: number,
  bodyOf: (i: number) => unknown = webhookBody,
): Promise<OpenLoopResult> {
  const pool = new Pool(origin, { connections: 64, pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 10_000, bodyTimeout: 10_000 });
  const interval = 1000 / rate;
  const total = Math.round(((warmupMs + durationMs) / 1000) * rate);
  const warmupCount = Math.round((warmupMs / 1000) * rate);
  const latencies: number[] = [];
  const statusCounts: Record<string, number> = {};
  const errors: string[] = [];
  const warmupFailures: string[] = [];
  const executionIds: string[] = [];
  const inflight: Promise<void>[] = [];
  const start = performance.now() + 20;
  let measuredFirst = NaN;
  let measuredLast = NaN;
  try {
    for (let i = 0; i < total; i++) {
      const scheduled = start + i * interval;
      const wait = scheduled - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const measured = i >= warmupCount;
      if (measured && Number.isNaN(measuredFirst)) measuredFirst = performance.now();
      inflight.push(
        (async () => {
          try {
            const res = await pool.request({ method: 'POST', path: reqPath, headers, body: JSON.stringify(bodyOf(i)) });
            const body = (await res.body.json()) as { executionId?: string };
            const done = performance.now();
            if (!measured) {
              if (res.statusCode !== 200) warmupFailures.push(`#${i}: ${res.statusCode} ${JSON.stringify(body)}`);
              return;
            }
            statusCounts[res.statusCode] = (statusCounts[res.statusCode] ?? 0) + 1;
            latencies.push(done - scheduled);
            if (body.executionId) executionIds.push(body.executionId);
          } catch (err) {
            if (!measured) warmupFailures.push(`#${i}: ${String(err)}`);
            if (measured && errors.length < 5) errors.push(String(err));
            if (measured) statusCounts.error = (statusCounts.error ?? 0) + 1;
          }
        })(),
      );
      if (measured) measuredLast = performance.now();
    }
    await Promise.all(inflight);
  } finally {
    await pool.close().catch(() => pool.destroy());
  }
  const sorted = Float64Array.from(latencies).sort();
  return { sent: total - warmupCount, latencies: sorted, statusCounts, errors, executionIds, warmupFailures, achievedRps: (total - warmupCount - 1) / ((measuredLast - measuredFirst) / 1000) };
}

/** The intake's group-commit counters from /metrics (null on a build without them). */
async function groupedCounters(origin: string): Promise<{ statements: number; deliveries: number } | null> {
  const text = await (await request(`${origin}/metrics`)).body.text();
  const read = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  const out = { statements: read('rampart_intake_grouped_statements_total'), deliveries: read('rampart_intake_grouped_deliveries_total') };
  return Number.isNaN(out.statements) ? null : out;
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const rate = envNumber('BENCH_TRIGGER_RPS', 200);
  const warmupMs = envNumber('BENCH_WARMUP_S', ctx.quick ? 1 : 2) * 1000;
  const durationMs = envNumber('BENCH_DURATION_S', ctx.quick ? 3 : 10) * 1000;
  const logLevel = process.env.BENCH_LOG_LEVEL || 'info';
  const database = await startBenchDatabase('triggers');
  try {
    const org = await createOrganization(database.db, { name: 'Bench Org', adminEmail: 'bench@triggers.test' });
    const server = await startRampartServer(database, { LOG_LEVEL: logLevel, ...(process.env.RAMPART_INTAKE_GROUP_WAIT_MS ? { RAMPART_INTAKE_GROUP_WAIT_MS: process.env.RAMPART_INTAKE_GROUP_WAIT_MS } : {}) });
    try {
      await waitReady(server);
      const auth = { authorization: `Bearer ${org.apiKey.key}` };
      const agent = await json(`${server.origin}/api/agents`, { method: 'POST', headers: auth, body: { name: 'Bench triage', systemPrompt: 'Triage the alert.' } });
      const fields = (await json(`${server.origin}/api/agents/${agent.id}/trigger/webhook/fields`, { headers: auth })).data as { secret: string; webhookUrl: string };
      const triggerId = fields.webhookUrl.split('/').pop()!;
      await json(`${server.origin}/api/agents/${agent.id}/trigger/save`, { method: 'POST', headers: auth, body: { triggerId, source: 'webhook', name: 'bench' } });
      const reqPath = `/api/trigger/webhook/${triggerId}`;
      const headers = { authorization: `Bearer ${fields.secret}`, 'content-type': 'application/json' };
      const probe = await json(`${server.origin}${reqPath}`, { method: 'POST', headers, body: { probe: true } });
      if (typeof probe.executionId !== 'string') throw new Error(`intake answered ${JSON.stringify(probe)}`);

      const pgPid = postmasterPid(database.clusterDir);
      /** One open-loop run at `rate`, with the CPU the server and PostgreSQL spent per request. */
      const measure = async (rate: number, profile: boolean) => {
        ctx.log(`open loop: ${rate} req/s, ${warmupMs / 1000} s warm-up + ${durationMs / 1000} s measured, bearer trigger secret, no worker running`);
        await resetStatements(database.db);
        if (profile) await profileStart(server);
        const groupedBefore = (await groupedCounters(server.origin)) ?? { statements: 0, deliveries: 0 };
        const cpu0 = { server: cpuSeconds(server.child.pid), pg: cpuSeconds(pgPid, true) };
        // Also sampled when the warm-up ends: the steady state's CPU, without a fresh server's
        // first requests (JIT compilation, first connections), beside the whole run's.
        let cpuWarm = cpu0;
        const warmed = setTimeout(() => (cpuWarm = { server: cpuSeconds(server.child.pid), pg: cpuSeconds(pgPid, true) }), warmupMs);
        const r = await openLoop(server.origin, reqPath, headers, rate, warmupMs, durationMs);
        clearTimeout(warmed);
        const cpu1 = { server: cpuSeconds(server.child.pid), pg: cpuSeconds(pgPid, true) };
        const requests = Math.round(((warmupMs + durationMs) / 1000) * rate);
        const perReqUs = (a: number | null, b: number | null, n = requests) => (a === null || b === null ? NaN : ((b - a) * 1e6) / n);
        const serverUs = perReqUs(cpu0.server, cpu1.server);
        const pgUs = perReqUs(cpu0.pg, cpu1.pg);
        const measured = Math.round((durationMs / 1000) * rate);
        const steady = { serverUs: perReqUs(cpuWarm.server, cpu1.server, measured), pgUs: perReqUs(cpuWarm.pg, cpu1.pg, measured) };
        if (profile) await profileStop(server, path.join(PROFILE_DIR, 'triggers-server.cpuprofile'));
        const grouped = await groupedCounters(server.origin);
        if (grouped) ctx.log(`group commit: ${grouped.deliveries - groupedBefore.deliveries} deliveries in ${grouped.statements - groupedBefore.statements} statements (mean batch ${f((grouped.deliveries - groupedBefore.deliveries) / (grouped.statements - groupedBefore.statements))})`);
        const statements = await statementReport(database.db, requests, 'request');
        if (statements) console.log(statements.text);
        const ok = r.statusCounts['200'] ?? 0;
        if (ok !== r.sent) throw new Error(`expected ${r.sent} answers 200, got ${JSON.stringify(r.statusCounts)} ${r.errors.join(' | ')}`);
        return { r, serverUs, pgUs, steady, ok };
      };
      const profiling = !!process.env.BENCH_CPU_PROF;
      const { r, serverUs, pgUs, steady, ok } = await measure(rate, profiling);
      if (profiling) ctx.log(`profile: npx tsx bench/profile-summary.ts ${path.relative(process.cwd(), PROFILE_DIR)}/triggers-server.cpuprofile 40`);

      // Every answered run is still queued: the request never did agent work.
      const ids = r.executionIds;
      const { rows } = await sql<{ status: string; n: number; jobs: number }>`
        SELECT r.status, count(*)::int AS n, count(j.id)::int AS jobs
        FROM agent_runs r LEFT JOIN graphile_worker.jobs j ON j.key = 'agent-run:' || r.id::text
        WHERE r.id = ANY(${ids}::uuid[]) GROUP BY r.status`.execute(database.db);
      const waiting = rows.find((x) => x.status === 'waiting');
      if (rows.length !== 1 || !waiting || waiting.n !== ids.length || waiting.jobs !== ids.length) {
        throw new Error(`expected ${ids.length} waiting runs with queued jobs, found ${JSON.stringify(rows)}`);
      }

      // --knee: higher rates in turn until p99 reaches KNEE_P99_MS (or the rate is not sustained).
      const knee: Array<{ rate: number; p50: number; p99: number; serverUs: number; pgUs: number }> = [];
      if (ctx.args.includes('--knee')) {
        // Up from the first rate while p99 stays under the bar; down from it until it does.
        const up = percentile(r.latencies, 99) < KNEE_P99_MS;
        const steps = up ? KNEE_RATES.filter((x) => x > rate) : KNEE_RATES_DOWN.filter((x) => x < rate);
        for (const step of steps) {
          const m = await measure(step, false);
          const row = { rate: step, p50: percentile(m.r.latencies, 50), p99: percentile(m.r.latencies, 99), serverUs: m.serverUs, pgUs: m.pgUs };
          knee.push(row);
          ctx.log(`knee: ${step} req/s → p50 ${f(row.p50)} ms, p99 ${f(row.p99)} ms, server ${f(row.serverUs, 0)} µs + PostgreSQL ${f(row.pgUs, 0)} µs per request`);
          const passed = row.p99 < KNEE_P99_MS && m.r.achievedRps >= step * 0.95;
          if (up ? !passed : passed) break;
        }
      }

      const p = (q: number) => percentile(r.latencies, q);
      const kneeRate = [{ rate: r.achievedRps, p99: p(99) }, ...knee].filter((k) => k.p99 < KNEE_P99_MS).reduce((best, k) => Math.max(best, k.rate), 0);
      if (knee.length) console.log(`\n${table(['rate req/s', 'p50 ms', 'p99 ms', 'server µs/req', 'PG µs/req'], knee.map((k) => [String(k.rate), f(k.p50), f(k.p99), f(k.serverUs, 0), f(k.pgUs, 0)]), [0, 1, 2, 3, 4])}`);
      console.log(
        `\n${table(
          ['rate req/s', 'answered', 'p50 ms', 'p90 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'server µs/req', 'PG µs/req', 'runs waiting / jobs'],
          [[f(r.achievedRps, 0), String(ok), f(p(50)), f(p(90)), f(p(99)), f(p(99.9)), f(r.latencies[r.latencies.length - 1] ?? NaN, 1), f(serverUs, 0), f(pgUs, 0), `${waiting.n} / ${waiting.jobs}`]],
          [0, 1, 2, 3, 4, 5, 6, 7, 8],
        )}`,
      );
      return {
        figures: [
          { name: 'intake rate sustained', value: r.achievedRps, unit: 'req/s', digits: 0 },
          { name: 'intake p50 latency', value: p(50), unit: 'ms', digits: 2 },
          { name: 'intake p99 latency', value: p(99), unit: 'ms', digits: 2, target: { value: TARGETS.p99Ms, kind: 'max' } },
          { name: 'intake server CPU per request', value: serverUs, unit: 'µs', digits: 0 },
          { name: 'intake PostgreSQL CPU per request', value: pgUs, unit: 'µs', digits: 0 },
          { name: 'intake server CPU per request, after the warm-up', value: steady.serverUs, unit: 'µs', digits: 0, target: { value: 1000, kind: 'max' } },
          { name: 'intake PostgreSQL CPU per request, after the warm-up', value: steady.pgUs, unit: 'µs', digits: 0, target: { value: 1000, kind: 'max' } },
          ...(knee.length ? [{ name: `intake knee (highest rate with p99 < ${KNEE_P99_MS} ms)`, value: kneeRate, unit: 'req/s', digits: 0 }] : []),
        ],
        notes: [
          'latency from each request\'s scheduled send time to its last byte (open loop: no coordinated omission)',
          `every one of the ${ids.length} answered executionIds is a run still waiting with its job queued (no worker ran): the request only enqueues`,
          `server LOG_LEVEL=${logLevel} to a file, rate limit off; body ~70 bytes of JSON`,
          'CPU per request (server process; PostgreSQL postmaster and backends; warm-up included) depends far less on a shared machine than latency does',
        ],
        details: { rate, warmupMs, durationMs, serverCpuUsPerRequest: serverUs, postgresCpuUsPerRequest: pgUs, knee, statusCounts: r.statusCounts, latencyMs: { p50: p(50), p90: p(90), p99: p(99), p999: p(99.9), max: r.latencies[r.latencies.length - 1] } },
      };
    } finally {
      await server.stop();
    }
  } finally {
    await database.close();
  }
}

export const triggersBench: BenchDefinition = { name: 'triggers', title: 'Webhook intake latency under sustained load', run };
