import { sql, type Kysely } from 'kysely';

/**
 * Web console sessions (an API key or a one-time sign-in link exchanged for a cookie) and the
 * sign-in links printed by `rampart admin login-link`. Only SHA-256 hashes of the tokens are
 * stored: a copy of the database signs nobody in.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE console_sessions (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      -- The key exchanged for the session: revoking it ends the session. NULL for a sign-in link.
      api_key_id uuid REFERENCES api_keys (id) ON DELETE CASCADE,
      method text NOT NULL CHECK (method IN ('api_key', 'login_link')),
      token_hash bytea NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_seen_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX console_sessions_user_idx ON console_sessions (user_id)`.execute(db);
  await sql`
    CREATE TABLE console_login_links (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      token_hash bytea NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      used_at timestamptz
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS console_login_links`.execute(db);
  await sql`DROP TABLE IF EXISTS console_sessions`.execute(db);
}
