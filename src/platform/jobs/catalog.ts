import type { Logger } from 'pino';
import type { z } from 'zod';

/**
 * A job type: a name, the payload schema (ids only: the handler re-reads state, so a retry
 * sees the current truth), its attempt budget and its handler. Handlers must be idempotent:
 * a job can run again after a crash, or after a failure half-way.
 */
export interface JobContext {
  jobId: string;
  attempt: number;
  maxAttempts: number;
  logger: Logger;
  /** Fires when the worker is shutting down; long handlers should stop early and throw. */
  signal: AbortSignal;
}

export interface JobDefinition<P = unknown> {
  name: string;
  /**
   * graphile-worker priority of every job of this type (default 0): among due jobs, lower runs
   * first. A short job that must leave fast (a delivery) is not queued behind long ones (runs).
   */
  priority?: number;
  payload: z.ZodType<P>;
  /**
   * Jobs of this type also have worker slots of their own (the runner's `reservedConcurrency`,
   * RAMPART_DELIVERY_CONCURRENCY) that no other type can take: a short job that must leave
   * promptly (a delivery, event matching) does not wait for a slot while every shared slot runs a long job (a
   * model call of minutes). They still use free shared slots too.
   */
  reservedSlots?: boolean;
  /**
   * Asked before each job fetch of the shared slots: the graphile-worker flags (`EnqueueOptions.flags`)
   * of this type's jobs not to take now. The agent run's fair scheduling: the runs of an agent
   * that has its share of slots, or its own limit, wait while other agents' runs start.
   * Must answer fast (cache); an error counts as nothing to skip.
   */
  skipFlags?(): Promise<readonly string[]>;
  /** Attempts before the job is left failed (visible in metrics and `job_failures`). Default 5. */
  maxAttempts?: number;
  run(payload: P, ctx: JobContext): Promise<void>;
  /**
   * Called once the job has failed for good (attempts used up, or its worker died on the last
   * one), with the reason: the place to move what the job was doing to a final state (a run
   * ends `error`). Best effort: when it cannot run (the database is down), the owning module's
   * own sweep must catch up.
   */
  onFailed?(payload: P, reason: string): Promise<void>;
}

/** What enqueueing needs: a job's name, payload schema, attempt budget and priority (not its handler). */
export type JobType<P> = Pick<JobDefinition<P>, 'name' | 'payload' | 'maxAttempts' | 'priority'>;

export function defineJob<P>(def: JobDefinition<P>): JobDefinition<P> {
  return def;
}

/** Jobs are registered by modules; a name may be registered once. */
export class JobCatalog {
  private readonly jobs = new Map<string, JobDefinition<unknown>>();

  register(...defs: JobDefinition<any>[]): this {
    for (const def of defs) {
      // graphile-worker task identifiers: letters, digits, `_`, `-`, `:` and `/`.
      if (!/^[_a-zA-Z][_a-zA-Z0-9:/-]*$/.test(def.name)) throw new Error(`Invalid job name ${def.name}`);
      if (this.jobs.has(def.name)) throw new Error(`Job ${def.name} is registered twice`);
      this.jobs.set(def.name, def as JobDefinition<unknown>);
    }
    return this;
  }

  get(name: string): JobDefinition<unknown> | undefined {
    return this.jobs.get(name);
  }

  all(): JobDefinition<unknown>[] {
    return [...this.jobs.values()];
  }
}
