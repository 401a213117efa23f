import { z } from 'zod';
import type { JobType } from '../../platform/jobs/catalog.js';

/**
 * One attempt of one delivery. The handler records every outcome itself and enqueues the
 * next attempt on its own schedule (retry.fns.ts), so graphile-worker's own retries only come
 * into play when a worker dies mid-attempt: its job is released and run again, and the
 * receiver sees the same idempotency id.
 */
export const deliveryJob: JobType<{ deliveryId: string }> = {
  name: 'delivery:send',
  payload: z.object({ deliveryId: z.uuid() }),
  maxAttempts: 5,
  // Ahead of agent runs and syncs among due jobs: a run's output leaves as soon as a worker
  // slot frees, not after the run backlog (npm run bench -- delivery-backlog).
  priority: -10,
};

/** One pending job per delivery: a redeliver replaces a scheduled retry instead of adding one. */
export const deliveryJobKey = (deliveryId: string) => `delivery:${deliveryId}`;
