import type { ColumnType } from 'kysely';
import type { Timestamp } from '../../platform/db/schema.js';

/**
 * The intel-ingest module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    intelSyncShards: IntelSyncShardsTable;
  }
}

/** One shard of a sharded OSV sync (osv-shards.jobs.ts): the sync completes when every shard has. */
export interface IntelSyncShardsTable {
  syncJobId: string;
  shard: number;
  status: 'pending' | 'succeeded';
  /** The shard's counts once it succeeded (fetched, created, updated, unchanged). */
  stats: ColumnType<Record<string, number> | null, string | null | undefined, string | null>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}
