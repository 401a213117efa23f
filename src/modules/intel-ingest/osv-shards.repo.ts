import type { Queryable } from '../../platform/db/database.js';
import type { SyncCounts } from './sync.writes.js';
import './intel-ingest.tables.js';

/** A sharded sync's shard rows (osv-shards.jobs.ts), one function per query. */

/** Whether this sync's shards were planned already (a re-run of the planning job leaves them be). */
export async function shardsPlanned(db: Queryable, syncJobId: string): Promise<boolean> {
  return (await db.selectFrom('intelSyncShards').select('shard').where('syncJobId', '=', syncJobId).limit(1).executeTakeFirst()) !== undefined;
}

export async function insertShards(tx: Queryable, syncJobId: string, count: number): Promise<void> {
  await tx
    .insertInto('intelSyncShards')
    .values(Array.from({ length: count }, (_, shard) => ({ syncJobId, shard, status: 'pending' as const })))
    .onConflict((oc) => oc.columns(['syncJobId', 'shard']).doNothing())
    .execute();
}

export async function shardSucceeded(db: Queryable, syncJobId: string, shard: number): Promise<boolean> {
  const row = await db.selectFrom('intelSyncShards').select('status').where('syncJobId', '=', syncJobId).where('shard', '=', shard).executeTakeFirst();
  return row?.status === 'succeeded';
}

/**
 * Marks the shard done and answers every shard's row as now committed. The rows are locked in
 * shard order first: two shards finishing at once take turns, and the second sees the first's
 * row done (READ COMMITTED re-reads a locked row), so exactly one of them sees all done.
 */
export async function completeShard(tx: Queryable, syncJobId: string, shard: number, counts: SyncCounts): Promise<Array<{ status: 'pending' | 'succeeded'; stats: Record<string, number> | null }>> {
  await tx.selectFrom('intelSyncShards').select('shard').where('syncJobId', '=', syncJobId).orderBy('shard').forUpdate().execute();
  await tx.updateTable('intelSyncShards').set({ status: 'succeeded', stats: JSON.stringify(counts), updatedAt: new Date() }).where('syncJobId', '=', syncJobId).where('shard', '=', shard).execute();
  return tx.selectFrom('intelSyncShards').select(['status', 'stats']).where('syncJobId', '=', syncJobId).orderBy('shard').execute();
}
