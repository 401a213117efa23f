import { sql, type Kysely } from 'kysely';

/**
 * A run executes its agent as it was queued: when an agent changes, its runs not yet ended get
 * the agent as it was (prompt, model alias, tools, output schema, inputs, limits, destinations)
 * here (runs/run-pinning.ts). Null: the agent has not changed since the run was queued.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agent_runs ADD COLUMN agent_snapshot jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agent_runs DROP COLUMN agent_snapshot`.execute(db);
}
