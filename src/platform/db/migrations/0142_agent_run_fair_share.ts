import { sql, type Kysely } from 'kysely';

/**
 * Issue 46 (reliability round 3):
 *
 *   agents.max_concurrent_runs   item 3: at most this many runs of the agent hold a worker slot
 *                                at once (null: no limit of its own; the fair share across
 *                                agents still applies, docs/operations.md#agent-run-scheduling)
 *   destination_deliveries_alert_created_uq
 *                                item 4: one `alert.created` delivery per (destination, event),
 *                                the event id being the alert's id, so the sweep that recovers an
 *                                event lost by a crash after its alert's statement never sends it
 *                                twice (delivery/alert-created-sweep.ts)
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agents ADD COLUMN max_concurrent_runs integer CHECK (max_concurrent_runs IS NULL OR max_concurrent_runs > 0)`.execute(db);
  await sql`CREATE UNIQUE INDEX destination_deliveries_alert_created_uq ON destination_deliveries (destination_id, event_id) WHERE event_kind = 'alert.created'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS destination_deliveries_alert_created_uq`.execute(db);
  await sql`ALTER TABLE agents DROP COLUMN IF EXISTS max_concurrent_runs`.execute(db);
}
