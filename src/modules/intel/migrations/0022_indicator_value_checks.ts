import { sql, type Kysely } from 'kysely';

/**
 * A hunt check belongs to the value, not to the mention (issue 18 item 7). Before, each
 * intel_indicators row (one per item that mentions a value) had its own status and its own
 * checks: after a second article named the same address, /iocs showed one `found` and one
 * `unchecked` row for it, and deleting the first item deleted the check history with it.
 *
 * - intel_indicator_values holds one row per checked (organization, type, normalized value):
 *   its status (the outcome of the most recent check by checked_at) and last_checked_at.
 * - intel_indicator_checks belong to that value (value_id, NOT NULL), recorded once whatever the
 *   number of mentions; indicator_id keeps the mention the check was recorded through, set to
 *   NULL when that mention goes (its item deleted or re-enriched without it): history stays.
 * - intel_indicators.status / last_checked_at stay as a copy on every mention, so /iocs keeps
 *   filtering and counting on its indexes (and intel_indicator_search, migration 0006) without a
 *   join. Recording a check updates every mention of the value (IocsService.recordCheck); a
 *   mention inserted later takes the value's status from this migration's trigger, whoever
 *   inserts it (statement-level, one join of the inserted rows against the checked values:
 *   nothing to do, and nearly nothing spent, for values never checked).
 *   One window is left open on purpose: a mention inserted by a sync transaction while a check
 *   of the same value is being recorded, both uncommitted, sees neither the other's value row
 *   nor is seen by its UPDATE, and stays `unchecked` until the value's next check. Closing it
 *   would take a lock per indicator on every sync; a check is a rare, human-paced event.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE intel_indicator_values (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      type text NOT NULL,
      normalized_value text NOT NULL,
      status text NOT NULL CHECK (status IN ('found', 'clean', 'unknown')),
      last_checked_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, type, normalized_value)
    )`.execute(db);

  // The values checked so far, each with the outcome of its most recent check.
  await sql`
    INSERT INTO intel_indicator_values (id, organization_id, type, normalized_value, status, last_checked_at)
    SELECT DISTINCT ON (i.organization_id, i.type, i.normalized_value)
           gen_random_uuid(), i.organization_id, i.type, i.normalized_value, c.outcome, c.checked_at
    FROM intel_indicator_checks c JOIN intel_indicators i ON i.id = c.indicator_id
    ORDER BY i.organization_id, i.type, i.normalized_value, c.checked_at DESC, c.created_at DESC`.execute(db);

  await sql`ALTER TABLE intel_indicator_checks ADD COLUMN value_id uuid REFERENCES intel_indicator_values(id) ON DELETE CASCADE`.execute(db);
  await sql`
    UPDATE intel_indicator_checks c SET value_id = v.id
    FROM intel_indicators i JOIN intel_indicator_values v
      ON v.organization_id = i.organization_id AND v.type = i.type AND v.normalized_value = i.normalized_value
    WHERE i.id = c.indicator_id`.execute(db);
  await sql`ALTER TABLE intel_indicator_checks ALTER COLUMN value_id SET NOT NULL`.execute(db);
  await sql`ALTER TABLE intel_indicator_checks ALTER COLUMN indicator_id DROP NOT NULL`.execute(db);
  await sql`ALTER TABLE intel_indicator_checks DROP CONSTRAINT intel_indicator_checks_indicator_id_fkey`.execute(db);
  await sql`ALTER TABLE intel_indicator_checks ADD CONSTRAINT intel_indicator_checks_indicator_id_fkey FOREIGN KEY (indicator_id) REFERENCES intel_indicators(id) ON DELETE SET NULL`.execute(db);
  await sql`DROP INDEX IF EXISTS intel_indicator_checks_indicator_idx`.execute(db);
  await sql`CREATE INDEX intel_indicator_checks_value_idx ON intel_indicator_checks (value_id, checked_at DESC)`.execute(db);
  // ON DELETE SET NULL looks up the checks of each deleted mention.
  await sql`CREATE INDEX intel_indicator_checks_indicator_idx ON intel_indicator_checks (indicator_id) WHERE indicator_id IS NOT NULL`.execute(db);

  // Every mention of a checked value shows the value's status.
  await sql`
    UPDATE intel_indicators d SET status = v.status, last_checked_at = v.last_checked_at
    FROM intel_indicator_values v
    WHERE v.organization_id = d.organization_id AND v.type = d.type AND v.normalized_value = d.normalized_value
      AND (d.status, d.last_checked_at) IS DISTINCT FROM (v.status, v.last_checked_at)`.execute(db);

  await sql`
    CREATE FUNCTION intel_indicators_inherit_value_status() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE intel_indicators d SET status = v.status, last_checked_at = v.last_checked_at
      FROM new_rows n JOIN intel_indicator_values v
        ON v.organization_id = n.organization_id AND v.type = n.type AND v.normalized_value = n.normalized_value
      WHERE d.id = n.id AND (d.status, d.last_checked_at) IS DISTINCT FROM (v.status, v.last_checked_at);
      RETURN NULL;
    END $$`.execute(db);
  // Triggers of one event fire in name order: this one must come after
  // intel_indicators_search_insert (migration 0006), so that its UPDATE finds the search copy's
  // rows to correct ('values' sorts after 'search').
  await sql`
    CREATE TRIGGER intel_indicators_values_status AFTER INSERT ON intel_indicators
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION intel_indicators_inherit_value_status()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS intel_indicators_values_status ON intel_indicators`.execute(db);
  await sql`DROP FUNCTION IF EXISTS intel_indicators_inherit_value_status()`.execute(db);
  // Checks whose mention is gone cannot be tied to a row again.
  await sql`DELETE FROM intel_indicator_checks WHERE indicator_id IS NULL`.execute(db);
  await sql`DROP INDEX IF EXISTS intel_indicator_checks_indicator_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS intel_indicator_checks_value_idx`.execute(db);
  await sql`ALTER TABLE intel_indicator_checks DROP CONSTRAINT intel_indicator_checks_indicator_id_fkey`.execute(db);
  await sql`ALTER TABLE intel_indicator_checks ADD CONSTRAINT intel_indicator_checks_indicator_id_fkey FOREIGN KEY (indicator_id) REFERENCES intel_indicators(id) ON DELETE CASCADE`.execute(db);
  await sql`ALTER TABLE intel_indicator_checks ALTER COLUMN indicator_id SET NOT NULL`.execute(db);
  await sql`CREATE INDEX intel_indicator_checks_indicator_idx ON intel_indicator_checks (indicator_id, checked_at DESC)`.execute(db);
  await sql`ALTER TABLE intel_indicator_checks DROP COLUMN value_id`.execute(db);
  await sql`DROP TABLE IF EXISTS intel_indicator_values`.execute(db);
}
