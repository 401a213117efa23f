import { sql, type Kysely } from 'kysely';

/**
 * Structured vulnerability data (issue 28): the OSV, CISA KEV, EPSS and NVD source kinds, the EPSS
 * scores per CVE, the record an intel item
 * carries beside its prose (`intel_items.vulnerability`: packages by identity with version
 * ranges), the machine-readable matches of each assessment run, and the inventory read by
 * package identity (software rows by purl).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE intel_sources DROP CONSTRAINT IF EXISTS intel_sources_api_type_check`.execute(db);
  await sql`ALTER TABLE intel_sources ADD CONSTRAINT intel_sources_api_type_check CHECK (api_type IN ('misp', 'misp_feed', 'taxii', 'osv', 'cisa_kev', 'epss', 'nvd'))`.execute(db);
  await sql`ALTER TABLE intel_items ADD COLUMN vulnerability jsonb`.execute(db);
  await sql`ALTER TABLE hunt_threat_runs ADD COLUMN matches jsonb NOT NULL DEFAULT '[]'::jsonb`.execute(db);
  await sql`
    CREATE TABLE intel_epss_scores (
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      cve text NOT NULL,
      epss real NOT NULL,
      percentile real NOT NULL,
      model_version text,
      score_date date,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (organization_id, cve)
    )`.execute(db);
  await sql`CREATE INDEX hunt_asset_software_purl_idx ON hunt_asset_software (organization_id, purl) WHERE purl IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS hunt_asset_software_purl_idx`.execute(db);
  await sql`DROP TABLE IF EXISTS intel_epss_scores`.execute(db);
  await sql`ALTER TABLE hunt_threat_runs DROP COLUMN IF EXISTS matches`.execute(db);
  await sql`ALTER TABLE intel_items DROP COLUMN IF EXISTS vulnerability`.execute(db);
  await sql`ALTER TABLE intel_sources DROP CONSTRAINT IF EXISTS intel_sources_api_type_check`.execute(db);
  await sql`ALTER TABLE intel_sources ADD CONSTRAINT intel_sources_api_type_check CHECK (api_type IN ('misp', 'misp_feed', 'taxii'))`.execute(db);
}
