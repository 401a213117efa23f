import { sql, type RawBuilder } from 'kysely';
import type { Queryable } from '../db/database.js';
import type { JobType } from './catalog.js';

export interface EnqueueOptions {
  /** At most one pending job per key: enqueuing again replaces the pending one's payload. */
  jobKey?: string;
  runAt?: Date;
  priority?: number;
  /**
   * graphile-worker flags of the job: a worker skips the jobs whose flags its job types ask it to
   * skip at a fetch (`JobDefinition.skipFlags`; an agent's runs while it has its share of slots).
   * Values, or an SQL `text[]` expression over the caller's statement.
   */
  flags?: readonly string[] | RawBuilder<unknown>;
}

function flagsSql(flags: EnqueueOptions['flags']): RawBuilder<unknown> {
  if (!flags) return sql`NULL`;
  return Array.isArray(flags) ? sql`${flags}::text[]` : (flags as RawBuilder<unknown>);
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
  const { rows } = await sql<{ id: string }>`SELECT id::text AS id FROM ${addJobs(job, payload, opts)}`.execute(db);
  return rows[0]?.id ?? '';
}

/**
 * graphile-worker's `add_jobs` for one job, as a FROM item yielding the job row (with a key: a
 * waiting job with it is updated in place; a RUNNING one loses the key and its retries and a new
 * job is added, so work that arrives while it runs gets a run of its own), so that a
 * statement can write a row and enqueue its job in one round trip (`WITH r AS (INSERT … RETURNING
 * id) SELECT j.id FROM r, <addJobs> j`): on a hot path each round trip costs more CPU than the
 * statement it carries. `add_jobs` directly, not `add_job` (which wraps it in a second PL/pgSQL
 * call: ~30% of the enqueue's time in PostgreSQL, measured with pg_stat_statements).
 */
export function addJobs<P>(job: JobType<P>, payload: P, opts: EnqueueOptions = {}) {
  return addJobsOfJson(job, JSON.stringify(job.payload.parse(payload)), opts);
}

/**
 * `addJobs` with the payload already as JSON text and not checked again: for a prepared
 * statement (platform/db/prepared.ts), whose payload and job key are parameters, and whose
 * caller builds a payload the schema accepts by construction (a run id written to a uuid column
 * in the same statement).
 */
export function addJobsOfJson(job: Pick<JobType<unknown>, 'name' | 'maxAttempts' | 'priority'>, payloadJson: string, opts: EnqueueOptions = {}) {
  return sql<unknown>`graphile_worker.add_jobs(ARRAY[ROW(
      ${job.name},
      ${payloadJson}::json,
      NULL,
      ${opts.runAt ?? null}::timestamptz,
      ${job.maxAttempts ?? 5}::smallint,
      ${opts.jobKey ?? null}::text,
      ${opts.priority ?? job.priority ?? null}::smallint,
      ${flagsSql(opts.flags)}::text[]
    )::graphile_worker.job_spec])`;
}

/**
 * graphile-worker's `add_jobs` for one job per row of `from` (a relation of the caller's
 * statement, e.g. a CTE of rows just inserted), as a FROM item yielding the jobs: ONE call for
 * all of them, where `add_jobs`' task and queue upserts, its key-clearing UPDATE and its NOTIFY are
 * paid once (group commit). `payload` (json) and `jobKey` are expressions over `from`'s row. No
 * call at all when `from` is empty (an empty `add_jobs` would still notify).
 */
export function addJobsOfRows(
  job: Pick<JobType<unknown>, 'name' | 'maxAttempts' | 'priority'>,
  rows: { from: RawBuilder<unknown>; payload: RawBuilder<unknown>; jobKey: RawBuilder<unknown>; flags?: RawBuilder<unknown> },
) {
  return sql<unknown>`(
    SELECT j.* FROM (SELECT ARRAY(SELECT ROW(
        ${job.name}::text,
        ${rows.payload},
        NULL::text,
        NULL::timestamptz,
        ${job.maxAttempts ?? 5}::smallint,
        ${rows.jobKey},
        ${job.priority ?? null}::smallint,
        ${rows.flags ?? sql`NULL`}::text[]
      )::graphile_worker.job_spec FROM ${rows.from}) AS specs) AS s,
    LATERAL graphile_worker.add_jobs(s.specs) AS j
    WHERE cardinality(s.specs) > 0
  )`;
}
