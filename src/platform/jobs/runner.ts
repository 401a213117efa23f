import { randomUUID } from 'node:crypto';
import { Logger as WorkerLogger, run, type Runner, type Task, type TaskList } from 'graphile-worker';
import type pg from 'pg';
import type { Logger } from 'pino';
import { sql } from 'kysely';
import type { Database } from '../db/database.js';
import type { JobCatalog } from './catalog.js';

export interface WorkerRunnerOptions {
  db: Database;
  pool: pg.Pool;
  catalog: JobCatalog;
  logger: Logger;
  concurrency: number;
  /** How often this pool reports that its workers are alive. */
  heartbeatMs?: number;
  /** A worker silent for this long is presumed dead and its jobs are released for retry. */
  deadWorkerAfterMs?: number;
  pollIntervalMs?: number;
  shutdownGraceMs?: number;
  /** graphile-worker crontab for recurring jobs (the scheduler role). */
  crontab?: string;
}

export interface WorkerRunner {
  stop(): Promise<void>;
}

/**
 * Runs the job catalog on graphile-worker. graphile-worker only reclaims the jobs of a worker
 * that died after 4 hours; a heartbeat table shortens that: every pool records its workers'
 * liveness, and every pool releases the jobs of workers silent for `deadWorkerAfterMs`
 * (default 60 s) so another worker retries them.
 */
export async function startWorkers(opts: WorkerRunnerOptions): Promise<WorkerRunner> {
  const { db, catalog, logger } = opts;
  const heartbeatMs = opts.heartbeatMs ?? 10_000;
  const deadAfterMs = opts.deadWorkerAfterMs ?? 60_000;
  const poolId = randomUUID();
  const abort = new AbortController();
  const workerIds = new Set<string>();

  const taskList: TaskList = {};
  for (const def of catalog.all()) {
    const task: Task = async (rawPayload, helpers) => {
      const payload = def.payload.parse(rawPayload);
      await def.run(payload, {
        jobId: helpers.job.id,
        attempt: helpers.job.attempts,
        maxAttempts: helpers.job.max_attempts,
        logger: logger.child({ job: def.name, jobId: helpers.job.id, attempt: helpers.job.attempts }),
        signal: abort.signal,
      });
    };
    taskList[def.name] = task;
  }

  const runner: Runner = await run({
    pgPool: opts.pool,
    concurrency: opts.concurrency,
    noHandleSignals: true,
    pollInterval: opts.pollIntervalMs ?? 2_000,
    taskList,
    ...(opts.crontab ? { crontab: opts.crontab } : {}),
    logger: new WorkerLogger((scope) => (level, message, meta) => {
      const fn = level === 'error' ? 'error' : level === 'warning' ? 'warn' : 'debug';
      logger[fn]({ ...scope, ...meta }, message);
    }),
  });

  runner.events.on('worker:create', ({ worker }) => {
    workerIds.add(worker.workerId);
    void beat();
  });
  runner.events.on('job:error', ({ job, error }) => {
    logger.warn({ job: job.task_identifier, jobId: job.id, attempt: job.attempts, err: error }, 'job attempt failed');
  });
  runner.events.on('job:failed', ({ job, error }) => {
    logger.error({ job: job.task_identifier, jobId: job.id, attempts: job.attempts, err: error }, 'job failed permanently');
    db.insertInto('jobFailures')
      .values({
        jobId: job.id,
        taskIdentifier: job.task_identifier,
        payload: JSON.stringify(job.payload ?? null),
        attempts: job.attempts,
        lastError: error instanceof Error ? error.message : String(error),
      })
      .onConflict((oc) => oc.column('jobId').doUpdateSet((eb) => ({ lastError: eb.ref('excluded.lastError'), failedAt: new Date() })))
      .execute()
      .catch((err) => logger.error({ err }, 'could not record job failure'));
  });

  async function beat(): Promise<void> {
    if (workerIds.size === 0) return;
    const rows = [...workerIds].map((workerId) => ({ workerId, poolId, seenAt: new Date() }));
    await db
      .insertInto('workerHeartbeats')
      .values(rows)
      .onConflict((oc) => oc.column('workerId').doUpdateSet({ seenAt: new Date() }))
      .execute()
      .catch((err) => logger.warn({ err }, 'worker heartbeat failed'));
  }

  async function releaseDeadWorkers(): Promise<void> {
    try {
      const dead = await db
        .deleteFrom('workerHeartbeats')
        .where('seenAt', '<', sql<Date>`now() - make_interval(secs => ${deadAfterMs / 1000})`)
        .returning('workerId')
        .execute();
      if (dead.length === 0) return;
      const ids = dead.map((d) => d.workerId);
      await sql`SELECT graphile_worker.force_unlock_workers(${ids}::text[])`.execute(db);
      logger.warn({ workerIds: ids }, 'released the jobs of workers that stopped reporting');
    } catch (err) {
      logger.warn({ err }, 'dead worker sweep failed');
    }
  }

  const heartbeat = setInterval(() => void beat(), heartbeatMs);
  const sweeper = setInterval(() => void releaseDeadWorkers(), Math.max(1_000, Math.floor(deadAfterMs / 2)));
  heartbeat.unref();
  sweeper.unref();
  void releaseDeadWorkers();

  let stopped: Promise<void> | null = null;
  return {
    stop() {
      stopped ??= (async () => {
        clearInterval(heartbeat);
        clearInterval(sweeper);
        // Graceful: no new jobs are taken and running jobs may finish; after the grace period
        // their signal fires so long handlers stop (and are retried later).
        const grace = setTimeout(() => abort.abort(), opts.shutdownGraceMs ?? 10_000);
        await runner.stop().catch((err) => logger.warn({ err }, 'worker stop failed'));
        clearTimeout(grace);
        await db.deleteFrom('workerHeartbeats').where('poolId', '=', poolId).execute().catch(() => {});
      })();
      return stopped;
    },
  };
}
