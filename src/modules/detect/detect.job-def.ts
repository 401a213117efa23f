import { z } from 'zod';
import type { JobType } from '../../platform/jobs/catalog.js';

/**
 * Drains an organization's waiting event batches: claims them a few at a time (`FOR UPDATE SKIP
 * LOCKED`), matches them against its detections and deletes them, until none remain. Enqueued with
 * the batch under one job key per organization (`drainKeyOf`), so a burst of N batches is one
 * pending job, not N (graphile-worker replaces a pending job with the same key, and starts a new
 * one when the keyed job is already running: a batch stored during a drain is never stranded).
 * Runs in the worker's reserved lane (`reservedSlots`, docs/operations.md#worker-lanes).
 */
export const drainEventsJob: JobType<{ organizationId: string }> & { reservedSlots: true } = {
  name: 'detect:drain-events',
  payload: z.object({ organizationId: z.uuid() }),
  maxAttempts: 10,
  priority: -5,
  reservedSlots: true,
};

/** The one pending drain job of an organization. */
export const drainKeyOf = (organizationId: string): string => `detect:drain:${organizationId}`;

/**
 * One batch's matching job, as enqueued before the per-organization drain (migration-free upgrade):
 * such a job, still queued when the new version starts, drains its batch's organization.
 */
export const matchEventsJob: JobType<{ batchId: string }> = {
  name: 'detect:match-events',
  payload: z.object({ batchId: z.uuid() }),
  maxAttempts: 5,
};
