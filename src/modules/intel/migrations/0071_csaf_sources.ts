import { sql, type Kysely } from 'kysely';

/** CSAF 2.0 providers as an intel source kind (issue 28): `apiType` `csaf`. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE intel_sources DROP CONSTRAINT IF EXISTS intel_sources_api_type_check`.execute(db);
  await sql`ALTER TABLE intel_sources ADD CONSTRAINT intel_sources_api_type_check CHECK (api_type IN ('misp', 'misp_feed', 'taxii', 'osv', 'cisa_kev', 'epss', 'nvd', 'csaf'))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE intel_sources DROP CONSTRAINT IF EXISTS intel_sources_api_type_check`.execute(db);
  await sql`ALTER TABLE intel_sources ADD CONSTRAINT intel_sources_api_type_check CHECK (api_type IN ('misp', 'misp_feed', 'taxii', 'osv', 'cisa_kev', 'epss', 'nvd'))`.execute(db);
}
