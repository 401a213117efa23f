import { z } from 'zod';
import type { JobType } from '../../../platform/jobs/catalog.js';

/** Enrich a batch of stored items (ids only; the handler reads the rows). */
export const processItemsJob: JobType<{ itemIds: string[] }> = {
  name: 'intel:processItems',
  payload: z.object({ itemIds: z.array(z.uuid()).min(1).max(200) }),
  maxAttempts: 5,
};

export const PROCESS_BATCH = 100;
