import { z } from 'zod';
import { sql } from 'kysely';
import type { Database } from '../db/database.js';
import { defineJob } from './catalog.js';

/** Housekeeping: keep terminal-failure records for 30 days. Runs daily (see scheduler). */
export function maintenanceJobs(db: Database) {
  return [
    defineJob({
      name: 'platform:pruneJobFailures',
      payload: z.object({}).passthrough(),
      maxAttempts: 3,
      async run(_payload, ctx) {
        const res = await db.deleteFrom('jobFailures').where('failedAt', '<', sql<Date>`now() - interval '30 days'`).executeTakeFirst();
        ctx.logger.info({ deleted: Number(res.numDeletedRows) }, 'pruned old job failure records');
      },
    }),
  ];
}

/** graphile-worker crontab lines for recurring platform jobs. */
export const PLATFORM_CRONTAB = '17 3 * * * platform:pruneJobFailures';
