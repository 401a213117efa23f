/**
 * A worker process for the crash test in test/platform/jobs.test.ts: it runs the job system against
 * JOBS_TEST_DATABASE_URL with one job type, `test:crashy`, whose handler records that it started
 * and then never finishes. The test kills this process with SIGKILL while the job runs and
 * proves that another worker picks the job up again.
 *
 * Run as: node --import tsx test/support/worker-child.ts
 */
import pino from 'pino';
import { sql } from 'kysely';
import { z } from 'zod';
import { openDatabase } from '../../src/platform/db/database.js';
import { JobCatalog, defineJob } from '../../src/platform/jobs/catalog.js';
import { startWorkers } from '../../src/platform/jobs/runner.js';

const url = process.env.JOBS_TEST_DATABASE_URL;
if (!url) {
  process.stderr.write('JOBS_TEST_DATABASE_URL is not set\n');
  process.exit(2);
}

const database = openDatabase(url, { max: 5 });
const catalog = new JobCatalog().register(
  defineJob({
    name: 'test:crashy',
    payload: z.object({ tag: z.string() }),
    async run(payload, ctx) {
      await sql`
        INSERT INTO job_test_runs (tag, event, job_id, attempt, pid)
        VALUES (${payload.tag}, 'started', ${ctx.jobId}, ${ctx.attempt}, ${process.pid})`.execute(database.db);
      // Hang until killed (the interval keeps the event loop alive).
      await new Promise<never>(() => setInterval(() => {}, 60_000));
    },
  }),
);

await startWorkers({
  db: database.db,
  pool: database.pool,
  catalog,
  logger: pino({ level: process.env.JOBS_TEST_LOG_LEVEL ?? 'silent' }, pino.destination(2)),
  concurrency: Number(process.env.JOBS_TEST_CONCURRENCY ?? 2),
  heartbeatMs: 200,
  deadWorkerAfterMs: 1_500,
  pollIntervalMs: 200,
});
process.stdout.write('ready\n');
