import type { Logger } from 'pino';
import type { Database } from '../../platform/db/database.js';
import { enqueue } from '../../platform/jobs/enqueue.js';
import type { ConnectorLimits, FetchResult, HttpClient, SourceConfig } from './connectors/connector.js';
import { osvShardJob, osvShardJobKey } from './osv-shard.job-def.js';
import { insertShards, shardsPlanned } from './osv-shards.repo.js';

/**
 * The planning half of a sharded OSV sync (the shards' half: osv-shards.jobs.ts), run by the
 * source's sync job (sync.jobs.ts). See osv-shards.jobs.ts for the whole design.
 */

/** Records per shard by default: OSV's npm export (~200,000 records) is 20 shards. */
export const DEFAULT_SHARD_RECORDS = 10_000;

export async function shardsConnector() {
  // Loaded with the first OSV sync, not in the API process (connectors load on demand; docs/performance.md).
  return import('./connectors/osv/osv-shards.connector.js');
}

/**
 * The sync job's OSV path: 'queued' when shards were planned and enqueued (now or by an earlier
 * run of this job), a result in hand (304, or a server that sent the whole export), or null: the
 * connector fetches the export unsharded.
 */
export async function planOsvShardedSync(
  db: Database,
  job: { id: string; organizationId: string; sourceId: string },
  config: SourceConfig,
  state: { etag: string | null; lastModified: string | null; cursor: Record<string, unknown> } | undefined,
  http: HttpClient,
  opts: { shardRecords?: number | undefined; maxInflatedBytes?: number | undefined; settledRecords?: ConnectorLimits['settledRecords'] },
  log: Logger,
): Promise<'queued' | FetchResult | null> {
  if (await shardsPlanned(db, job.id)) return 'queued'; // this job ran before and committed its plan
  const { planOsvSync } = await shardsConnector();
  const plan = await planOsvSync(config, { etag: state?.etag ?? null, lastModified: state?.lastModified ?? null, cursor: state?.cursor ?? {} }, http, {
    shardRecords: opts.shardRecords ?? DEFAULT_SHARD_RECORDS,
    ...(opts.maxInflatedBytes ? { maxInflatedBytes: opts.maxInflatedBytes } : {}),
    ...(opts.settledRecords ? { settledRecords: opts.settledRecords } : {}),
  });
  if (plan.kind === 'unsharded') return null;
  if (plan.kind === 'result') return plan.result;
  await db.transaction().execute(async (tx) => {
    await insertShards(tx, job.id, plan.shards.length);
    for (const shard of plan.shards) await enqueue(tx, osvShardJob, { syncJobId: job.id, ...shard }, { jobKey: osvShardJobKey(job.id, shard.shard) });
  });
  log.info({ shards: plan.shards.length }, 'source sync: OSV export split into shards');
  return 'queued';
}

