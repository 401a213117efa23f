import { sql, type Kysely } from 'kysely';

/**
 * Sign-in with the organization's identity provider (issue 45): OpenID Connect providers per
 * organization, the link of a person at a provider (`sub`) to a Rampart user, the short-lived
 * state of a sign-in in flight, and the SCIM 2.0 groups a provider pushes (their members decide
 * roles through the provider's `role_mappings`). Only hashes of the SCIM bearer token are kept;
 * the OAuth client secret is encrypted (platform/secrets.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE identity_providers (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      name text NOT NULL,
      issuer text NOT NULL,
      client_id text NOT NULL,
      client_secret_ciphertext text NOT NULL,
      scopes text[] NOT NULL,
      groups_claim text NOT NULL,
      allowed_email_domains text[] NOT NULL,
      -- [{"group": "...", "roleId": "..."}], in priority order: the first mapped group wins.
      role_mappings jsonb NOT NULL,
      default_role_id uuid REFERENCES roles (id) ON DELETE SET NULL,
      scim_token_hash bytea UNIQUE,
      scim_token_created_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      UNIQUE (organization_id, name)
    )`.execute(db);
  await sql`CREATE INDEX identity_providers_default_role_idx ON identity_providers (default_role_id)`.execute(db);

  // A user belongs to at most one provider (UNIQUE user_id): another provider asserting the
  // same email cannot take them over. `subject` is the provider's `sub`, set at the first
  // sign-in (a user provisioned by SCIM has none until then).
  await sql`
    CREATE TABLE identity_provider_links (
      provider_id uuid NOT NULL REFERENCES identity_providers (id) ON DELETE CASCADE,
      organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      user_id uuid NOT NULL UNIQUE REFERENCES users (id) ON DELETE CASCADE,
      subject text,
      scim_external_id text,
      scim_user_name text,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (provider_id, user_id)
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX identity_provider_links_subject_idx ON identity_provider_links (provider_id, subject) WHERE subject IS NOT NULL`.execute(db);
  await sql`CREATE INDEX identity_provider_links_org_idx ON identity_provider_links (organization_id)`.execute(db);

  // A sign-in between the redirect to the provider and its return: used once, for 10 minutes.
  await sql`
    CREATE TABLE oidc_login_states (
      state_hash bytea PRIMARY KEY,
      provider_id uuid NOT NULL REFERENCES identity_providers (id) ON DELETE CASCADE,
      code_verifier text NOT NULL,
      nonce text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX oidc_login_states_provider_idx ON oidc_login_states (provider_id)`.execute(db);

  await sql`
    CREATE TABLE scim_groups (
      id uuid PRIMARY KEY,
      provider_id uuid NOT NULL REFERENCES identity_providers (id) ON DELETE CASCADE,
      display_name text NOT NULL,
      external_id text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      UNIQUE (provider_id, display_name)
    )`.execute(db);
  await sql`
    CREATE TABLE scim_group_members (
      group_id uuid NOT NULL REFERENCES scim_groups (id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      PRIMARY KEY (group_id, user_id)
    )`.execute(db);
  await sql`CREATE INDEX scim_group_members_user_idx ON scim_group_members (user_id)`.execute(db);

  await sql`ALTER TABLE console_sessions DROP CONSTRAINT console_sessions_method_check`.execute(db);
  await sql`ALTER TABLE console_sessions ADD CONSTRAINT console_sessions_method_check CHECK (method IN ('api_key', 'login_link', 'oidc'))`.execute(db);

  // The system Super Admin role holds every permission: existing organizations' gain the new one.
  await sql`
    UPDATE roles SET permissions = array_append(permissions, 'setting.identityProviders.manage')
    WHERE is_system AND name = 'Super Admin' AND NOT ('setting.identityProviders.manage' = ANY (permissions))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DELETE FROM console_sessions WHERE method = 'oidc'`.execute(db);
  await sql`ALTER TABLE console_sessions DROP CONSTRAINT console_sessions_method_check`.execute(db);
  await sql`ALTER TABLE console_sessions ADD CONSTRAINT console_sessions_method_check CHECK (method IN ('api_key', 'login_link'))`.execute(db);
  await sql`DROP TABLE IF EXISTS scim_group_members`.execute(db);
  await sql`DROP TABLE IF EXISTS scim_groups`.execute(db);
  await sql`DROP TABLE IF EXISTS oidc_login_states`.execute(db);
  await sql`DROP TABLE IF EXISTS identity_provider_links`.execute(db);
  await sql`DROP TABLE IF EXISTS identity_providers`.execute(db);
}
