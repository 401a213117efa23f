import { sql, type Kysely } from 'kysely';

/**
 * Issue 30 item 3, agent versions. Every change to an agent appends an immutable version (agents'
 * agent-versions.repo.ts): the whole agent as a run executes it (agents' PinnedAgent) plus its
 * triggers' settings (never their secrets), who made it and from where (`source`: `api`,
 * `console`, `code`, `restore`; `migration` for the version 1 written here). `agents.version` is
 * the current version; a run records the version current when it was queued (`agent_version`).
 *
 * Existing agents get version 1 from their current row. Existing runs that were never pinned
 * executed (or will execute) the agent as it is now, so they record version 1; a pinned run ran
 * an earlier, unversioned agent and records none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agents ADD COLUMN version integer NOT NULL DEFAULT 1`.execute(db);
  await sql`
    CREATE TABLE agent_versions (
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
      version integer NOT NULL CHECK (version >= 1),
      snapshot jsonb NOT NULL,
      source text NOT NULL CHECK (source IN ('api', 'console', 'code', 'restore', 'migration')),
      source_ref text,
      restored_from integer,
      actor_type text NOT NULL,
      actor_user_id uuid,
      actor_api_key_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (agent_id, version)
    )`.execute(db);
  // The snapshot as agents.repo.ts's agentVersionSnapshotSql builds it (written out: a migration does not follow later code).
  await sql`
    INSERT INTO agent_versions (organization_id, agent_id, version, snapshot, source, actor_type, actor_user_id, created_at)
    SELECT a.organization_id, a.id, 1,
      jsonb_build_object(
        'id', a.id, 'name', a.name, 'description', a.description, 'agentType', a.agent_type, 'systemPrompt', a.system_prompt,
        'modelAlias', a.model_alias, 'toolNames', to_jsonb(a.tool_names), 'inputs', a.inputs,
        'structuredOutputSchema', a.structured_output_schema, 'outputDestinationIds', to_jsonb(a.output_destination_ids),
        'maxSteps', a.max_steps, 'maxDurationMs', a.max_duration_ms,
        'triggers', coalesce((
          SELECT jsonb_agg(jsonb_build_object(
              'id', t.id, 'name', t.name, 'source', t.source, 'enabled', t.enabled,
              'cronSchedule', t.cron_schedule, 'input', t.input, 'createAlert', t.create_alert, 'routeAlerts', t.route_alerts,
              'alertMapping', t.alert_mapping, 'inputMapping', t.input_mapping, 'deliveryIdPointer', t.delivery_id_pointer,
              'additionalFields', t.additional_fields) ORDER BY t.created_at, t.id)
          FROM agent_triggers t WHERE t.agent_id = a.id AND t.status = 'active'), '[]'::jsonb)),
      'migration', CASE WHEN coalesce(a.updated_by, a.created_by) IS NULL THEN 'system' ELSE 'user' END, coalesce(a.updated_by, a.created_by), a.updated_at
    FROM agents a`.execute(db);
  await sql`ALTER TABLE agent_runs ADD COLUMN agent_version integer`.execute(db);
  await sql`UPDATE agent_runs SET agent_version = 1 WHERE agent_snapshot IS NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agent_runs DROP COLUMN IF EXISTS agent_version`.execute(db);
  await sql`DROP TABLE IF EXISTS agent_versions`.execute(db);
  await sql`ALTER TABLE agents DROP COLUMN IF EXISTS version`.execute(db);
}
