import { sql, type Kysely } from 'kysely';

/**
 * Issues 18 and 20 (triggers): what a triggered run knew of its webhook delivery (source,
 * delivery id, event type, allow-listed headers, received-at), a trigger's optional input
 * mapping (agent input name → JSON pointer into the payload), and the JSON pointer to a
 * payload id used for dedupe when the sender sends no delivery header. Two small indexes keep the
 * /metrics run counts cheap at any table size: the runs still waiting or running, and the runs
 * that ended in the last day.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agent_runs ADD COLUMN trigger_context jsonb`.execute(db);
  await sql`ALTER TABLE agent_triggers ADD COLUMN input_mapping jsonb`.execute(db);
  await sql`ALTER TABLE agent_triggers ADD COLUMN delivery_id_pointer text`.execute(db);
  await sql`CREATE INDEX agent_runs_active_idx ON agent_runs (status) WHERE status IN ('waiting', 'running')`.execute(db);
  await sql`CREATE INDEX agent_runs_finished_idx ON agent_runs (finished_at, status) WHERE finished_at IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS agent_runs_finished_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS agent_runs_active_idx`.execute(db);
  await sql`ALTER TABLE agent_triggers DROP COLUMN IF EXISTS delivery_id_pointer`.execute(db);
  await sql`ALTER TABLE agent_triggers DROP COLUMN IF EXISTS input_mapping`.execute(db);
  await sql`ALTER TABLE agent_runs DROP COLUMN IF EXISTS trigger_context`.execute(db);
}
