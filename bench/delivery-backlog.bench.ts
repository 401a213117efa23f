/**
 * Deliveries under a run backlog (issue 35, point 3): how long a run's output waits between
 * the run's end and the receiver, while more runs wait for a worker slot.
 *
 * A worker pool (concurrency C) runs the real delivery job beside a stand-in for the agent-run
 * job (`bench:run`: default priority, it holds its slot for RUN_MS as a model call does, then
 * commits its end and queues its delivery in one transaction through delivery's front door, as
 * finishRun does). R runs are queued at once: a backlog of about R × RUN_MS / C. Latency = the
 * receiver getting a delivery − the commit of the run end that queued it.
 *
 * Two phases on the same database: `shared queue` puts each delivery job back at priority 0
 * (deliveries first in, first out with the runs, as before issue 35), `delivery priority` keeps
 * the delivery job type's own priority. The run stand-in is not the agent run job because only
 * the queue's ordering is measured here; the model loop would add nothing but noise.
 *
 * Knobs: BENCH_BACKLOG_RUNS (40; quick 16), BENCH_BACKLOG_RUN_MS (500), BENCH_BACKLOG_CONCURRENCY (4).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { createOrganization } from '../src/modules/organizations/organizations.service.js';
import { createDeliveryJob, newEvent, queueDeliveries } from '../src/modules/delivery/index.js';
import { JobCatalog, defineJob } from '../src/platform/jobs/catalog.js';
import { enqueue } from '../src/platform/jobs/enqueue.js';
import { startWorkers } from '../src/platform/jobs/runner.js';
import { createGuardedClient } from '../src/platform/outbound/index.js';
import { createSecretBox } from '../src/platform/secrets.js';
import { startBenchDatabase } from './support/db.js';
import { envNumber, type BenchContext, type BenchDefinition, type BenchOutcome } from './support/harness.js';
import { table } from './support/report.js';
import { percentile } from './support/stats.js';

export const TARGETS = { runEndToReceiverP95Ms: 1000 } as const;

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const runs = envNumber('BENCH_BACKLOG_RUNS', ctx.quick ? 16 : 40);
  const runMs = envNumber('BENCH_BACKLOG_RUN_MS', 500);
  const concurrency = envNumber('BENCH_BACKLOG_CONCURRENCY', 4);
  const database = await startBenchDatabase('backlog');
  const received = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const id = req.headers['webhook-id'];
    req.resume();
    req.on('end', () => {
      if (typeof id === 'string' && !received.has(id)) received.set(id, performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
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
      .values({ id: destinationId, organizationId: organization.id, name: 'Bench hook', type: 'webhook', config: JSON.stringify({ url: receiverUrl, authType: 'bearer' }), tokenCiphertext: secrets.encrypt('bench-token-0123456789'), signingSecretCiphertext: secrets.encrypt('bench-token-0123456789'), createdAt: now, updatedAt: now })
      .execute();

    let sharedQueue = true;
    const ended = new Map<string, number>();
    const runJob = defineJob({
      name: 'bench:run',
      payload: z.object({ n: z.number() }),
      async run({ n }) {
        await new Promise((r) => setTimeout(r, runMs));
        const e = newEvent(organization.id, 'agent_run.completed', { runId: uuidv7(), agentName: 'Bench', finalAssistantMessage: `run ${n} done` });
        await db.transaction().execute(async (tx) => {
          const [queued] = await queueDeliveries(tx, e, [destinationId]);
          // As before issue 35: the delivery job at the default priority, behind the runs.
          if (sharedQueue && queued) await sql`UPDATE graphile_worker._private_jobs SET priority = 0 WHERE key = ${`delivery:${queued.deliveryId}`}`.execute(tx);
        });
        ended.set(e.id, performance.now());
      },
    });
    const catalog = new JobCatalog().register(runJob, createDeliveryJob({ db, secrets, http: httpClient, logger, baseUrl: 'https://rampart.example.com' }));
    workers = await startWorkers({ db, pool: database.pool, catalog, logger, concurrency, pollIntervalMs: 1000 });

    const phase = async (label: string) => {
      ended.clear();
      received.clear();
      await db.transaction().execute(async (tx) => {
        for (let n = 0; n < runs; n++) await enqueue(tx, runJob, { n });
      });
      const deadline = Date.now() + 120_000 + runs * runMs;
      while (ended.size < runs || [...ended.keys()].some((id) => !received.has(id))) {
        if (Date.now() > deadline) throw new Error(`${label}: only ${received.size}/${runs} deliveries arrived`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const lat = Float64Array.from([...ended].map(([id, at]) => received.get(id)! - at)).sort();
      return { p50: percentile(lat, 50), p95: percentile(lat, 95), max: lat[lat.length - 1]! };
    };
    ctx.log(`${runs} runs of ${runMs} ms, concurrency ${concurrency}: a backlog of about ${((runs * runMs) / concurrency / 1000).toFixed(1)} s`);
    const shared = await phase('shared queue');
    sharedQueue = false;
    const prioritized = await phase('delivery priority');
    const fmt = (p: { p50: number; p95: number; max: number }) => `${p.p50.toFixed(0)} / ${p.p95.toFixed(0)} / ${p.max.toFixed(0)} ms`;
    ctx.log(table(['run end → receiver, p50 / p95 / max', 'value'], [
      ['shared queue (priority 0, as before)', fmt(shared)],
      ['delivery priority', fmt(prioritized)],
    ]));
    return {
      figures: [
        { name: 'delivery under a run backlog: run end → receiver p95', value: prioritized.p95, unit: 'ms', target: { value: TARGETS.runEndToReceiverP95Ms, kind: 'max' }, digits: 0 },
        { name: 'same, deliveries behind the runs (as before)', value: shared.p95, unit: 'ms', digits: 0 },
      ],
      notes: [`${runs} stand-in runs of ${runMs} ms queued at once, worker concurrency ${concurrency}; each run's end queues one signed-webhook delivery to a local receiver`],
      details: { runs, runMs, concurrency, sharedQueueMs: shared, deliveryPriorityMs: prioritized },
    };
  } finally {
    await workers?.stop();
    await httpClient.close();
    await new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
    await database.close();
  }
}

export const deliveryBacklogBench: BenchDefinition = { name: 'delivery-backlog', title: 'Deliveries under a run backlog (run end → receiver)', run };
