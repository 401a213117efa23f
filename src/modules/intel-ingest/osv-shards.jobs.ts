import type { Logger } from 'pino';
import { redactSecrets } from '../../platform/outbound/url-secrets.js';
import type { Database, Queryable } from '../../platform/db/database.js';
import { defineJob, type JobDefinition } from '../../platform/jobs/catalog.js';
import type { SecretBox } from '../../platform/secrets.js';
import type { HttpClient } from './connectors/connector.js';
import { failSyncOfDeletedSource, findSourceState, findSyncedSource, findSyncJob, holdsRecordsOf, loadAttackCatalog, recordSyncFailure, recordSyncSuccess } from '../intel/index.js';
import { osvShardJob, type OsvShardPayload } from './osv-shard.job-def.js';
import { completeShard, shardSucceeded } from './osv-shards.repo.js';
import { shardsConnector } from './osv-shards.queue.js';
import { isTransient, logSyncFailure, sourceConfig, userMessage } from './sync.jobs.js';
import { createEntryWriter, type SyncCounts } from './sync.writes.js';

/**
 * A sharded OSV sync (issue 50 item 5; docs/intel.md, "Sharded OSV sync"). The source's sync job
 * plans: it reads the export's zip directory by HTTP Range requests and cuts it into shards of
 * about `osvShardRecords` records (RAMPART_OSV_SHARD_RECORDS), then writes one row per shard and
 * enqueues one job per shard in the same transaction. Any worker takes a shard: it downloads only
 * its members' bytes and stores them as the unsharded sync does (sync.writes.ts). The source's
 * state (validators, lastStatus) and the sync job's outcome are recorded by the shard that
 * completes last, in the transaction that marks it done; a shard's error is recorded on the
 * source as an unsharded sync's is (a transient one is retried: its items upsert, so what its
 * failed attempt stored is found unchanged; a shard done is never run again).
 *
 * Why ranges of the one export rather than OSV's per-ecosystem exports: a source is one URL (one
 * ecosystem's all.zip, or the whole of OSV's), and a mirror serves the same layout; ranges split
 * whatever the source points at, into shards of the size the deployment chooses, with no list of
 * ecosystems to keep.
 */

/** The shard job: store this shard's records; the last shard to finish records the sync's outcome. */
export function createOsvShardJob(deps: { db: Database; secrets: SecretBox; http: HttpClient; logger: Logger; enqueueEnrichment?: (tx: Queryable, itemIds: string[]) => Promise<void> }): JobDefinition<OsvShardPayload> {
  const { db } = deps;
  return defineJob({
    ...osvShardJob,
    async run(shard, ctx) {
      const job = await findSyncJob(db, shard.syncJobId);
      // A sync already failed (another shard's final error) or done: nothing more to store.
      if (!job || job.status === 'succeeded' || job.status === 'failed') return;
      if (await shardSucceeded(db, shard.syncJobId, shard.shard)) return;
      const source = await findSyncedSource(db, job.sourceId);
      if (!source) {
        await failSyncOfDeletedSource(db, job.id);
        return;
      }
      const config = sourceConfig(source, deps.secrets);
      const target = { organizationId: job.organizationId, sourceId: source.id, sourceLabel: source.displayName };
      const log = ctx.logger.child({ sourceId: source.id, organizationId: job.organizationId, shard: shard.shard, of: shard.of });
      let writer: ReturnType<typeof createEntryWriter> | undefined;
      let dispose: (() => Promise<void>) | undefined;
      try {
        const http: HttpClient = { request: (url, init) => deps.http.request(url, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, ctx.signal]) : ctx.signal }) };
        const { osvShardRecords } = await shardsConnector();
        const { osvEntryBatches } = await import('./connectors/osv/osv.connector.js');
        const read = await osvShardRecords(config, shard, http);
        dispose = read.dispose;
        writer = createEntryWriter(deps, target, await loadAttackCatalog(db), log);
        // A re-sync asks the store per batch which records it holds unchanged (skipped unbuilt); a first sync asks nothing.
        const settled = (await holdsRecordsOf(db, target)) ? writer.settledRecords : undefined;
        for await (const batch of osvEntryBatches(read.records, config, settled)) await writer.store(batch);
        await writer.settle();
        const counts = writer.counts;
        const outcome = await db.transaction().execute(async (tx) => {
          const shards = await completeShard(tx, shard.syncJobId, shard.shard, counts);
          if (shards.some((s) => s.status !== 'succeeded')) return null;
          const stats = { ...sum(shards.map((s) => s.stats)), shards: shards.length };
          const current = await findSyncJob(tx, shard.syncJobId);
          if (!current || current.status === 'succeeded' || current.status === 'failed') return null;
          const state = await findSourceState(tx, job.organizationId, job.sourceId);
          await recordSyncSuccess(tx, job, { status: 'ok', etag: shard.etag, lastModified: shard.lastModified }, state, stats);
          return stats;
        });
        log.info({ ...counts }, 'source sync: shard stored');
        if (outcome) log.info({ ...outcome, status: 'ok' }, 'source synced');
      } catch (err) {
        await writer?.settleAll();
        const message = redactSecrets(userMessage(err));
        const retry = isTransient(err) && ctx.attempt < ctx.maxAttempts;
        await db.transaction().execute((tx) => recordSyncFailure(tx, job, message, retry, new Date()));
        logSyncFailure(log, err, message, retry, ctx);
        if (retry) throw err;
      } finally {
        await dispose?.().catch((err) => log.warn({ err }, "could not delete the shard's download"));
      }
    },
    /** The worker died on the last attempt: the sync fails with the reason, as a final error would. */
    async onFailed(shard, reason) {
      const job = await findSyncJob(db, shard.syncJobId);
      if (!job || job.status === 'succeeded' || job.status === 'failed') return;
      await db.transaction().execute((tx) => recordSyncFailure(tx, job, redactSecrets(`A shard of the sync did not finish: ${reason}`), false, new Date()));
    },
  });
}

function sum(all: Array<Record<string, number> | null>): SyncCounts {
  const total: SyncCounts = { fetched: 0, created: 0, updated: 0, unchanged: 0 };
  for (const s of all) for (const k of Object.keys(total) as Array<keyof SyncCounts>) total[k] += s?.[k] ?? 0;
  return total;
}
