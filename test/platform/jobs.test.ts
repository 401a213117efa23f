import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import pino from 'pino';
import { sql } from 'kysely';
import { z } from 'zod';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { JobCatalog, defineJob, type JobDefinition } from '../../src/platform/jobs/catalog.js';
import { enqueue } from '../../src/platform/jobs/enqueue.js';
import { PLATFORM_CRONTAB, maintenanceJobs } from '../../src/platform/jobs/maintenance.jobs.js';
import { startWorkers, type WorkerRunner, type WorkerRunnerOptions } from '../../src/platform/jobs/runner.js';
import { createTestDatabase } from '../support/db.js';
import { killNow, spawnLogged, untilOutput, type LoggedChild } from '../support/processes.js';
import { until } from '../support/until.js';

/**
 * The job system on a real PostgreSQL: transactional enqueue, retries with backoff and a visible
 * terminal failure, recovery of a killed worker's job, graceful stop, jobKey dedupe and payload
 * validation (DESIGN.md §3 rule 6, §7 "no lost job on crash").
 */
let database: DatabaseHandle & { url: string };
const logger = pino({ level: process.env.JOBS_TEST_LOG_LEVEL ?? 'silent' });
const runners: WorkerRunner[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  // What handlers did, as the test sees it (a table of this test file's own database).
  await sql`
    CREATE TABLE job_test_runs (
      id bigserial PRIMARY KEY,
      tag text NOT NULL,
      event text NOT NULL,
      job_id text NOT NULL,
      attempt integer NOT NULL,
      pid integer NOT NULL,
      aborted boolean NOT NULL DEFAULT false
    )`.execute(database.db);
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(runners.splice(0).map((r) => r.stop()));
  // Each test starts from an empty queue.
  await sql`DELETE FROM graphile_worker._private_jobs`.execute(database.db);
});
afterAll(() => database?.close());

/** What a handler recorded (`job_test_runs`). */
type RunRow = { tag: string; event: string; jobId: string; attempt: number; pid: number; aborted: boolean };
/**
 * A job as graphile-worker holds it; `dueIn` is the seconds from now until run_at.
 * "Now" is clock_timestamp(), not now(): now() is the reading transaction's start, which can
 * precede the start of a failJobs transaction that still commits before this statement's
 * snapshot, so run_at - now() could exceed the backoff by a fraction of a millisecond under load.
 */
type JobRow = { attempts: number; maxAttempts: number; lastError: string | null; lockedBy: string | null; dueIn: number };

async function record(tag: string, event: string, ctx: { jobId: string; attempt: number; signal?: AbortSignal }): Promise<void> {
  await sql`
    INSERT INTO job_test_runs (tag, event, job_id, attempt, pid, aborted)
    VALUES (${tag}, ${event}, ${ctx.jobId}, ${ctx.attempt}, ${process.pid}, ${ctx.signal?.aborted ?? false})`.execute(database.db);
}

async function runs(tag: string): Promise<RunRow[]> {
  const { rows } = await sql<RunRow>`
    SELECT tag, event, job_id, attempt, pid, aborted FROM job_test_runs WHERE tag = ${tag} ORDER BY id`.execute(database.db);
  return rows;
}

async function job(id: string): Promise<JobRow | undefined> {
  const { rows } = await sql<JobRow>`
    SELECT attempts, max_attempts, last_error, locked_by, extract(epoch FROM run_at - clock_timestamp())::float8 AS due_in
    FROM graphile_worker.jobs WHERE id = ${id}::bigint`.execute(database.db);
  return rows[0];
}

async function pendingJobCount(): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM graphile_worker.jobs`.execute(database.db);
  return rows[0]!.n;
}

async function start(defs: JobDefinition<any>[], opts: Partial<WorkerRunnerOptions> = {}): Promise<WorkerRunner> {
  const runner = await startWorkers({
    db: database.db,
    pool: database.pool,
    catalog: new JobCatalog().register(...defs),
    logger,
    concurrency: 2,
    pollIntervalMs: 100,
    heartbeatMs: 200,
    deadWorkerAfterMs: 1_500,
    ...opts,
  });
  runners.push(runner);
  return runner;
}

const recordJob = defineJob({
  name: 'test:record',
  payload: z.object({ tag: z.string() }),
  async run(payload, ctx) {
    await record(payload.tag, 'done', ctx);
  },
});

describe('enqueue in a transaction', () => {
  it('never runs a job whose transaction rolled back, and runs committed ones', async () => {
    let rolledBackId = '';
    await expect(
      database.db.transaction().execute(async (tx) => {
        rolledBackId = await enqueue(tx, recordJob, { tag: 'rolled-back' });
        expect(rolledBackId).toMatch(/^\d+$/);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    // Positive controls, enqueued after the rolled-back one (so they would run after it).
    const committedId = await database.db.transaction().execute((tx) => enqueue(tx, recordJob, { tag: 'committed' }));
    const directId = await enqueue(database.db, recordJob, { tag: 'direct' });

    await start([recordJob]);
    await until('the committed jobs to run', async () => (await runs('committed')).length === 1 && (await runs('direct')).length === 1);
    await until('the queue to drain', async () => (await pendingJobCount()) === 0);

    expect((await runs('committed'))[0]).toMatchObject({ jobId: committedId, attempt: 1 });
    expect((await runs('direct'))[0]).toMatchObject({ jobId: directId, attempt: 1 });
    expect(await runs('rolled-back')).toEqual([]);
    expect(await job(rolledBackId)).toBeUndefined();
    const { rows } = await sql`SELECT 1 FROM graphile_worker._private_jobs WHERE id = ${rolledBackId}::bigint`.execute(database.db);
    expect(rows).toEqual([]);
  });
});

describe('retries', () => {
  it('retries a failing job with exponential backoff, then leaves it visibly failed', async () => {
    const failing = defineJob({
      name: 'test:alwaysFails',
      payload: z.object({ tag: z.string() }),
      maxAttempts: 3,
      async run(payload, ctx) {
        await record(payload.tag, 'attempt', ctx);
        throw new Error(`boom on attempt ${ctx.attempt} of ${ctx.maxAttempts}`);
      },
    });
    const id = await enqueue(database.db, failing, { tag: 'failing' });
    await start([failing, recordJob]);

    const delays: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      // A failed attempt: the lock is released and the error is recorded.
      const row = await until(`attempt ${attempt} to fail`, async () => {
        const j = await job(id);
        return j && j.attempts === attempt && j.lockedBy === null ? j : null;
      });
      expect(row).toMatchObject({ maxAttempts: 3, lastError: `boom on attempt ${attempt} of 3` });
      if (attempt < 3) {
        // graphile-worker's backoff: run_at moves exp(attempts) seconds ahead (2.7 s, then 7.4 s).
        expect(row.dueIn).toBeGreaterThan(1);
        delays.push(row.dueIn);
        // Keep the test fast: make the retry due now instead of waiting for the backoff.
        await sql`UPDATE graphile_worker._private_jobs SET run_at = now() WHERE id = ${id}::bigint`.execute(database.db);
      }
    }
    expect(delays[0]).toBeLessThanOrEqual(Math.exp(1));
    expect(delays[1]).toBeGreaterThan(delays[0]! + 2);
    expect(delays[1]).toBeLessThanOrEqual(Math.exp(2));

    // The terminal failure is visible: in graphile-worker (never retried again) and in job_failures.
    const failure = await until('the job_failures row', () =>
      database.db.selectFrom('jobFailures').selectAll().where('jobId', '=', id).executeTakeFirst(),
    );
    expect(failure).toMatchObject({ taskIdentifier: 'test:alwaysFails', attempts: 3, lastError: 'boom on attempt 3 of 3', payload: { tag: 'failing' } });
    expect(await job(id)).toMatchObject({ attempts: 3, maxAttempts: 3, lockedBy: null, lastError: 'boom on attempt 3 of 3' });
    expect((await runs('failing')).map((r) => r.attempt)).toEqual([1, 2, 3]);
    // Even when due, an exhausted job is not taken again.
    await sql`UPDATE graphile_worker._private_jobs SET run_at = now() WHERE id = ${id}::bigint`.execute(database.db);
    // A job queued after it runs: the worker has looked at the queue since, and the exhausted job,
    // ahead of it in the queue's order, was not taken (taking it would have counted an attempt).
    await enqueue(database.db, recordJob, { tag: 'after-exhausted' });
    await until('the job queued after it to run', async () => (await runs('after-exhausted')).length === 1);
    expect(await job(id)).toMatchObject({ attempts: 3 });
    expect(await runs('failing')).toHaveLength(3);
  });
});

describe('a worker that dies', () => {
  const crashy = defineJob({
    name: 'test:crashy',
    payload: z.object({ tag: z.string() }),
    maxAttempts: 3,
    async run(payload, ctx) {
      await record(payload.tag, 'completed', ctx);
    },
  });

  function spawnWorkerChild(): LoggedChild {
    const worker = spawnLogged(process.execPath, ['--import', 'tsx', 'test/support/worker-child.ts'], {
      cwd: process.cwd(),
      env: { ...process.env, JOBS_TEST_DATABASE_URL: database.url, JOBS_TEST_CONCURRENCY: '2' },
    });
    children.push(worker.child);
    return worker;
  }

  it('has its job picked up by another worker (and an exhausted one recorded as failed)', async () => {
    const retryableId = await enqueue(database.db, crashy, { tag: 'crash-retryable' });
    // The same job type with no attempt left: it cannot be retried, so it must end visibly failed.
    const lastChanceId = await enqueue(database.db, { ...crashy, maxAttempts: 1 }, { tag: 'crash-last-chance' });

    const worker = spawnWorkerChild();
    // The child's start (tsx, imports) is what a loaded machine slows most: wait for it to say so.
    await untilOutput(worker, 'the child worker to be ready', (output) => /^ready$/m.test(output));
    const started = await until('the child worker to start both jobs', async () => {
      // An early exit ends the wait too (a throwing probe would only count as "not yet").
      if (worker.child.exitCode !== null) return 'exited' as const;
      const rows = [...(await runs('crash-retryable')), ...(await runs('crash-last-chance'))];
      return rows.length === 2 ? rows : null;
    });
    if (started === 'exited') throw new Error(`worker child exited early (${worker.child.exitCode}):\n${worker.log()}`);
    expect(started.every((r) => r.event === 'started' && r.pid === worker.child.pid && r.attempt === 1)).toBe(true);

    // The child's pool is known to be alive: its heartbeat row names what graphile-worker wrote
    // in locked_by (0.17 locks jobs with the pool's id, not a worker's).
    const locked = (await job(retryableId))!;
    expect(locked.lockedBy).toEqual(expect.any(String));
    expect((await job(lastChanceId))!.lockedBy).toBe(locked.lockedBy);
    const beats = await database.db.selectFrom('workerHeartbeats').selectAll().execute();
    expect(beats.map((b) => b.workerId)).toContain(locked.lockedBy);

    await killNow(worker);

    // The dead pool's locks are older than 1 s by now, or soon: the next sweep releases them.
    await start([crashy], { deadWorkerAfterMs: 1_000 });
    const completed = await until('another worker to complete the dead worker\'s job', async () => (await runs('crash-retryable')).find((r) => r.event === 'completed'));
    expect(completed).toMatchObject({ jobId: retryableId, attempt: 2, pid: process.pid });
    await until('the completed job to leave the queue', async () => (await job(retryableId)) === undefined);

    // No attempt left: not run again, but left failed with a reason and a job_failures row.
    const failure = await until('the job_failures row of the exhausted job', () =>
      database.db.selectFrom('jobFailures').selectAll().where('jobId', '=', lastChanceId).executeTakeFirst(),
    );
    expect(failure).toMatchObject({ taskIdentifier: 'test:crashy', attempts: 1, payload: { tag: 'crash-last-chance' } });
    expect(failure.lastError).toMatch(/worker/i);
    expect(await job(lastChanceId)).toMatchObject({ attempts: 1, maxAttempts: 1, lockedBy: null, lastError: failure.lastError });
    expect((await runs('crash-last-chance')).map((r) => r.event)).toEqual(['started']);
    // The dead pool's heartbeat row is cleaned up.
    const after = await database.db.selectFrom('workerHeartbeats').select('workerId').execute();
    expect(after.map((b) => b.workerId)).not.toContain(locked.lockedBy);
    // A child process to start on a shared machine: the waits above are on events, this only bounds a hang.
  }, 120_000);

  it('does not take away a long job from a live worker', async () => {
    const long = defineJob({
      name: 'test:long',
      payload: z.object({ tag: z.string() }),
      maxAttempts: 3,
      async run(payload, ctx) {
        await record(payload.tag, 'started', ctx);
        await sleep(1_500);
        await record(payload.tag, 'done', ctx);
      },
    });
    const id = await enqueue(database.db, long, { tag: 'long' });
    // Dead after 600 ms of silence; the job runs well past that while its pool keeps beating.
    await start([long], { concurrency: 1, deadWorkerAfterMs: 600 });
    await until('the long job to start', async () => (await runs('long')).length > 0);
    // A second pool (another process, in production) that would take the job if it were released.
    await start([long], { concurrency: 1, deadWorkerAfterMs: 600 });
    await until('the long job to finish', async () => (await runs('long')).some((r) => r.event === 'done'));
    await until('the queue to drain', async () => (await pendingJobCount()) === 0);
    expect((await runs('long')).map((r) => `${r.event}#${r.attempt}`)).toEqual(['started#1', 'done#1']);
    expect(await job(id)).toBeUndefined();
  });

  it('does not take a job from a live worker whose dead-worker delay is longer than its own (issue 35)', async () => {
    const long = defineJob({
      name: 'test:long-mixed',
      payload: z.object({ tag: z.string() }),
      maxAttempts: 3,
      async run(payload, ctx) {
        await record(payload.tag, 'started', ctx);
        await sleep(2_500);
        await record(payload.tag, 'done', ctx);
      },
    });
    await enqueue(database.db, long, { tag: 'long-mixed' });
    // Beats every 1 s (its delay: 3 s); the second pool's own delay (0.6 s) is shorter than that beat.
    await start([long], { concurrency: 1, heartbeatMs: 1_000, deadWorkerAfterMs: 3_000 });
    await until('the long job to start', async () => (await runs('long-mixed')).length > 0);
    await start([long], { concurrency: 1, heartbeatMs: 200, deadWorkerAfterMs: 600 });
    await until('the long job to finish', async () => (await runs('long-mixed')).some((r) => r.event === 'done'));
    await sleep(300);
    expect((await runs('long-mixed')).map((r) => `${r.event}#${r.attempt}`)).toEqual(['started#1', 'done#1']);
  });
});

/**
 * A pool whose new connections can be refused (the database is down, as while the embedded
 * PostgreSQL restarts) or held (it is coming back: connecting waits until `release`), so a test
 * can lose the database under a running job, or stop the runner while a restart is starting a
 * new pool.
 */
function flakyPool(): { pool: pg.Pool; refuse(down: boolean): void; hold(): () => void; refused(): number; waiting(): number } {
  const pool = new pg.Pool({ connectionString: database.url, max: 4 });
  pool.on('error', () => {});
  let down = false;
  let gate: Promise<void> | null = null;
  let refusedCount = 0;
  let waitingCount = 0;
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { connect: (...args: unknown[]) => unknown }).connect = (...args: unknown[]) => {
    const callback = args.find((a) => typeof a === 'function') as ((err: Error) => void) | undefined;
    if (down) {
      refusedCount++;
      const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      if (callback) return void callback(refused);
      return Promise.reject(refused);
    }
    if (!gate) return connect(...args);
    waitingCount++;
    const opened = gate.then(() => connect(...args));
    return callback ? void opened.catch(callback) : opened;
  };
  return {
    pool,
    refuse: (d) => void (down = d),
    hold() {
      let release!: () => void;
      gate = new Promise((r) => (release = r));
      down = false;
      return () => {
        gate = null;
        release();
      };
    },
    refused: () => refusedCount,
    waiting: () => waitingCount,
  };
}

describe('a pool that loses its database', () => {
  it('is replaced once the database answers again, and the job it held is retried, not lost', async () => {
    const { pool: flaky, refuse } = flakyPool();
    const losesDatabase = defineJob({
      name: 'test:losesDatabase',
      payload: z.object({ tag: z.string() }),
      maxAttempts: 3,
      async run(payload, ctx) {
        await record(payload.tag, ctx.attempt === 1 ? 'database lost' : 'done', ctx);
        if (ctx.attempt === 1) {
          // The database goes away under the running job: graphile-worker cannot record the
          // failure, and ends the pool.
          refuse(true);
          throw new Error('lost the database mid-job');
        }
      },
    });
    const id = await enqueue(database.db, losesDatabase, { tag: 'db-lost' });
    const runner = await start([losesDatabase], { pool: flaky, poolRestart: { attempts: 100, delayMs: 50 } });
    await until('the first attempt', async () => (await runs('db-lost')).length > 0);
    // Nothing runs while the database is gone (the failure could not even be recorded).
    await sleep(300);
    expect(await job(id)).toMatchObject({ attempts: 1, lastError: null });
    expect(await runs('db-lost')).toHaveLength(1);
    refuse(false);
    await until('the retry on a new pool', async () => (await runs('db-lost')).some((r) => r.event === 'done'));
    await until('the job to be completed', async () => !(await job(id)));
    expect((await runs('db-lost')).map((r) => [r.event, r.attempt])).toEqual([
      ['database lost', 1],
      ['done', 2],
    ]);
    await runner.stop();
    await expect(runner.done).resolves.toBeUndefined();
    await flaky.end();
  });

  it('gives up after the bounded attempts: done rejects, so the process can exit for its supervisor', async () => {
    const { pool: flaky, refuse } = flakyPool();
    const breaks = defineJob({
      name: 'test:breaksPool',
      payload: z.object({ tag: z.string() }),
      async run(payload, ctx) {
        await record(payload.tag, 'ran', ctx);
        refuse(true); // gone for good
        throw new Error('no database');
      },
    });
    await enqueue(database.db, breaks, { tag: 'gone' });
    const runner = await start([breaks], { pool: flaky, poolRestart: { attempts: 3, delayMs: 20 } });
    await expect(runner.done).rejects.toThrow(/could not be restarted after 3 attempts: connect ECONNREFUSED/);
    refuse(false);
    await flaky.end();
  });
});

describe('stop() while a dead pool is being replaced', () => {
  it('stops the pool the restart was starting: nothing runs after stop(), and done resolves', async () => {
    const flaky = flakyPool();
    const losesDatabase = defineJob({
      name: 'test:losesDatabaseAtStop',
      payload: z.object({ tag: z.string() }),
      async run(payload, ctx) {
        await record(payload.tag, 'ran', ctx);
        if (ctx.attempt === 1) {
          flaky.refuse(true);
          throw new Error('lost the database mid-job');
        }
      },
    });
    await enqueue(database.db, losesDatabase, { tag: 'lost-at-stop' });
    const runner = await start([losesDatabase, recordJob], { pool: flaky.pool, poolRestart: { attempts: 1_000, delayMs: 20 } });
    await until('the first attempt', async () => (await runs('lost-at-stop')).length > 0);
    // The restart is trying: its probes of the database are refused.
    await until('refused restart attempts', async () => flaky.refused() >= 3);
    // The database comes back slowly: the next attempt's connection waits, and stop() comes meanwhile.
    const release = flaky.hold();
    await until('a restart attempt waiting for its connection', async () => flaky.waiting() > 0);
    let stopResolved = false;
    const stopping = runner.stop().then(() => {
      stopResolved = true;
    });
    await sleep(100);
    // stop() waits for the restart under way (it would otherwise miss the pool it starts).
    expect(stopResolved).toBe(false);
    release();
    await stopping;
    await expect(runner.done).resolves.toBeUndefined();

    // No pool of the runner is left: a job queued now is not taken (poll interval 100 ms).
    const after = await enqueue(database.db, recordJob, { tag: 'after-stop' });
    await sleep(500);
    expect(await runs('after-stop')).toEqual([]);
    expect(await job(after)).toMatchObject({ attempts: 0, lockedBy: null });
    expect(await database.db.selectFrom('workerHeartbeats').selectAll().execute()).toEqual([]);
    await flaky.pool.end();
  });
});

describe('graceful stop', () => {
  it('lets the running job finish and takes no new job', async () => {
    const slow = defineJob({
      name: 'test:slow',
      payload: z.object({ tag: z.string() }),
      async run(payload, ctx) {
        await record(payload.tag, 'started', ctx);
        await sleep(300);
        await record(payload.tag, 'done', ctx);
      },
    });
    const firstId = await enqueue(database.db, slow, { tag: 'slow-1' });
    // Two workers: the second one is idle, and would take the next job at once if not stopped.
    const runner = await start([slow], { concurrency: 2 });
    await until('the slow job to start', async () => (await runs('slow-1')).length > 0);

    // Hold the job's row, so that writing its completion must wait: stop() has to wait for that
    // write too, or a process exiting right after stop() would leave a finished job locked.
    const blocker = await database.pool.connect();
    let stopResolved = false;
    let stopping: Promise<void> | undefined;
    let secondId = '';
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM graphile_worker._private_jobs WHERE id = $1 FOR UPDATE', [firstId]);
      stopping = runner.stop().then(() => {
        stopResolved = true;
      });
      secondId = await enqueue(database.db, slow, { tag: 'slow-2' });
      await until('the slow job to finish its work', async () => (await runs('slow-1')).some((r) => r.event === 'done'));
      await sleep(250);
      expect(stopResolved).toBe(false);
    } finally {
      await blocker.query('COMMIT');
      blocker.release();
    }
    await stopping;

    expect((await runs('slow-1')).map((r) => ({ event: r.event, aborted: r.aborted }))).toEqual([
      { event: 'started', aborted: false },
      { event: 'done', aborted: false },
    ]);
    expect(await job(firstId)).toBeUndefined();
    // Give a (wrongly) still running worker time to pick up the second job: poll interval 100 ms.
    await sleep(400);
    expect(await runs('slow-2')).toEqual([]);
    expect(await job(secondId)).toMatchObject({ attempts: 0, lockedBy: null });
    // A stopped pool removes its heartbeat.
    expect(await database.db.selectFrom('workerHeartbeats').selectAll().execute()).toEqual([]);
  });
});

describe('the platform runner', () => {
  it('starts with the platform crontab and jobs, and reports its pool alive until stopped', async () => {
    const runner = await start(maintenanceJobs(database.db), { crontab: PLATFORM_CRONTAB, concurrency: 2 });
    const beats = await until('a heartbeat row', async () => {
      const rows = await database.db.selectFrom('workerHeartbeats').selectAll().execute();
      return rows.length > 0 ? rows : null;
    });
    // One row per pool: graphile-worker 0.17 locks jobs in the pool's name.
    expect(beats).toHaveLength(1);
    expect(beats[0]!.workerId).toMatch(/^pool-/);
    const first = beats[0]!.seenAt.getTime();
    await until('the heartbeat to advance', async () => {
      const row = await database.db.selectFrom('workerHeartbeats').selectAll().executeTakeFirst();
      return row && row.seenAt.getTime() > first;
    });
    // The maintenance job runs on this pool.
    await database.db
      .insertInto('jobFailures')
      .values({ jobId: 'old-1', taskIdentifier: 'x', payload: '{}', attempts: 1, lastError: 'e', failedAt: new Date(Date.now() - 31 * 86_400_000) })
      .execute();
    await enqueue(database.db, maintenanceJobs(database.db)[0]!, {});
    await until('old failure records to be pruned', async () =>
      (await database.db.selectFrom('jobFailures').select('jobId').where('jobId', '=', 'old-1').execute()).length === 0,
    );
    await runner.stop();
    expect(await database.db.selectFrom('workerHeartbeats').selectAll().execute()).toEqual([]);
  });

  it('refuses a dead-worker delay that a live pool could miss', async () => {
    await expect(start([recordJob], { heartbeatMs: 1_000, deadWorkerAfterMs: 1_500 })).rejects.toThrow(/deadWorkerAfterMs/);
  });
});

describe('enqueue options and validation', () => {
  it('dedupes pending jobs by jobKey (the latest payload wins)', async () => {
    const a = await enqueue(database.db, recordJob, { tag: 'key-v1' }, { jobKey: 'dedupe-1' });
    const b = await enqueue(database.db, recordJob, { tag: 'key-v2' }, { jobKey: 'dedupe-1' });
    const other = await enqueue(database.db, recordJob, { tag: 'key-other' }, { jobKey: 'dedupe-2' });
    expect(b).toBe(a);
    expect(other).not.toBe(a);
    const { rows } = await sql<{ key: string; payload: unknown }>`
      SELECT key, payload FROM graphile_worker._private_jobs ORDER BY id`.execute(database.db);
    expect(rows).toEqual([
      { key: 'dedupe-1', payload: { tag: 'key-v2' } },
      { key: 'dedupe-2', payload: { tag: 'key-other' } },
    ]);

    await start([recordJob]);
    await until('the queue to drain', async () => (await pendingJobCount()) === 0);
    expect(await runs('key-v1')).toEqual([]);
    expect(await runs('key-v2')).toHaveLength(1);
    expect(await runs('key-other')).toHaveLength(1);
  });

  it('rejects a bad payload at enqueue time', async () => {
    await expect(enqueue(database.db, recordJob, { tag: 42 } as unknown as { tag: string })).rejects.toBeInstanceOf(z.ZodError);
    await expect(enqueue(database.db, recordJob, {} as { tag: string })).rejects.toThrow(/tag/);
    expect(await pendingJobCount()).toBe(0);
  });
});

describe('failure logging', () => {
  /** Log lines at warn level or above, as JSON objects, from a runner logging into `lines`. */
  function captureLogs() {
    const lines: Array<Record<string, unknown>> = [];
    const capture = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    return { logger: capture, loud: () => lines.filter((l) => (l.level as number) >= 40) };
  }
  const attemptFailed = async (id: string) => until('the first attempt to fail', async () => {
    const j = await job(id);
    return j && j.attempts === 1 && j.lockedBy === null ? j : null;
  });

  it('logs one line per failed attempt, without a stack trace; a failure the job reported itself is not logged again', async () => {
    const offline = defineJob({
      name: 'test:offlineSync',
      payload: z.object({}),
      maxAttempts: 3,
      async run(_p, ctx) {
        ctx.logger.child({ sourceId: 's1' }).warn('source sync failed: fetch failed (getaddrinfo ENOTFOUND attack.mitre.org)');
        throw new TypeError('fetch failed');
      },
    });
    const silent = defineJob({
      name: 'test:silentFailure',
      payload: z.object({}),
      maxAttempts: 3,
      async run() {
        throw new Error('connect ECONNREFUSED 127.0.0.1:9');
      },
    });
    const { logger: capture, loud } = captureLogs();
    const first = await enqueue(database.db, offline, {});
    const second = await enqueue(database.db, silent, {});
    await start([offline, silent], { logger: capture });
    await attemptFailed(first);
    await attemptFailed(second);
    // The job:error listeners run right after the attempt is recorded: wait for their lines.
    const lines = await until('both attempts to be logged', async () => loud().length >= 2 && loud());
    expect(lines.map((l) => l.msg).sort()).toEqual(['job attempt failed, will retry: connect ECONNREFUSED 127.0.0.1:9', 'source sync failed: fetch failed (getaddrinfo ENOTFOUND attack.mitre.org)']);
    for (const line of lines) expect(JSON.stringify(line)).not.toMatch(/\bat .+:\d+:\d+|"stack"/);
    // The line says when the job runs again: graphile-worker's own schedule of the retry.
    const silentLine = lines.find((l) => String(l.msg).startsWith('job attempt failed'))!;
    const { rows } = await sql<{ delay: number }>`
      SELECT extract(epoch FROM run_at - updated_at)::float8 AS delay FROM graphile_worker.jobs WHERE id = ${second}::bigint`.execute(database.db);
    expect(silentLine.retryInSeconds).toBe(3);
    expect(Math.round(rows[0]!.delay)).toBe(silentLine.retryInSeconds);
  });
});
