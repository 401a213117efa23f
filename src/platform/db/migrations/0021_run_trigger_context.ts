import { sql, type Kysely } from 'kysely';

/**
 * Issues 18 and 20 (triggers): what a triggered run knew of its webhook delivery (source,
 * delivery id, event type, allow-listed headers, received-at), a trigger's optional input
 * mapping (agent input name → JSON pointer into the payload), and the JSON pointer to a
 * payload id used for dedupe when the sender sends no delivery header.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agent_runs ADD COLUMN trigger_context jsonb`.execute(db);
  await sql`ALTER TABLE agent_triggers ADD COLUMN input_mapping jsonb`.execute(db);
  await sql`ALTER TABLE agent_triggers ADD COLUMN delivery_id_pointer text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agent_triggers DROP COLUMN IF EXISTS delivery_id_pointer`.execute(db);
  await sql`ALTER TABLE agent_triggers DROP COLUMN IF EXISTS input_mapping`.execute(db);
  await sql`ALTER TABLE agent_runs DROP COLUMN IF EXISTS trigger_context`.execute(db);
}
