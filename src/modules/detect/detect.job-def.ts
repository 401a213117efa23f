import { z } from 'zod';
import type { JobType } from '../../platform/jobs/catalog.js';

/** One accepted batch of events matched against its organization's detections (then deleted). */
export const matchEventsJob: JobType<{ batchId: string }> = {
  name: 'detect:match-events',
  payload: z.object({ batchId: z.uuid() }),
  maxAttempts: 5,
};
