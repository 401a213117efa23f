import { sql, type Kysely } from 'kysely';

/**
 * The pipeline's output: enrichment columns on items, flattened indicators with their hunt
 * status, indicator checks, and the ATT&CK catalog. Indexes are chosen for /iocs at 1,000,000
 * indicators: trigram for substring search, (org, status, type) for filters and counts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);

  await sql`
    ALTER TABLE intel_items
      ADD COLUMN processed_at timestamptz,
      ADD COLUMN severity text NOT NULL DEFAULT 'none',
      ADD COLUMN relevance integer NOT NULL DEFAULT 0,
      ADD COLUMN platforms text[] NOT NULL DEFAULT '{}',
      ADD COLUMN summary text NOT NULL DEFAULT '',
      ADD COLUMN tldr text NOT NULL DEFAULT '',
      ADD COLUMN abstract text NOT NULL DEFAULT '',
      ADD COLUMN attack_path jsonb NOT NULL DEFAULT '[]'::jsonb,
      ADD COLUMN classification jsonb NOT NULL DEFAULT '{}'::jsonb,
      ADD COLUMN affected_products jsonb NOT NULL DEFAULT '[]'::jsonb,
      ADD COLUMN iocs jsonb NOT NULL DEFAULT '{}'::jsonb,
      ADD COLUMN provenance jsonb NOT NULL DEFAULT '{"supportingPassages": []}'::jsonb,
      ADD COLUMN dropped_candidates jsonb NOT NULL DEFAULT '[]'::jsonb,
      ADD COLUMN event_confidence real NOT NULL DEFAULT 0,
      ADD COLUMN canonical_key text,
      ADD COLUMN duplicate_of uuid REFERENCES intel_items(id) ON DELETE SET NULL,
      ADD COLUMN search tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('simple', coalesce(title, '')), 'A') ||
        setweight(to_tsvector('simple', left(coalesce(content_text, ''), 200000)), 'B')
      ) STORED`.execute(db);
  await sql`CREATE INDEX intel_items_search_idx ON intel_items USING gin (search)`.execute(db);
  await sql`CREATE INDEX intel_items_org_published_idx ON intel_items (organization_id, (coalesce(published_at, created_at)) DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX intel_items_canonical_idx ON intel_items (organization_id, canonical_key) WHERE canonical_key IS NOT NULL`.execute(db);

  await sql`
    CREATE TABLE intel_indicators (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      item_id uuid NOT NULL REFERENCES intel_items(id) ON DELETE CASCADE,
      type text NOT NULL,
      value text NOT NULL,
      normalized_value text NOT NULL,
      confidence real NOT NULL,
      first_seen timestamptz NOT NULL,
      last_seen timestamptz NOT NULL,
      ttl_days integer NOT NULL,
      intel_title text NOT NULL,
      source_label text NOT NULL,
      status text NOT NULL DEFAULT 'unchecked' CHECK (status IN ('found', 'clean', 'unchecked', 'unknown')),
      last_checked_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (item_id, type, normalized_value)
    )`.execute(db);
  await sql`CREATE INDEX intel_indicators_org_order_idx ON intel_indicators (organization_id, created_at DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX intel_indicators_org_status_type_idx ON intel_indicators (organization_id, status, type)`.execute(db);
  await sql`CREATE INDEX intel_indicators_org_value_idx ON intel_indicators (organization_id, normalized_value)`.execute(db);
  await sql`CREATE INDEX intel_indicators_search_trgm_idx ON intel_indicators USING gin (normalized_value gin_trgm_ops)`.execute(db);

  await sql`
    CREATE TABLE intel_indicator_checks (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      indicator_id uuid NOT NULL REFERENCES intel_indicators(id) ON DELETE CASCADE,
      outcome text NOT NULL CHECK (outcome IN ('found', 'clean', 'unknown')),
      evidence text,
      checked_at timestamptz NOT NULL,
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX intel_indicator_checks_indicator_idx ON intel_indicator_checks (indicator_id, checked_at DESC)`.execute(db);

  // The ATT&CK catalog (techniques, groups, software), refreshed from the built-in MITRE source.
  await sql`
    CREATE TABLE attack_catalog (
      id text PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('technique', 'group', 'malware', 'tool')),
      name text NOT NULL,
      aliases text[] NOT NULL DEFAULT '{}',
      tactics text[] NOT NULL DEFAULT '{}',
      platforms text[] NOT NULL DEFAULT '{}',
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS attack_catalog`.execute(db);
  await sql`DROP TABLE IF EXISTS intel_indicator_checks`.execute(db);
  await sql`DROP TABLE IF EXISTS intel_indicators`.execute(db);
  for (const c of ['search', 'duplicate_of', 'canonical_key', 'event_confidence', 'dropped_candidates', 'provenance', 'iocs', 'affected_products', 'classification', 'attack_path', 'abstract', 'tldr', 'summary', 'platforms', 'relevance', 'severity', 'processed_at']) {
    await sql`ALTER TABLE intel_items DROP COLUMN IF EXISTS ${sql.ref(c)}`.execute(db);
  }
}
