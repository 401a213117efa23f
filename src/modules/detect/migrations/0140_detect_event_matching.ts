import { sql, type Kysely } from 'kysely';

/**
 * Events in (issue 44): Sigma detections run on events posted to `POST /api/events` or an
 * `events` trigger. A batch is kept only until its matching job has run (the job is enqueued in
 * the batch's transaction and deletes it); events are stored afterwards only as the evidence of
 * a match, a rolling sample per detection. Matches per detection and day feed coverage and the
 * detection page; correlation windows live here so that every worker sees the same window.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE detect_event_batches (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      -- [{"logsource": {...}, "event": {...}}, ...]: each event with the logsource it was declared with.
      events jsonb NOT NULL,
      event_count integer NOT NULL,
      received_at timestamptz NOT NULL,
      trigger_id uuid
    )`.execute(db);
  await sql`CREATE INDEX detect_event_batches_org_idx ON detect_event_batches (organization_id)`.execute(db);

  // The rolling sample: the latest matched events of each detection (older ones are pruned).
  await sql`
    CREATE TABLE detect_matches (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      code_detection_id uuid NOT NULL REFERENCES code_detections (id) ON DELETE CASCADE,
      rule_title text NOT NULL,
      alert_id uuid REFERENCES alerts (id) ON DELETE SET NULL,
      event jsonb NOT NULL,
      matched_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX detect_matches_detection_idx ON detect_matches (code_detection_id, matched_at DESC)`.execute(db);
  await sql`CREATE INDEX detect_matches_org_idx ON detect_matches (organization_id)`.execute(db);
  await sql`CREATE INDEX detect_matches_alert_idx ON detect_matches (alert_id)`.execute(db);

  await sql`
    CREATE TABLE detect_match_days (
      organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      code_detection_id uuid NOT NULL REFERENCES code_detections (id) ON DELETE CASCADE,
      day date NOT NULL,
      matches bigint NOT NULL,
      last_matched_at timestamptz NOT NULL,
      PRIMARY KEY (code_detection_id, day)
    )`.execute(db);
  await sql`CREATE INDEX detect_match_days_org_day_idx ON detect_match_days (organization_id, day)`.execute(db);

  // One row per correlation rule and group-by value: its window's entries (time, rule, event).
  await sql`
    CREATE TABLE detect_correlation_windows (
      code_detection_id uuid NOT NULL REFERENCES code_detections (id) ON DELETE CASCADE,
      organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      correlation text NOT NULL,
      group_key text NOT NULL,
      entries jsonb NOT NULL,
      last_event_at timestamptz NOT NULL,
      PRIMARY KEY (code_detection_id, correlation, group_key)
    )`.execute(db);
  await sql`CREATE INDEX detect_correlation_windows_org_idx ON detect_correlation_windows (organization_id)`.execute(db);
  await sql`CREATE INDEX detect_correlation_windows_last_idx ON detect_correlation_windows (last_event_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE detect_correlation_windows, detect_match_days, detect_matches, detect_event_batches`.execute(db);
}
