import { sql, type Kysely } from 'kysely';

/**
 * Delivery (issue 12): the delivery log becomes a real job queue's ledger.
 *
 * - destination_deliveries no longer cascades from output_destinations: a destination can be
 *   deleted (once no agent uses it) and its delivery history stays readable at
 *   GET /api/output-destinations/{id}/deliveries; the destination's name and type are kept on
 *   each row for that reason. `event_id` is the idempotency id receivers see on every retry
 *   (`webhook-id`, the envelope's `id`); `progress` remembers what a multi-target send (Slack
 *   channels) already delivered so a retry does not post twice.
 * - destination_delivery_attempts: one row per attempt (status, excerpt, timing), which is
 *   also where a destination's health (last status, consecutive failures) is read from:
 *   no hot row updated by every delivery of a busy destination.
 * - output_destinations.event_subscriptions: the event types (e.g. `alert.created`) a
 *   destination receives besides agent output; default none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE destination_deliveries DROP CONSTRAINT IF EXISTS destination_deliveries_destination_id_fkey`.execute(db);
  await sql`
    ALTER TABLE destination_deliveries
      ADD COLUMN event_id uuid,
      ADD COLUMN destination_name text NOT NULL DEFAULT '',
      ADD COLUMN destination_type text NOT NULL DEFAULT '',
      ADD COLUMN progress jsonb NOT NULL DEFAULT '{}'::jsonb,
      ADD COLUMN response_excerpt text,
      ADD COLUMN next_attempt_at timestamptz,
      ADD COLUMN first_attempt_at timestamptz,
      ADD COLUMN last_attempt_at timestamptz,
      ADD COLUMN finished_at timestamptz`.execute(db);
  await sql`UPDATE destination_deliveries SET event_id = id WHERE event_id IS NULL`.execute(db);
  await sql`UPDATE destination_deliveries SET status = 'succeeded' WHERE status = 'delivered'`.execute(db);
  await sql`
    UPDATE destination_deliveries d SET destination_name = o.name, destination_type = o.type
    FROM output_destinations o WHERE o.id = d.destination_id`.execute(db);
  await sql`ALTER TABLE destination_deliveries ALTER COLUMN event_id SET NOT NULL`.execute(db);
  await sql`CREATE INDEX destination_deliveries_org_status_idx ON destination_deliveries (organization_id, status)`.execute(db);

  await sql`
    CREATE TABLE destination_delivery_attempts (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      delivery_id uuid NOT NULL REFERENCES destination_deliveries(id) ON DELETE CASCADE,
      destination_id uuid NOT NULL,
      attempt integer NOT NULL,
      outcome text NOT NULL,
      response_status integer,
      response_excerpt text,
      error text,
      started_at timestamptz NOT NULL,
      duration_ms integer NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX destination_delivery_attempts_dest_idx ON destination_delivery_attempts (destination_id, started_at DESC)`.execute(db);
  await sql`CREATE INDEX destination_delivery_attempts_delivery_idx ON destination_delivery_attempts (delivery_id, attempt)`.execute(db);

  await sql`ALTER TABLE output_destinations ADD COLUMN event_subscriptions text[] NOT NULL DEFAULT '{}'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE output_destinations DROP COLUMN IF EXISTS event_subscriptions`.execute(db);
  await sql`DROP TABLE IF EXISTS destination_delivery_attempts`.execute(db);
  await sql`DROP INDEX IF EXISTS destination_deliveries_org_status_idx`.execute(db);
  await sql`UPDATE destination_deliveries SET status = 'delivered' WHERE status = 'succeeded'`.execute(db);
  await sql`
    ALTER TABLE destination_deliveries
      DROP COLUMN IF EXISTS event_id, DROP COLUMN IF EXISTS destination_name, DROP COLUMN IF EXISTS destination_type,
      DROP COLUMN IF EXISTS progress, DROP COLUMN IF EXISTS response_excerpt, DROP COLUMN IF EXISTS next_attempt_at,
      DROP COLUMN IF EXISTS first_attempt_at, DROP COLUMN IF EXISTS last_attempt_at, DROP COLUMN IF EXISTS finished_at`.execute(db);
  await sql`DELETE FROM destination_deliveries d WHERE NOT EXISTS (SELECT 1 FROM output_destinations o WHERE o.id = d.destination_id)`.execute(db);
  await sql`
    ALTER TABLE destination_deliveries ADD CONSTRAINT destination_deliveries_destination_id_fkey
      FOREIGN KEY (destination_id) REFERENCES output_destinations(id) ON DELETE CASCADE`.execute(db);
}
