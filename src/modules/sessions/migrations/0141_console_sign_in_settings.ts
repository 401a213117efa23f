import { sql, type Kysely } from 'kysely';

/**
 * Issue 45: an organization may turn API-key sign-in to the console off (people then sign in
 * through its identity provider; `rampart admin login-link` stays, for the operator). One row
 * per organization that changed the default; no row means API-key sign-in is allowed. API keys
 * keep working for the API itself whatever this says.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE console_sign_in_settings (
      organization_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
      api_key_sign_in boolean NOT NULL DEFAULT true,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS console_sign_in_settings`.execute(db);
}
