import { sql, type Kysely } from 'kysely';

/** Model providers and aliases, MCP servers, agents, runs, triggers and their deliveries. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE model_providers (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name text NOT NULL,
      type text NOT NULL CHECK (type IN ('openai', 'anthropic', 'openai-compatible')),
      base_url text,
      api_key_ciphertext text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, name)
    )`.execute(db);

  await sql`
    CREATE TABLE model_aliases (
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      alias text NOT NULL,
      provider_id uuid NOT NULL REFERENCES model_providers(id) ON DELETE CASCADE,
      model_id text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (organization_id, alias)
    )`.execute(db);

  await sql`
    CREATE TABLE mcp_servers (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name text NOT NULL,
      url text NOT NULL,
      token_ciphertext text,
      enabled boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, name)
    )`.execute(db);

  await sql`
    CREATE TABLE agents (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      system_prompt text NOT NULL,
      model_alias text NOT NULL,
      tool_names text[] NOT NULL DEFAULT '{}',
      inputs jsonb NOT NULL DEFAULT '[]'::jsonb,
      structured_output_schema jsonb,
      agent_type text NOT NULL CHECK (agent_type IN ('response', 'detection')),
      output_destination_ids uuid[] NOT NULL DEFAULT '{}',
      max_steps integer NOT NULL,
      max_duration_ms integer NOT NULL,
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX agents_org_idx ON agents (organization_id, created_at, id)`.execute(db);

  // A trigger row exists from the moment `…/fields` hands out its id and secret (status
  // 'draft'); saving it makes it 'active'. Drafts never accept deliveries.
  await sql`
    CREATE TABLE agent_triggers (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
      source text NOT NULL,
      name text NOT NULL DEFAULT '',
      status text NOT NULL CHECK (status IN ('draft', 'active')),
      enabled boolean NOT NULL DEFAULT true,
      secret_ciphertext text,
      signing_secret_ciphertext text,
      additional_fields jsonb NOT NULL DEFAULT '{}'::jsonb,
      cron_schedule text,
      next_run_at timestamptz,
      last_run_attempted_at timestamptz,
      last_run_succeeded_at timestamptz,
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX agent_triggers_agent_idx ON agent_triggers (agent_id, created_at)`.execute(db);
  await sql`CREATE INDEX agent_triggers_due_idx ON agent_triggers (next_run_at) WHERE source = 'cron' AND status = 'active' AND enabled`.execute(db);

  await sql`
    CREATE TABLE agent_runs (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
      status text NOT NULL CHECK (status IN ('waiting', 'running', 'done', 'error', 'interrupted')),
      status_message text,
      mode text NOT NULL CHECK (mode IN ('sync', 'async', 'trigger', 'cron')),
      input jsonb NOT NULL DEFAULT 'null'::jsonb,
      trigger_id uuid REFERENCES agent_triggers(id) ON DELETE SET NULL,
      trigger_source text,
      actor_user_id uuid,
      actor_api_key_id uuid,
      result jsonb,
      step_count integer NOT NULL DEFAULT 0,
      input_tokens integer NOT NULL DEFAULT 0,
      output_tokens integer NOT NULL DEFAULT 0,
      attempt_count integer NOT NULL DEFAULT 0,
      interrupt_requested_at timestamptz,
      queued_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX agent_runs_org_idx ON agent_runs (organization_id, queued_at DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX agent_runs_agent_idx ON agent_runs (agent_id, queued_at DESC)`.execute(db);

  // One row per delivery a sender identified (delivery id header, Slack event id…): a repeated
  // delivery answers the original run and never starts a second one.
  await sql`
    CREATE TABLE trigger_deliveries (
      trigger_id uuid NOT NULL REFERENCES agent_triggers(id) ON DELETE CASCADE,
      delivery_key text NOT NULL,
      run_id uuid NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (trigger_id, delivery_key)
    )`.execute(db);
  await sql`CREATE INDEX trigger_deliveries_received_idx ON trigger_deliveries (received_at)`.execute(db);

  // Agent output queued for destinations: at most one delivery per (destination, run), so a
  // retried run-completion never queues twice.
  await sql`ALTER TABLE destination_deliveries ADD COLUMN run_id uuid`.execute(db);
  await sql`CREATE UNIQUE INDEX destination_deliveries_run_uq ON destination_deliveries (destination_id, run_id) WHERE run_id IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS destination_deliveries_run_uq`.execute(db);
  await sql`ALTER TABLE destination_deliveries DROP COLUMN IF EXISTS run_id`.execute(db);
  for (const t of ['trigger_deliveries', 'agent_runs', 'agent_triggers', 'agents', 'mcp_servers', 'model_aliases', 'model_providers']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(t)}`.execute(db);
  }
}
