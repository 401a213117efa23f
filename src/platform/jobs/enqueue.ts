import { sql } from 'kysely';
import type { Queryable } from '../db/database.js';
import type { JobType } from './catalog.js';

export interface EnqueueOptions {
  /** At most one pending job per key: enqueuing again replaces the pending one's payload. */
  jobKey?: string;
  runAt?: Date;
  priority?: number;
}

/**
 * Enqueue a job in the caller's transaction (or connection): if the transaction rolls back, the
 * job never existed. Returns graphile-worker's job id.
 */
export async function enqueue<P>(
  db: Queryable,
  job: JobType<P>,
  payload: P,
  opts: EnqueueOptions = {},
): Promise<string> {
  const { rows } = await sql<{ id: string }>`SELECT (${addJobCall(job, payload, opts)}).id::text AS id`.execute(db);
  return rows[0]!.id;
}

/**
 * The `graphile_worker.add_job(…)` call (its value: the job row) as a fragment, for a statement
 * that writes a row and enqueues its job in one round trip (e.g. `WITH r AS (INSERT … RETURNING
 * id) SELECT (add_job(…)).id FROM r`): on a hot path, each round trip costs more CPU than the
 * statement it carries. The payload is checked here as in `enqueue`.
 */
export function addJobCall<P>(job: JobType<P>, payload: P, opts: EnqueueOptions = {}) {
  const checked = job.payload.parse(payload);
  return sql<unknown>`graphile_worker.add_job(
      identifier => ${job.name},
      payload => ${JSON.stringify(checked)}::json,
      max_attempts => ${job.maxAttempts ?? 5},
      job_key => ${opts.jobKey ?? null},
      run_at => ${opts.runAt ?? null},
      priority => ${opts.priority ?? null}
    )`;
}
