import { sql, type Kysely } from 'kysely';

/**
 * Issue 35: the dead-worker delay is configurable (RAMPART_DEAD_WORKER_AFTER_SECONDS). Each
 * pool records its own with its heartbeat, and a pool's heartbeat is taken for stale only
 * after the longer of the sweeper's delay and its own: workers started with different values
 * (a rolling change) never take a slower-beating pool for dead.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE worker_heartbeats ADD COLUMN dead_after_ms integer NOT NULL DEFAULT 60000`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE worker_heartbeats DROP COLUMN IF EXISTS dead_after_ms`.execute(db);
}
