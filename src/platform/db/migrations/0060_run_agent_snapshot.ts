import { sql, type Kysely } from 'kysely';

/**
 * A run pins its agent when it is queued: what the run job executes (prompt, model alias, tools,
 * output schema, inputs, limits, destinations) is this snapshot, written by the INSERT that
 * records the run, not the agent as it is when a worker picks the run up. Null for runs queued
 * before this migration: those still read the live agent.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agent_runs ADD COLUMN agent_snapshot jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agent_runs DROP COLUMN agent_snapshot`.execute(db);
}
