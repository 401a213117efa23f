import { sql, type Kysely } from 'kysely';

/** Organizations, users, roles, API keys, audit log and output destinations. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE EXTENSION IF NOT EXISTS citext`.execute(db);

  await sql`
    CREATE TABLE organizations (
      id uuid PRIMARY KEY,
      name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);

  await sql`
    CREATE TABLE roles (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      permissions text[] NOT NULL DEFAULT '{}',
      is_system boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, name)
    )`.execute(db);

  await sql`
    CREATE TABLE users (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      email citext NOT NULL,
      name text NOT NULL DEFAULT '',
      role_id uuid NOT NULL REFERENCES roles(id),
      deactivated_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, email)
    )`.execute(db);

  await sql`
    CREATE TABLE api_keys (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      name text NOT NULL,
      prefix text NOT NULL UNIQUE,
      key_hash bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_used_at timestamptz,
      expires_at timestamptz,
      revoked_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX api_keys_org_idx ON api_keys (organization_id, created_at DESC)`.execute(db);

  await sql`
    CREATE TABLE audit_logs (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      actor_type text NOT NULL,
      actor_user_id uuid,
      actor_api_key_id uuid,
      action text NOT NULL,
      resource_type text NOT NULL,
      resource_id text,
      request_id text,
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX audit_logs_org_created_idx ON audit_logs (organization_id, created_at DESC, id DESC)`.execute(db);

  await sql`
    CREATE TABLE output_destinations (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name text NOT NULL,
      type text NOT NULL,
      config jsonb NOT NULL,
      token_ciphertext text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX output_destinations_org_idx ON output_destinations (organization_id, created_at, id)`.execute(db);

  await sql`
    CREATE TABLE destination_deliveries (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      destination_id uuid NOT NULL REFERENCES output_destinations(id) ON DELETE CASCADE,
      event_kind text NOT NULL,
      status text NOT NULL,
      attempt_count integer NOT NULL DEFAULT 0,
      response_status integer,
      error text,
      payload jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX destination_deliveries_dest_idx ON destination_deliveries (destination_id, created_at DESC)`.execute(db);

  // Worker heartbeats let a live worker release the jobs of one that died (see platform/jobs).
  await sql`
    CREATE TABLE worker_heartbeats (
      worker_id text PRIMARY KEY,
      pool_id text NOT NULL,
      seen_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);

  // Terminal job failures stay visible here after graphile-worker gives up on a job.
  await sql`
    CREATE TABLE job_failures (
      id bigserial PRIMARY KEY,
      job_id text NOT NULL UNIQUE,
      task_identifier text NOT NULL,
      payload jsonb NOT NULL,
      attempts integer NOT NULL,
      last_error text NOT NULL,
      failed_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    'job_failures',
    'worker_heartbeats',
    'destination_deliveries',
    'output_destinations',
    'audit_logs',
    'api_keys',
    'users',
    'roles',
    'organizations',
  ]) {
    await sql`DROP TABLE IF EXISTS ${sql.table(t)}`.execute(db);
  }
}
