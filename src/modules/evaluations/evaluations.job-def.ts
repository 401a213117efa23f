import { z } from 'zod';
import type { JobType } from '../../platform/jobs/catalog.js';

/** The judge of a real run's acceptance criteria (queued on `run.ended` in the run's transaction). */
export const judgeRunJob: JobType<{ runId: string; organizationId: string }> = {
  name: 'evaluations:judge-run',
  payload: z.object({ runId: z.uuid(), organizationId: z.uuid() }),
  maxAttempts: 3,
};

/** The judge of an evaluation case's criteria (queued when the case's run ends). */
export const judgeCaseJob: JobType<{ resultId: string }> = {
  name: 'evaluations:judge-case',
  payload: z.object({ resultId: z.uuid() }),
  maxAttempts: 3,
};
