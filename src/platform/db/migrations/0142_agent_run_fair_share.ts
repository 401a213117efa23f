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
 *                                twice (alerts/alert-event-recovery.ts)
 *   intel_attack_rollup_add/remove
 *                                item 5: take a transaction-scoped advisory lock per organization
 *                                before changing its ATT&CK rollup rows. Each statement changes the
 *                                rows in key order, but two transactions writing items that name the
 *                                same techniques in different statements (two syncs) locked them in
 *                                opposite orders and deadlocked. Now the second waits for the first
 *                                to commit. The functions of migration 0115 are kept under
 *                                `…_unlocked` names and wrapped: the triggers call them by name.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agents ADD COLUMN max_concurrent_runs integer CHECK (max_concurrent_runs IS NULL OR max_concurrent_runs > 0)`.execute(db);
  await sql`CREATE UNIQUE INDEX destination_deliveries_alert_created_uq ON destination_deliveries (destination_id, event_id) WHERE event_kind = 'alert.created'`.execute(db);
  await sql`
    CREATE FUNCTION intel_attack_rollup_lock(facts intel_attack_fact[]) RETURNS void LANGUAGE sql AS $$
      SELECT count(pg_advisory_xact_lock(hashtextextended('rampart:intel-attack-rollups:' || o.organization_id::text, 0)))
      FROM (SELECT DISTINCT f.organization_id FROM unnest(facts) f ORDER BY 1) o
    $$`.execute(db);
  for (const fn of ['add', 'remove']) {
    await sql.raw(`ALTER FUNCTION intel_attack_rollup_${fn}(intel_attack_fact[]) RENAME TO intel_attack_rollup_${fn}_unlocked`).execute(db);
    await sql
      .raw(
        `CREATE FUNCTION intel_attack_rollup_${fn}(facts intel_attack_fact[]) RETURNS void LANGUAGE plpgsql AS $$
        BEGIN
          IF cardinality(facts) = 0 THEN RETURN; END IF;
          PERFORM intel_attack_rollup_lock(facts);
          PERFORM intel_attack_rollup_${fn}_unlocked(facts);
        END $$`,
      )
      .execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const fn of ['add', 'remove']) {
    await sql.raw(`DROP FUNCTION IF EXISTS intel_attack_rollup_${fn}(intel_attack_fact[])`).execute(db);
    await sql.raw(`ALTER FUNCTION intel_attack_rollup_${fn}_unlocked(intel_attack_fact[]) RENAME TO intel_attack_rollup_${fn}`).execute(db);
  }
  await sql`DROP FUNCTION IF EXISTS intel_attack_rollup_lock(intel_attack_fact[])`.execute(db);
  await sql`DROP INDEX IF EXISTS destination_deliveries_alert_created_uq`.execute(db);
  await sql`ALTER TABLE agents DROP COLUMN IF EXISTS max_concurrent_runs`.execute(db);
}
