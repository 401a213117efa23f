import type { Logger } from 'pino';
import { retryDelaySeconds } from './retry-delay.js';

/**
 * How failed job attempts are logged: one line per failure, without a stack trace each time.
 * A transient failure (a feed unreachable while offline) repeats with every retry; its stack
 * says nothing new. A job that already logged a warning or an error during the attempt has
 * said what went wrong (e.g. a source sync names the source and the redacted reason): the
 * runner's own note of that attempt is then a debug line. Only a permanent failure the job did
 * not report itself is logged with the error object (and its stack), once.
 */

const reported = new WeakSet<object>();

/** The job's logger, noting (through `onReport`) when the job logs at warn level or above; children too. */
export function reportingLogger(base: Logger, onReport: () => void): Logger {
  return new Proxy(base, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      if (prop === 'warn' || prop === 'error' || prop === 'fatal') {
        return (...args: unknown[]) => {
          onReport();
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      if (prop === 'child') return (...args: unknown[]) => reportingLogger((value as (...a: unknown[]) => Logger).apply(target, args), onReport);
      return value;
    },
  });
}

/** Marks an error the job logged before throwing it. */
export function markReported(err: unknown): void {
  if (err !== null && typeof err === 'object') reported.add(err);
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function logAttemptFailed(logger: Logger, job: { task_identifier: string; id: string; attempts: number; max_attempts: number }, err: unknown): void {
  if (job.attempts >= job.max_attempts) return; // the last one: logJobFailed says it
  const fields = { job: job.task_identifier, jobId: job.id, attempt: job.attempts, maxAttempts: job.max_attempts };
  if (err !== null && typeof err === 'object' && reported.has(err)) logger.debug(fields, `job attempt failed (reported by the job): ${messageOf(err)}`);
  else logger.warn({ ...fields, errorName: err instanceof Error ? err.name : typeof err, retryInSeconds: retryDelaySeconds(job.attempts) }, `job attempt failed, will retry: ${messageOf(err)}`);
}

export function logJobFailed(logger: Logger, job: { task_identifier: string; id: string; attempts: number }, err: unknown): void {
  const fields = { job: job.task_identifier, jobId: job.id, attempts: job.attempts };
  if (err !== null && typeof err === 'object' && reported.has(err)) logger.error(fields, `job failed permanently: ${messageOf(err)}`);
  else logger.error({ ...fields, err }, 'job failed permanently');
}
