import { sql, type Kysely } from 'kysely';

/**
 * Alerts (the API contract's alert fields): work items with a per-organization display number (a sequence per
 * organization, created with its first alert: alerts.repo.ts), a timeline, dedupe by
 * key among alerts that are not closed, code detections that report hits, and the triage
 * routing settings (the alert triage routes). Triggers gain `create_alert` (null: the source's default) and an
 * optional alert field mapping.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE code_detections (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name text NOT NULL,
      rule_id text,
      description text NOT NULL DEFAULT '',
      severity text NOT NULL CHECK (severity IN ('low', 'medium', 'high', 'critical')),
      log_source text,
      log_stream text,
      query text,
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX code_detections_org_idx ON code_detections (organization_id, created_at, id)`.execute(db);

  await sql`
    CREATE TABLE alerts (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      number bigint NOT NULL,
      title text NOT NULL,
      description text NOT NULL DEFAULT '',
      severity text NOT NULL CHECK (severity IN ('low', 'medium', 'high', 'critical')),
      status text NOT NULL CHECK (status IN ('open', 'in_progress', 'escalated', 'closed_true_positive', 'closed_false_positive', 'closed_benign')),
      duplicate_count integer NOT NULL DEFAULT 1,
      source_category text NOT NULL,
      source_name text NOT NULL,
      trigger_type text,
      created_by text NOT NULL,
      created_by_user_id uuid,
      code_detection_id uuid REFERENCES code_detections(id) ON DELETE SET NULL,
      origin_code_detection_hit_id uuid,
      origin_agent_id uuid,
      origin_trigger_id uuid,
      origin_run_id uuid,
      assigned_agent_id uuid REFERENCES agents(id) ON DELETE SET NULL,
      triage_run_id uuid,
      external_provider text,
      external_ref text,
      external_url text,
      dedupe_key text,
      payload jsonb NOT NULL DEFAULT 'null'::jsonb,
      routing jsonb,
      routing_depth integer NOT NULL DEFAULT 0,
      hunt_qualified_by text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      first_triaged_at timestamptz,
      resolved_at timestamptz,
      resolved_by_type text CHECK (resolved_by_type IN ('human', 'agent')),
      resolved_by_user_id uuid,
      resolved_by_agent_name text,
      resolved_reason text,
      UNIQUE (organization_id, number)
    )`.execute(db);
  // One alert that is not closed per dedupe key: the index both finds the alert a new signal
  // duplicates and makes two identical signals at once land on one row (ON CONFLICT).
  await sql`
    CREATE UNIQUE INDEX alerts_open_dedupe_idx ON alerts (organization_id, dedupe_key)
    WHERE dedupe_key IS NOT NULL AND status IN ('open', 'in_progress', 'escalated')`.execute(db);
  await sql`CREATE INDEX alerts_org_created_idx ON alerts (organization_id, created_at DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX alerts_org_status_idx ON alerts (organization_id, status, created_at DESC)`.execute(db);
  await sql`CREATE INDEX alerts_triage_run_idx ON alerts (triage_run_id) WHERE triage_run_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX alerts_origin_run_idx ON alerts (origin_run_id) WHERE origin_run_id IS NOT NULL`.execute(db);
  await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
  // `search` is a substring match over these fields; a trigram index keeps it fast at 100k alerts.
  await sql`
    CREATE INDEX alerts_search_idx ON alerts USING gin (
      (lower(title || ' ' || description || ' ' || coalesce(external_ref, '') || ' ' || source_name)) gin_trgm_ops
    )`.execute(db);

  await sql`
    CREATE TABLE alert_timeline (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      alert_id uuid NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
      kind text NOT NULL,
      actor_type text NOT NULL CHECK (actor_type IN ('human', 'agent', 'system')),
      actor_user_id uuid,
      actor_agent_id uuid,
      run_id uuid,
      body text NOT NULL DEFAULT '',
      data jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX alert_timeline_alert_idx ON alert_timeline (alert_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX alert_timeline_run_idx ON alert_timeline (run_id) WHERE run_id IS NOT NULL`.execute(db);

  await sql`
    CREATE TABLE alert_routing (
      organization_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
      routes jsonb NOT NULL DEFAULT '[]'::jsonb,
      default_response_agent_id uuid REFERENCES agents(id) ON DELETE SET NULL,
      hunt_response_agent_id uuid REFERENCES agents(id) ON DELETE SET NULL,
      updated_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);

  // Triage runs (an alert routed or assigned to its response agent) are a run mode of their own.
  await sql`ALTER TABLE agent_runs DROP CONSTRAINT agent_runs_mode_check`.execute(db);
  await sql`ALTER TABLE agent_runs ADD CONSTRAINT agent_runs_mode_check CHECK (mode IN ('sync', 'async', 'trigger', 'cron', 'triage'))`.execute(db);
  await sql`ALTER TABLE agent_triggers ADD COLUMN create_alert boolean`.execute(db);
  await sql`ALTER TABLE agent_triggers ADD COLUMN alert_mapping jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agent_triggers DROP COLUMN IF EXISTS alert_mapping`.execute(db);
  await sql`ALTER TABLE agent_triggers DROP COLUMN IF EXISTS create_alert`.execute(db);
  await sql`DELETE FROM agent_runs WHERE mode = 'triage'`.execute(db);
  await sql`ALTER TABLE agent_runs DROP CONSTRAINT agent_runs_mode_check`.execute(db);
  await sql`ALTER TABLE agent_runs ADD CONSTRAINT agent_runs_mode_check CHECK (mode IN ('sync', 'async', 'trigger', 'cron'))`.execute(db);
  await sql`DROP TABLE IF EXISTS alert_routing, alert_timeline, alerts, code_detections`.execute(db);
  await sql`
    DO $$ DECLARE r record; BEGIN
      FOR r IN SELECT sequencename FROM pg_sequences WHERE sequencename LIKE 'alert_numbers_%' LOOP
        EXECUTE format('DROP SEQUENCE %I', r.sequencename);
      END LOOP;
    END $$`.execute(db);
}
