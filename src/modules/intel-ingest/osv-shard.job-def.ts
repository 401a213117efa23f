import { z } from 'zod';
import type { JobType } from '../../platform/jobs/catalog.js';

/**
 * One shard of a sharded OSV sync (osv-shards.jobs.ts): the sync job's id, the shard's number and
 * where its bytes lie in the export (connectors/osv/osv-shards.connector.ts, `OsvShard`), and
 * the validators the plan saw and its URL's digest (a shard of a changed export, or of a source
 * whose URL changed, fails rather than mixing two exports).
 * Job key `intel-sync-shard:<syncJobId>:<shard>`. Three attempts, as the sync job.
 */
const osvShardPayload = z.object({
  syncJobId: z.uuid(),
  shard: z.number().int().min(0),
  of: z.number().int().min(1),
  size: z.number().int().min(0),
  directoryFrom: z.number().int().min(0),
  directoryTo: z.number().int().min(0),
  from: z.number().int().min(0),
  to: z.number().int().min(0),
  etag: z.string().nullable(),
  lastModified: z.string().nullable(),
  urlDigest: z.string().regex(/^[0-9a-f]{64}$/).optional(),
});

export type OsvShardPayload = z.infer<typeof osvShardPayload> & { syncJobId: string };

export const osvShardJob: JobType<OsvShardPayload> = {
  name: 'intel:syncOsvShard',
  payload: osvShardPayload,
  maxAttempts: 3,
};

export const osvShardJobKey = (syncJobId: string, shard: number) => `intel-sync-shard:${syncJobId}:${shard}`;
