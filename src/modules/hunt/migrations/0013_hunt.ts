import { sql, type Kysely } from 'kysely';

/**
 * Hunt: the organization's inventory (assets and their software), sightings reported by log
 * pipelines, CVE threats linked to intel items, their assessment runs, activity, deliverables
 * and the hunt settings. Software rows carry a normalized product key so a full reassessment
 * joins advisories to inventory set-wise on an index instead of comparing names in a loop.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE hunt_assets (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      identifier text NOT NULL,
      kind text NOT NULL DEFAULT 'other',
      platform text,
      internet_facing boolean NOT NULL DEFAULT false,
      criticality text NOT NULL DEFAULT 'medium',
      source text NOT NULL DEFAULT 'api',
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      UNIQUE (organization_id, identifier)
    )`.execute(db);
  await sql`
    CREATE TABLE hunt_asset_software (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      asset_id uuid NOT NULL REFERENCES hunt_assets(id) ON DELETE CASCADE,
      position integer NOT NULL,
      vendor text NOT NULL DEFAULT '',
      product text NOT NULL,
      version text,
      cpe text,
      purl text,
      product_key text NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX hunt_asset_software_asset_idx ON hunt_asset_software (asset_id, position)`.execute(db);
  await sql`CREATE INDEX hunt_asset_software_key_idx ON hunt_asset_software (organization_id, product_key)`.execute(db);
  await sql`
    CREATE TABLE hunt_sightings (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      type text NOT NULL,
      value text NOT NULL,
      normalized_value text NOT NULL,
      source text NOT NULL,
      asset_identifier text,
      observed_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX hunt_sightings_value_idx ON hunt_sightings (organization_id, normalized_value)`.execute(db);
  await sql`
    CREATE TABLE hunt_threats (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      canonical_type text NOT NULL DEFAULT 'vulnerability',
      canonical_key_type text NOT NULL DEFAULT 'cve',
      canonical_key text NOT NULL,
      title text NOT NULL,
      aliases text[] NOT NULL DEFAULT '{}',
      actor_id text,
      relevancy_score integer NOT NULL DEFAULT 0,
      exposure_score integer NOT NULL DEFAULT 0,
      exposure_state text NOT NULL DEFAULT 'not_affected',
      coverage_state text NOT NULL DEFAULT 'none',
      detection_engineering_note text NOT NULL DEFAULT '',
      latest_run_id uuid,
      assessment_running_execution_id uuid,
      latest_alert_id uuid,
      active_hunt_alert_id uuid,
      assessment_failed_at timestamptz,
      dismissed_at timestamptz,
      dismissed_by_user_id uuid,
      dismissed_reason text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      UNIQUE (organization_id, canonical_key)
    )`.execute(db);
  await sql`CREATE INDEX hunt_threats_list_idx ON hunt_threats (organization_id, relevancy_score DESC, id DESC)`.execute(db);
  await sql`
    CREATE TABLE hunt_threat_items (
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      threat_id uuid NOT NULL REFERENCES hunt_threats(id) ON DELETE CASCADE,
      item_id uuid NOT NULL REFERENCES intel_items(id) ON DELETE CASCADE,
      linked_at timestamptz NOT NULL,
      PRIMARY KEY (threat_id, item_id)
    )`.execute(db);
  await sql`CREATE INDEX hunt_threat_items_item_idx ON hunt_threat_items (item_id)`.execute(db);
  await sql`
    CREATE TABLE hunt_threat_runs (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      threat_id uuid NOT NULL REFERENCES hunt_threats(id) ON DELETE CASCADE,
      run_at timestamptz NOT NULL,
      kind text NOT NULL,
      trigger text NOT NULL,
      relevancy_score integer NOT NULL,
      exposure_score integer NOT NULL,
      relevancy_headline text NOT NULL,
      relevancy_explanation jsonb NOT NULL,
      exposure_state text NOT NULL,
      coverage_state text NOT NULL,
      has_found_ioc boolean NOT NULL,
      has_blocking_gap boolean NOT NULL,
      exposure_story jsonb NOT NULL,
      diff jsonb NOT NULL,
      relevancy_execution_id uuid,
      exposure_execution_id uuid
    )`.execute(db);
  await sql`CREATE INDEX hunt_threat_runs_threat_idx ON hunt_threat_runs (threat_id, run_at DESC)`.execute(db);
  await sql`
    CREATE TABLE hunt_activity_events (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      threat_id uuid NOT NULL REFERENCES hunt_threats(id) ON DELETE CASCADE,
      run_id uuid,
      kind text NOT NULL,
      actor_type text NOT NULL,
      metadata jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX hunt_activity_threat_idx ON hunt_activity_events (threat_id, created_at)`.execute(db);
  await sql`
    CREATE TABLE hunt_deliverables (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      threat_id uuid NOT NULL REFERENCES hunt_threats(id) ON DELETE CASCADE,
      execution_id uuid,
      kind text NOT NULL,
      pinning text NOT NULL,
      pinned_iocs jsonb NOT NULL,
      lifecycle_status text NOT NULL,
      intent text NOT NULL,
      target_product text NOT NULL,
      target_log_source text NOT NULL,
      content text NOT NULL,
      superseded_by_id uuid,
      proposal_id uuid,
      pull_request_url text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX hunt_deliverables_threat_idx ON hunt_deliverables (threat_id, created_at)`.execute(db);
  await sql`
    CREATE TABLE hunt_settings (
      organization_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
      minimum_exposure_band text NOT NULL DEFAULT 'high',
      alert_on_compromise_below_threshold boolean NOT NULL DEFAULT true,
      intel_watermark timestamptz,
      updated_at timestamptz NOT NULL
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['hunt_settings', 'hunt_deliverables', 'hunt_activity_events', 'hunt_threat_runs', 'hunt_threat_items', 'hunt_threats', 'hunt_sightings', 'hunt_asset_software', 'hunt_assets']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(t)}`.execute(db);
  }
}
