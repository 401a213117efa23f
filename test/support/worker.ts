import pino from 'pino';
import { buildJobCatalog, type JobDeps } from '../../src/jobs.js';
import type { JobCatalog } from '../../src/platform/jobs/catalog.js';
import { startWorkers, type WorkerRunner } from '../../src/platform/jobs/runner.js';
import { createGuardedClient } from '../../src/platform/outbound/index.js';
import type { TestContext } from './app.js';

export interface TestWorkerOptions {
  /** Shared slots (default 2). */
  concurrency?: number;
  /** Slots kept for the job types marked `reservedSlots` (the runner's second pool); none by default. */
  reservedConcurrency?: number;
}

export interface ServiceWorkerOptions extends TestWorkerOptions {
  /** What the suite wires differently from the defaults: `baseUrl` for links in messages, `osvShardRecords`, another `http` client… */
  deps?: Partial<JobDeps>;
}

/**
 * A real graphile-worker pool running `catalog` against the test database. Polls every 100 ms so
 * a job starts soon after it is queued, and beats every 500 ms so a pool taken for dead is found
 * in 5 s rather than production's minute. The caller stops it (`worker.stop()`, idempotent) in
 * its own cleanup, where the order matters: after releasing what a held job waits on, before
 * closing the fakes its jobs call and the test app's database.
 */
export function startTestWorker(t: TestContext, catalog: JobCatalog, opts: TestWorkerOptions = {}): Promise<WorkerRunner> {
  return startWorkers({
    db: t.database.db,
    pool: t.database.pool,
    catalog,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    concurrency: opts.concurrency ?? 2,
    ...(opts.reservedConcurrency !== undefined ? { reservedConcurrency: opts.reservedConcurrency } : {}),
    pollIntervalMs: 100,
    heartbeatMs: 500,
    deadWorkerAfterMs: 5_000,
  });
}

/**
 * The service's own job catalog (src/jobs.ts: every module's jobs, wired as in production) in a
 * real worker (startTestWorker). Outbound calls go through the SSRF-guarded client with private
 * networks allowed (the fakes listen on 127.0.0.1) and no retries of its own: a failed call
 * reaches the job, and the worker's retry is what a test sees.
 */
export function startServiceWorker(t: TestContext, opts: ServiceWorkerOptions = {}): Promise<WorkerRunner> {
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const catalog = buildJobCatalog({ db: t.database.db, secrets: t.secrets, http: createGuardedClient({ allowPrivateNetworks: true, retries: 0 }), logger, ...opts.deps });
  return startTestWorker(t, catalog, opts);
}
