/**
 * Delivery: agent output to a local webhook receiver through the real delivery job on
 * graphile-worker (issue 12). Two figures:
 *
 * - throughput: N deliveries queued (row + job, through delivery's front door), then a worker
 *   pool started; deliveries/s = N / (last signed request received − pool start). Every request
 *   is a full attempt: claim, decrypt, render, sign, POST, record the attempt, finish.
 * - added latency: with the pool idle, events are queued one per transaction (as a run's
 *   completion does) at a steady rate; latency = the receiver getting the request − the commit.
 *
 * The receiver runs in this process (an http server answering 204 and checking the
 * `webhook-id` of each request); the pool runs in this process too, as `rampart worker` does.
 *
 * Knobs: BENCH_DELIVERY_N (5000; quick 500), BENCH_DELIVERY_CONCURRENCY (16: the pool has 20 connections),
 * BENCH_DELIVERY_LATENCY_EVENTS (200; quick 50), BENCH_DELIVERY_LATENCY_RPS (20),
 * BENCH_DELIVERY_LOCAL_QUEUE (0: off; graphile-worker batch fetching, see the runner).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import { createOrganization } from '../src/modules/organizations/organizations.service.js';
import { createDeliveryJob, newEvent, queueDeliveries } from '../src/modules/delivery/index.js';
import { JobCatalog } from '../src/platform/jobs/catalog.js';
import { startWorkers } from '../src/platform/jobs/runner.js';
import { createGuardedClient } from '../src/platform/outbound/index.js';
import { createSecretBox } from '../src/platform/secrets.js';
import { startBenchDatabase } from './support/db.js';
import { envNumber, type BenchContext, type BenchDefinition, type BenchOutcome } from './support/harness.js';
import { table } from './support/report.js';
import { percentile } from './support/stats.js';
import { cpuSeconds } from './support/cpu.js';
import { postmasterPid } from './support/http-measure.js';

export const TARGETS = { deliveriesPerSecond: 500, firstAttemptP95Ms: 1000 } as const;

async function startReceiver(onRequest: (id: string) => void) {
  const server = http.createServer((req, res) => {
    const id = req.headers['webhook-id'];
    req.resume();
    req.on('end', () => {
      if (typeof id === 'string' && typeof req.headers['webhook-signature'] === 'string') onRequest(id);
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const n = envNumber('BENCH_DELIVERY_N', ctx.quick ? 500 : 5000);
  const concurrency = envNumber('BENCH_DELIVERY_CONCURRENCY', 16);
  const latencyEvents = envNumber('BENCH_DELIVERY_LATENCY_EVENTS', ctx.quick ? 50 : 200);
  const latencyRps = envNumber('BENCH_DELIVERY_LATENCY_RPS', 20);
  const database = await startBenchDatabase('delivery');
  const received = new Map<string, number>();
  const receiver = await startReceiver((id) => {
    if (!received.has(id)) received.set(id, performance.now());
  });
  const logger = pino({ level: process.env.BENCH_LOG_LEVEL ?? 'warn' });
  const secrets = createSecretBox(randomBytes(32));
  const httpClient = createGuardedClient({ allowPrivateNetworks: true, retries: 0 });
  let workers: Awaited<ReturnType<typeof startWorkers>> | null = null;
  try {
    const db = database.db;
    const { organization } = await createOrganization(db, { name: 'Bench', adminEmail: 'bench@example.test' });
    const destinationId = uuidv7();
    const now = new Date();
    await db
      .insertInto('outputDestinations')
      .values({ id: destinationId, organizationId: organization.id, name: 'Bench hook', type: 'webhook', config: JSON.stringify({ url: receiver.url, authType: 'bearer' }), tokenCiphertext: secrets.encrypt('bench-token-0123456789'), signingSecretCiphertext: secrets.encrypt('bench-token-0123456789'), createdAt: now, updatedAt: now })
      .execute();

    // Phase 1: queue N (100 per transaction), then drain with a fresh pool.
    ctx.log(`queueing ${n} deliveries`);
    const queueStart = performance.now();
    const ids: string[] = [];
    for (let i = 0; i < n; i += 100) {
      await db.transaction().execute(async (tx) => {
        for (let j = i; j < Math.min(n, i + 100); j++) {
          const e = newEvent(organization.id, 'agent.message', { title: `Bench ${j}`, message: 'A finding worth a message: 203.0.113.7 beaconing every 60 s.' });
          ids.push(e.id);
          await queueDeliveries(tx, e, [destinationId]);
        }
      });
    }
    const queueSeconds = (performance.now() - queueStart) / 1000;
    ctx.log(`queued in ${queueSeconds.toFixed(2)} s; draining with concurrency ${concurrency}`);
    const catalog = new JobCatalog().register(createDeliveryJob({ db, secrets, http: httpClient, logger, baseUrl: 'https://rampart.example.com' }));
    const pgPid = postmasterPid(database.clusterDir);
    const cpu0 = { node: process.cpuUsage(), pg: cpuSeconds(pgPid, true) };
    const drainStart = performance.now();
    const localQueueSize = envNumber('BENCH_DELIVERY_LOCAL_QUEUE', 0);
    workers = await startWorkers({ db, pool: database.pool, catalog, logger, concurrency, pollIntervalMs: 1000, ...(localQueueSize ? { localQueueSize } : {}) });
    const deadline = Date.now() + 120_000;
    while (ids.some((id) => !received.has(id))) {
      if (Date.now() > deadline) throw new Error(`only ${ids.filter((id) => received.has(id)).length}/${n} deliveries arrived within 120 s`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const last = Math.max(...ids.map((id) => received.get(id)!));
    const drainSeconds = (last - drainStart) / 1000;
    const rate = n / drainSeconds;
    const nodeCpuMs = (() => {
      const u = process.cpuUsage(cpu0.node);
      return (u.user + u.system) / 1000;
    })();
    const pgCpu1 = cpuSeconds(pgPid, true);
    const pgCpuMs = cpu0.pg !== null && pgCpu1 !== null ? (pgCpu1 - cpu0.pg) * 1000 : NaN;
    ctx.log(`delivered ${n} in ${drainSeconds.toFixed(2)} s; CPU per delivery: Node ${(nodeCpuMs / n).toFixed(2)} ms (worker + receiver), PostgreSQL ${(pgCpuMs / n).toFixed(2)} ms`);
    // The receiver answers before the worker records the outcome: wait for the ledger too.
    for (const until = Date.now() + 30_000; ; ) {
      const { rows } = await sql<{ status: string; n: number }>`SELECT status, count(*)::int AS n FROM destination_deliveries GROUP BY status`.execute(db);
      const notSucceeded = rows.filter((r) => r.status !== 'succeeded').reduce((a, r) => a + r.n, 0);
      if (notSucceeded === 0) break;
      if (Date.now() > until) throw new Error(`${notSucceeded} deliveries did not end succeeded: ${JSON.stringify(rows)}`);
      await new Promise((r) => setTimeout(r, 50));
    }

    // Phase 2: the pool is idle; one event per transaction at a steady rate.
    ctx.log(`latency: ${latencyEvents} events at ${latencyRps}/s`);
    const committed = new Map<string, number>();
    const interval = 1000 / latencyRps;
    const t0 = performance.now();
    for (let i = 0; i < latencyEvents; i++) {
      const wait = t0 + i * interval - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const e = newEvent(organization.id, 'agent_run.completed', { runId: uuidv7(), agentName: 'Bench', finalAssistantMessage: 'done' });
      await db.transaction().execute((tx) => queueDeliveries(tx, e, [destinationId]));
      committed.set(e.id, performance.now());
    }
    const until = Date.now() + 30_000;
    while ([...committed.keys()].some((id) => !received.has(id)) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const lat = Float64Array.from([...committed].map(([id, at]) => (received.get(id) ?? Infinity) - at)).sort();
    const p50 = percentile(lat, 50);
    const p95 = percentile(lat, 95);
    const p99 = percentile(lat, 99);

    ctx.log(table(['figure', 'value'], [
      ['queued (row + job)', `${(n / queueSeconds).toFixed(0)} /s`],
      ['delivered', `${rate.toFixed(0)} /s (${n} in ${drainSeconds.toFixed(2)} s, concurrency ${concurrency})`],
      ['commit → receiver p50 / p95 / p99', `${p50.toFixed(1)} / ${p95.toFixed(1)} / ${p99.toFixed(1)} ms`],
    ]));
    return {
      figures: [
        { name: 'delivery: webhook deliveries/s end to end', value: rate, unit: '/s', target: { value: TARGETS.deliveriesPerSecond, kind: 'min' }, digits: 0 },
        { name: 'delivery: run-done → first attempt p95', value: p95, unit: 'ms', target: { value: TARGETS.firstAttemptP95Ms, kind: 'max' }, digits: 1 },
      ],
      notes: [`${n} deliveries to a local signed-webhook receiver, worker concurrency ${concurrency}; latency over ${latencyEvents} events at ${latencyRps}/s, one per transaction`],
      details: { n, concurrency, queuePerSecond: n / queueSeconds, deliveredPerSecond: rate, drainSeconds, cpuMsPerDelivery: { node: nodeCpuMs / n, postgres: pgCpuMs / n }, latencyMs: { p50, p95, p99 } },
    };
  } finally {
    await workers?.stop();
    await httpClient.close();
    await receiver.close();
    await database.close();
  }
}

export const deliveryBench: BenchDefinition = { name: 'delivery', title: 'Delivery to a webhook receiver (throughput, added latency)', run };
