import { sql, type Kysely } from 'kysely';

/** Intel sources (built-in and custom), per-organization subscription state, sync jobs, items. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE intel_sources (
      id uuid PRIMARY KEY,
      organization_id uuid REFERENCES organizations(id) ON DELETE CASCADE,
      builtin_key text UNIQUE,
      name text NOT NULL,
      display_name text NOT NULL,
      description text NOT NULL DEFAULT '',
      kind text NOT NULL CHECK (kind IN ('rss', 'api')),
      api_type text CHECK (api_type IN ('misp', 'misp_feed', 'taxii')),
      feed_url text,
      server_url text,
      collection_id text,
      auth_type text CHECK (auth_type IN ('bearer', 'basic', 'header')),
      username text,
      api_key_ciphertext text,
      source_enabled boolean NOT NULL DEFAULT true,
      schedule_cron text NOT NULL,
      max_entries integer NOT NULL,
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((organization_id IS NULL) = (builtin_key IS NOT NULL))
    )`.execute(db);
  await sql`CREATE INDEX intel_sources_org_idx ON intel_sources (organization_id, created_at)`.execute(db);

  // Per (organization, source): subscription, last sync outcome, conditional-GET validators and
  // the incremental cursor, and when the scheduler should sync next.
  await sql`
    CREATE TABLE intel_source_states (
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      source_id uuid NOT NULL REFERENCES intel_sources(id) ON DELETE CASCADE,
      subscription_enabled boolean NOT NULL DEFAULT true,
      last_fetched_at timestamptz,
      last_status text,
      last_error text,
      etag text,
      last_modified text,
      cursor jsonb NOT NULL DEFAULT '{}'::jsonb,
      next_sync_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (organization_id, source_id)
    )`.execute(db);
  await sql`CREATE INDEX intel_source_states_due_idx ON intel_source_states (next_sync_at)`.execute(db);

  await sql`
    CREATE TABLE intel_sync_jobs (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      source_id uuid NOT NULL REFERENCES intel_sources(id) ON DELETE CASCADE,
      status text NOT NULL CHECK (status IN ('pending', 'running', 'succeeded', 'failed')),
      trigger text NOT NULL DEFAULT 'manual',
      queued_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now(),
      attempt_count integer NOT NULL DEFAULT 0,
      error text,
      stats jsonb NOT NULL DEFAULT '{}'::jsonb
    )`.execute(db);
  await sql`CREATE INDEX intel_sync_jobs_source_idx ON intel_sync_jobs (organization_id, source_id, queued_at DESC)`.execute(db);
  // At most one pending or running sync per (organization, source): no pile-up.
  await sql`CREATE UNIQUE INDEX intel_sync_jobs_active_idx ON intel_sync_jobs (organization_id, source_id) WHERE status IN ('pending', 'running')`.execute(db);

  await sql`
    CREATE TABLE intel_items (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      source_id uuid NOT NULL REFERENCES intel_sources(id) ON DELETE CASCADE,
      external_id text NOT NULL,
      title text NOT NULL,
      url text,
      publisher text,
      published_at timestamptz,
      source_updated_at timestamptz,
      language text,
      content_text text NOT NULL DEFAULT '',
      content_html text,
      structured_indicators jsonb NOT NULL DEFAULT '[]'::jsonb,
      reference_urls jsonb NOT NULL DEFAULT '[]'::jsonb,
      tags text[] NOT NULL DEFAULT '{}',
      raw jsonb,
      content_hash text NOT NULL,
      version integer NOT NULL DEFAULT 1,
      status text NOT NULL DEFAULT 'active',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, source_id, external_id)
    )`.execute(db);
  await sql`CREATE INDEX intel_items_org_created_idx ON intel_items (organization_id, created_at DESC)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['intel_items', 'intel_sync_jobs', 'intel_source_states', 'intel_sources']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(t)}`.execute(db);
  }
}
