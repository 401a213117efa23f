import { z } from 'zod';
import type { JobType } from '../../../platform/jobs/catalog.js';

/**
 * The sync job's type (name, payload, attempts). Its handler lives in sync.jobs.ts; services
 * enqueue with this alone. Payload: the sync job row's id only; the handler reads the rest.
 * Three attempts: a transient outage is retried with backoff, then the next scheduled sync
 * tries again anyway.
 */
export const syncSourceJob: JobType<{ syncJobId: string }> = {
  name: 'intel:syncSource',
  payload: z.object({ syncJobId: z.uuid() }),
  maxAttempts: 3,
};
