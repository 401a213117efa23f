import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { Logger as WorkerLogger, run, type Runner, type Task, type TaskList, type WorkerEvents } from 'graphile-worker';
import type pg from 'pg';
import type { Logger } from 'pino';
import { sql } from 'kysely';
import type { Database } from '../db/database.js';
import type { JobCatalog, JobDefinition } from './catalog.js';
import { logAttemptFailed, logJobFailed, markReported, reportingLogger } from './failure-logging.js';
import { laneStopping, setLaneMode, type LaneMode } from './lane-modes.fns.js';

declare global {
  namespace GraphileConfig {
    interface Plugins {
      RampartHeartbeatPlugin: true;
    }
  }
}

export interface WorkerRunnerOptions {
  db: Database;
  pool: pg.Pool;
  catalog: JobCatalog;
  logger: Logger;
  concurrency: number;
  /**
   * Slots kept for the job types marked `reservedSlots` (deliveries): a second graphile-worker
   * pool that fetches only those, so they start while every one of the `concurrency` shared
   * slots is busy. 0 (the default): no such pool.
   */
  reservedConcurrency?: number;
  /** How often this pool reports that its workers are alive. */
  heartbeatMs?: number;
  /** A worker silent for this long is presumed dead and its jobs are released for retry. */
  deadWorkerAfterMs?: number;
  pollIntervalMs?: number;
  shutdownGraceMs?: number;
  /** graphile-worker crontab for recurring jobs (the scheduler role). */
  crontab?: string;
  /**
   * graphile-worker's local queue: fetch (and lock) up to this many jobs per query instead of
   * one per worker per job. Off by default; measured with `npm run bench -- delivery`.
   */
  localQueueSize?: number;
  /**
   * A pool that dies on its own (graphile-worker stops a pool that cannot record a job's end,
   * e.g. while the database restarts) is started again once the database answers: this many
   * tries, `delayMs` apart at first, growing to 10 s. Then `done` rejects.
   */
  poolRestart?: { attempts: number; delayMs: number };
}

export interface WorkerRunner {
  stop(): Promise<void>;
  /** Settles when the worker pool ends; rejects if it dies (e.g. a long database outage). */
  done: Promise<void>;
}

/**
 * One graphile-worker pool: `shared` runs every job type; `reserved` only the types marked
 * `reservedSlots` (deliveries), so that they never wait for a shared slot.
 */
interface Lane {
  name: 'shared' | 'reserved';
  /** Where the lane is in its life (lane-modes.fns.ts): changed only through `setMode` in startWorkers, which refuses an illegal transition. */
  mode: LaneMode;
  concurrency: number;
  defs: JobDefinition<unknown>[];
  crontab: string | undefined;
  /** Its live pool; null while a dead pool is being replaced and none has started yet. */
  runner: Runner | null;
  /** The replacement of a dead pool under way (replaceDeadPool): stop() awaits it, so a pool it starts is stopped too. */
  restart: Promise<void> | null;
  /** The pool ids graphile-worker writes into `locked_by` for this lane. */
  lockerIds: Set<string>;
  firstBeat: Promise<void> | null;
  /** Fired at the end of a graceful stop's grace period, or when the pool died. */
  abort: AbortController;
  /** Handlers running now: a dead pool's jobs are released only once these have settled. */
  active: Set<Promise<void>>;
}

function newLane(name: Lane['name'], concurrency: number, defs: JobDefinition<unknown>[], crontab?: string): Lane {
  return { name, mode: 'starting', concurrency, defs, crontab, runner: null, restart: null, lockerIds: new Set(), firstBeat: null, abort: new AbortController(), active: new Set() };
}

// Any constant: only one pool at a time sweeps for dead workers' jobs.
const SWEEP_LOCK_ID = 7_241_305_003;
const DEAD_WORKER_ERROR = 'The worker running this job stopped reporting (crashed or lost) and no attempt is left';

/**
 * Runs the job catalog on graphile-worker. graphile-worker only reclaims the jobs of a worker
 * that died after 4 hours; a heartbeat table shortens that: every pool records that it is
 * alive, and every pool releases the jobs locked by a pool silent for `deadWorkerAfterMs`
 * (default 60 s, RAMPART_DEAD_WORKER_AFTER_SECONDS) so another worker retries them. A job
 * that fails for good, by its own errors or because its worker died on its last attempt, is
 * handed to its type's `onFailed` so what it was doing reaches a final state.
 *
 * Lock owners: graphile-worker 0.17 writes the *pool's* id (`pool-…`) into `locked_by`, not a
 * worker's id, so the pool id is what the heartbeat records and what `force_unlock_workers`
 * gets. It is recorded by a `startWorker` hook, which graphile-worker awaits before a worker's
 * first job fetch: the heartbeat row exists before any lock the pool takes. (Listening to
 * `worker:create` on `runner.events` cannot work: the workers are created inside `run()`,
 * before it returns an emitter to listen on.)
 */
export async function startWorkers(opts: WorkerRunnerOptions): Promise<WorkerRunner> {
  const { db, catalog, logger } = opts;
  const deadAfterMs = opts.deadWorkerAfterMs ?? 60_000;
  const heartbeatMs = opts.heartbeatMs ?? Math.min(10_000, Math.floor(deadAfterMs / 3));
  // A live pool must get at least two beats in before it can be taken for dead.
  if (deadAfterMs < 2 * heartbeatMs) {
    throw new Error(`deadWorkerAfterMs (${deadAfterMs}) must be at least twice heartbeatMs (${heartbeatMs})`);
  }
  const instanceId = randomUUID();
  const lanes = [
    newLane('shared', opts.concurrency, catalog.all(), opts.crontab),
    ...((opts.reservedConcurrency ?? 0) > 0 && catalog.all().some((d) => d.reservedSlots)
      ? [newLane('reserved', opts.reservedConcurrency!, catalog.all().filter((d) => d.reservedSlots))]
      : []),
  ];
  /** The ids graphile-worker writes into `locked_by` for this runner (its pools' ids). */
  const lockerIds = () => lanes.flatMap((l) => [...l.lockerIds]);

  function taskList(lane: Lane): TaskList {
    const tasks: TaskList = {};
    for (const def of lane.defs) {
      const task: Task = async (rawPayload, helpers) => {
        const payload = def.payload.parse(rawPayload);
        let reportedByJob = false;
        const running = def.run(payload, {
          jobId: helpers.job.id,
          attempt: helpers.job.attempts,
          maxAttempts: helpers.job.max_attempts,
          logger: reportingLogger(logger.child({ job: def.name, jobId: helpers.job.id, attempt: helpers.job.attempts }), () => {
            reportedByJob = true;
          }),
          signal: lane.abort.signal,
        });
        const settled = running.then(
          () => {},
          () => {},
        );
        lane.active.add(settled);
        try {
          await running;
        } catch (err) {
          if (reportedByJob) markReported(err);
          throw err;
        } finally {
          lane.active.delete(settled);
        }
      };
      tasks[def.name] = task;
    }
    return tasks;
  }

  /** The beat being written: stop() awaits it, or it could land after stop() deleted the row. */
  let beating: Promise<void> = Promise.resolve();
  function beat(): Promise<void> {
    beating = writeBeat();
    return beating;
  }

  async function writeBeat(): Promise<void> {
    const ids = lockerIds();
    if (ids.length === 0) return;
    // seen_at is the database's clock, the same clock as graphile-worker's locked_at.
    await db
      .insertInto('workerHeartbeats')
      .values(ids.map((workerId) => ({ workerId, poolId: instanceId, deadAfterMs })))
      .onConflict((oc) => oc.column('workerId').doUpdateSet({ seenAt: sql<Date>`now()`, poolId: instanceId, deadAfterMs }))
      .execute()
      .catch((err) => logger.warn({ err }, 'worker heartbeat failed'));
  }

  /** The heartbeat row of a lane's pool exists before its first job fetch (and any lock it takes). */
  function heartbeatPlugin(lane: Lane): GraphileConfig.Plugin {
    return {
      name: 'RampartHeartbeatPlugin',
      version: '1.0.0',
      worker: {
        hooks: {
          async startWorker(_ctx, { worker }) {
            lane.lockerIds.add(worker.workerPool.id);
            await (lane.firstBeat ??= beat());
          },
        },
      },
    };
  }

  // Passed to run() so that listeners exist before the pool and its workers are created.
  const events: WorkerEvents = new EventEmitter();
  events.on('job:error', ({ job, error }) => logAttemptFailed(logger, job, error));
  events.on('job:failed', ({ job, error }) => {
    logJobFailed(logger, job, error);
    const lastError = error instanceof Error ? error.message : String(error);
    recordFailure({ jobId: job.id, taskIdentifier: job.task_identifier, payload: job.payload, attempts: job.attempts, lastError }).catch((err) =>
      logger.error({ err, jobId: job.id }, 'could not record job failure'),
    );
    void failedForGood(job.task_identifier, job.id, job.payload, lastError);
  });

  /** The job type's own end of a job that failed for good (a run ends `error`); logged, never thrown. */
  async function failedForGood(taskIdentifier: string, jobId: string, rawPayload: unknown, reason: string): Promise<void> {
    const def = catalog.get(taskIdentifier);
    if (!def?.onFailed) return;
    try {
      await def.onFailed(def.payload.parse(rawPayload), reason);
    } catch (err) {
      logger.warn({ err, job: taskIdentifier, jobId }, 'could not end the work of a failed job (its module\'s sweep will)');
    }
  }

  async function recordFailure(f: { jobId: string; taskIdentifier: string; payload: unknown; attempts: number; lastError: string }, q = db) {
    await q
      .insertInto('jobFailures')
      .values({ ...f, payload: JSON.stringify(f.payload ?? null) })
      .onConflict((oc) =>
        oc.column('jobId').doUpdateSet((eb) => ({ lastError: eb.ref('excluded.lastError'), attempts: eb.ref('excluded.attempts'), failedAt: sql<Date>`now()` })),
      )
      .execute();
  }

  /**
   * Releases the jobs locked for longer than `deadAfterMs` by a pool without a fresh heartbeat
   * (its row went stale, or it never wrote one). A released job with attempts left is retried
   * at once; one without is left failed with a reason, like any other terminal failure.
   */
  async function releaseDeadWorkers(): Promise<void> {
    try {
      const released = await db.transaction().execute(async (tx) => {
        const { rows: lock } = await sql<{ ok: boolean }>`SELECT pg_try_advisory_xact_lock(${SWEEP_LOCK_ID}) AS ok`.execute(tx);
        if (!lock[0]?.ok) return null;
        const deadAfter = sql`make_interval(secs => ${deadAfterMs / 1000})`;
        // A pool is stale after the longer of our delay and its own: with different settings
        // (a rolling change), a pool that beats less often is not taken for dead.
        await tx
          .deleteFrom('workerHeartbeats')
          .where('seenAt', '<', sql<Date>`now() - make_interval(secs => greatest(${deadAfterMs}, dead_after_ms) / 1000.0)`)
          .execute();
        const { rows: orphans } = await sql<{ id: string; lockedBy: string; taskIdentifier: string; attempts: number; maxAttempts: number }>`
          SELECT j.id::text AS id, j.locked_by, j.task_identifier, j.attempts, j.max_attempts
          FROM graphile_worker.jobs j
          WHERE j.locked_by IS NOT NULL
            AND j.locked_at < now() - ${deadAfter}
            AND NOT EXISTS (SELECT 1 FROM worker_heartbeats h WHERE h.worker_id = j.locked_by)`.execute(tx);
        if (orphans.length === 0) return { orphans, failed: [] };
        const lockers = [...new Set(orphans.map((o) => o.lockedBy))];
        await sql`SELECT graphile_worker.force_unlock_workers(${lockers}::text[])`.execute(tx);
        const exhausted = orphans.filter((o) => o.attempts >= o.maxAttempts);
        const failed: Array<{ id: string; payload: unknown; attempts: number; taskIdentifier: string }> = [];
        if (exhausted.length > 0) {
          const { rows } = await sql<{ id: string; payload: unknown; attempts: number }>`
            SELECT id::text AS id, payload, attempts
            FROM graphile_worker.permanently_fail_jobs(${exhausted.map((o) => o.id)}::bigint[], ${DEAD_WORKER_ERROR})`.execute(tx);
          for (const f of rows) {
            const taskIdentifier = exhausted.find((o) => o.id === f.id)?.taskIdentifier ?? 'unknown';
            await recordFailure({ jobId: f.id, taskIdentifier, payload: f.payload, attempts: f.attempts, lastError: DEAD_WORKER_ERROR }, tx);
            failed.push({ ...f, taskIdentifier });
          }
        }
        return { orphans, failed };
      });
      if (!released || released.orphans.length === 0) return;
      for (const f of released.failed) await failedForGood(f.taskIdentifier, f.id, f.payload, DEAD_WORKER_ERROR);
      for (const o of released.orphans) {
        const retried = o.attempts < o.maxAttempts;
        const entry = { job: o.taskIdentifier, jobId: o.id, attempts: o.attempts, deadWorker: o.lockedBy };
        if (retried) logger.warn(entry, 'released the job of a worker that stopped reporting; it will be retried');
        else logger.error(entry, 'job failed permanently: its worker stopped reporting and no attempt is left');
      }
    } catch (err) {
      logger.warn({ err }, 'dead worker sweep failed');
    }
  }

  /** The flags every job type of the lane asks to skip now (JobDefinition.skipFlags): asked before each fetch. */
  function forbiddenFlags(lane: Lane): (() => Promise<string[]>) | undefined {
    const askers = lane.defs.filter((d) => d.skipFlags);
    if (askers.length === 0) return undefined;
    let warned = false;
    return async () => {
      const lists = await Promise.all(
        askers.map((d) =>
          d.skipFlags!().catch((err: unknown) => {
            // A fetch must not fail for it: nothing skipped (FIFO) until it answers again.
            if (!warned) logger.warn({ err, job: d.name }, 'could not tell which jobs to skip; taking them in order');
            warned = true;
            return [] as readonly string[];
          }),
        ),
      );
      return lists.flat();
    };
  }

  const launch = (lane: Lane): Promise<Runner> =>
    run({
      pgPool: opts.pool,
      concurrency: lane.concurrency,
      noHandleSignals: true,
      pollInterval: opts.pollIntervalMs ?? 2_000,
      taskList: taskList(lane),
      forbiddenFlags: forbiddenFlags(lane) ?? null,
      events,
      preset: {
        plugins: [heartbeatPlugin(lane)],
        worker: {
          // Unbatched (the default, -1), graphile-worker 0.17 writes a job's completion or failure
          // without awaiting it, and stop() can resolve before it lands: a process exiting then
          // leaves a finished job locked, to run again once its pool is presumed dead. Batched
          // writes (delay 0: same tick) are flushed by the pool's shutdown before stop() resolves.
          completeJobBatchDelay: 0,
          failJobBatchDelay: 0,
          ...(opts.localQueueSize ? { localQueue: { size: opts.localQueueSize } } : {}),
        },
      },
      ...(lane.crontab ? { crontab: lane.crontab } : {}),
      logger: new WorkerLogger((scope) => (level, message, meta) => {
        // graphile-worker's "Failed task … with error …: <stack>" repeats what the job:error and
        // job:failed listeners log (failure-logging.ts), stack included: debug, first line only.
        if (meta?.failure) return logger.debug({ ...scope }, message.split('\n', 1)[0]);
        const fn = level === 'error' ? 'error' : level === 'warning' ? 'warn' : 'debug';
        logger[fn]({ ...scope, ...meta }, message);
      }),
    });

  /** Every change of a lane's mode: asserted (an illegal one throws) and logged. */
  const setMode = (lane: Lane, to: LaneMode) => setLaneMode(lane, to, (change) => logger.debug(change, 'worker lane mode'));

  for (const lane of lanes) {
    lane.runner = await launch(lane);
    setMode(lane, 'running');
  }
  /** Set by stop(): wakes a restart waiting between attempts, so stop() does not wait out its delay. */
  const stopRequested = new AbortController();
  let resolveDone!: () => void;
  let rejectDone!: (err: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    resolveDone = resolve;
    rejectDone = reject;
  });
  // main.ts exits on a rejection; tests that never look at `done` must not see it unhandled.
  done.catch(() => {});

  /** A transition the table refuses is a bug in this runner: reported through `done` (the process exits), never an unhandled rejection. */
  function runnerBug(err: unknown): void {
    logger.error({ err }, 'worker runner bug: its pools are in an unexpected state');
    rejectDone(err instanceof Error ? err : new Error(String(err)));
  }

  /**
   * graphile-worker ends a pool that cannot write a job's completion or failure (its batch gives
   * up at once while the database is down) and then resolves its promise as if all were well:
   * the process would go on with no worker at all and the job locked by the dead pool. So a
   * pool that ends without our stop() is replaced: its handlers are told to stop and awaited,
   * its locks are released (it is ours and certainly dead, no need to wait for the heartbeat
   * to go stale) and a new pool starts, once the database answers again. stop() arriving
   * meanwhile ends the attempts; a pool that was starting at that moment is stopped by stop().
   */
  async function replaceDeadPool(lane: Lane, err: unknown): Promise<void> {
    setMode(lane, 'replacing');
    lane.runner = null;
    const dead = [...lane.lockerIds];
    lane.lockerIds.clear();
    lane.firstBeat = null; // the new pool's id is recorded before its first fetch, like the first one's
    lane.abort.abort();
    lane.abort = new AbortController();
    logger.error({ err, pools: dead, lane: lane.name }, 'the worker pool stopped unexpectedly (database lost?); starting a new one once the database answers');
    await Promise.allSettled([...lane.active]);
    const { attempts, delayMs } = opts.poolRestart ?? { attempts: 60, delayMs: 500 };
    let wait = delayMs;
    let last: unknown = err;
    for (let attempt = 1; attempt <= attempts && !laneStopping(lane); attempt++) {
      await delay(wait, undefined, { signal: stopRequested.signal }).catch(() => {});
      wait = Math.min(wait * 2, 10_000);
      if (laneStopping(lane)) return;
      try {
        await opts.pool.query('SELECT 1'); // the database the workers use answers again
        if (dead.length) await sql`SELECT graphile_worker.force_unlock_workers(${dead}::text[])`.execute(db);
        lane.runner = await launch(lane);
        watch(lane);
        // stop() came while the pool started: the lane stays `stopping`, and stop() stops this pool.
        if (laneStopping(lane)) return;
        setMode(lane, 'running');
        logger.warn({ attempt, released: dead }, 'worker pool restarted; the jobs the dead pool held are retried');
        return;
      } catch (e) {
        last = e;
        logger.warn({ attempt, attempts, err: e }, 'worker pool restart failed; trying again');
      }
    }
    if (laneStopping(lane)) return;
    setMode(lane, 'failed');
    rejectDone(new Error(`the worker pool could not be restarted after ${attempts} attempts: ${last instanceof Error ? last.message : String(last)}`));
  }

  /** `done` resolves once every lane's pool has ended after stop() (a failed lane has rejected it already). */
  function laneEnded(lane: Lane): void {
    setMode(lane, 'stopped');
    if (lanes.every((l) => l.mode === 'stopped' || l.mode === 'failed')) resolveDone();
  }

  /** A pool's end: the lane's, after stop(); otherwise a death, and the pool is replaced. */
  function watch(lane: Lane): void {
    const runner = lane.runner!;
    const ended = (err: unknown) => {
      // Only the lane's current pool ends it (a dead pool's end has been handled already).
      if (lane.runner !== runner) return;
      try {
        if (laneStopping(lane)) return laneEnded(lane);
        const restart: Promise<void> = replaceDeadPool(lane, err)
          .catch(runnerBug)
          .finally(() => {
            // A later restart (the new pool died at once) is the one stop() must await now.
            if (lane.restart === restart) lane.restart = null;
          });
        lane.restart = restart;
      } catch (bug) {
        runnerBug(bug);
      }
    };
    runner.promise.then(
      () => ended(new Error('the pool ended without being stopped')),
      (err: unknown) => ended(err),
    );
  }
  for (const lane of lanes) watch(lane);

  const heartbeat = setInterval(() => void beat(), heartbeatMs);
  const sweeper = setInterval(() => void releaseDeadWorkers(), Math.max(500, Math.floor(deadAfterMs / 2)));
  heartbeat.unref();
  sweeper.unref();
  void releaseDeadWorkers();

  /** Ends a lane that stop() reached: its restart settled first, then its pool (if any) stopped; its end moves it to `stopped` (watch). */
  async function stopLane(lane: Lane): Promise<void> {
    await lane.restart;
    const runner = lane.runner;
    if (!runner) return laneEnded(lane); // a restart that started no pool: nothing left to stop
    await runner.stop().catch((err) => logger.warn({ err, lane: lane.name }, 'worker stop failed'));
  }

  let stopped: Promise<void> | null = null;
  return {
    done,
    stop() {
      stopped ??= (async () => {
        const stopping = lanes.filter((l) => l.mode === 'running' || l.mode === 'replacing');
        for (const lane of stopping) setMode(lane, 'stopping');
        stopRequested.abort();
        // Graceful: no new jobs are taken and running jobs may finish; after the grace period
        // their signal fires so long handlers stop (and are retried later). The heartbeat goes
        // on meanwhile, or another pool would take the still-running jobs for orphans.
        const current = lanes.map((l) => l.abort);
        const graceMs = opts.shutdownGraceMs ?? 10_000;
        const grace = setTimeout(() => {
          logger.info({ graceMs, running: lanes.reduce((n, l) => n + l.active.size, 0) }, 'shutdown grace over: signalling the running jobs to stop');
          current.forEach((a) => a.abort());
        }, graceMs);
        await Promise.all(stopping.map((l) => stopLane(l)));
        clearTimeout(grace);
        clearInterval(heartbeat);
        clearInterval(sweeper);
        await beating;
        await db.deleteFrom('workerHeartbeats').where('poolId', '=', instanceId).execute().catch(() => {});
        resolveDone();
      })();
      return stopped;
    },
  };
}
