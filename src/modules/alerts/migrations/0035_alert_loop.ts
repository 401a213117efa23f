import { sql, type Kysely } from 'kysely';

/**
 * Issue 26 (the alert loop):
 * - a run knows the alert it triages (`alert_id`, and its display id, which never changes, so
 *   the run API answers it without reading the alerts module's table);
 * - a trigger may opt into triage routing (`route_alerts`, off: its alerts go to its own agent);
 * - a delivery id may be remembered without a run (the delivery was counted on an open alert, or
 *   its alert was routed and nobody triages it): `run_id` is the run that really exists, or null;
 * - an alert opened by a signal whose dedupe key matched only closed alerts records the latest
 *   of them (`duplicate_of_alert_id`: it recurs); the index finds it without scanning.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agent_runs ADD COLUMN alert_id uuid, ADD COLUMN alert_display_id text`.execute(db);
  await sql`ALTER TABLE agent_triggers ADD COLUMN route_alerts boolean NOT NULL DEFAULT false`.execute(db);
  await sql`ALTER TABLE trigger_deliveries ALTER COLUMN run_id DROP NOT NULL`.execute(db);
  await sql`ALTER TABLE alerts ADD COLUMN duplicate_of_alert_id uuid`.execute(db);
  await sql`CREATE INDEX alerts_org_dedupe_idx ON alerts (organization_id, dedupe_key, number DESC) WHERE dedupe_key IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS alerts_org_dedupe_idx`.execute(db);
  await sql`ALTER TABLE alerts DROP COLUMN IF EXISTS duplicate_of_alert_id`.execute(db);
  await sql`DELETE FROM trigger_deliveries WHERE run_id IS NULL`.execute(db);
  await sql`ALTER TABLE trigger_deliveries ALTER COLUMN run_id SET NOT NULL`.execute(db);
  await sql`ALTER TABLE agent_triggers DROP COLUMN IF EXISTS route_alerts`.execute(db);
  await sql`ALTER TABLE agent_runs DROP COLUMN IF EXISTS alert_display_id, DROP COLUMN IF EXISTS alert_id`.execute(db);
}
