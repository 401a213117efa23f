import { sql, type Kysely } from 'kysely';

/**
 * A sharded OSV sync (issue 50 item 5): the sync job that plans the shards writes one row per
 * shard, in the transaction that enqueues the shards' jobs; each shard marks its row when its
 * records are stored, and the one that finds every row done records the sync's outcome. The
 * rows go with their sync job (intel's intel_sync_jobs, ON DELETE CASCADE).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE intel_sync_shards (
      sync_job_id uuid NOT NULL REFERENCES intel_sync_jobs(id) ON DELETE CASCADE,
      shard integer NOT NULL CHECK (shard >= 0),
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded')),
      stats jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (sync_job_id, shard)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE intel_sync_shards`.execute(db);
}
