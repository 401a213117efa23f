import { sql, type Kysely } from 'kysely';

/**
 * Who last changed an agent or a trigger. A triggered run acts as the last of the two to change
 * (issue 19: whoever can rotate a trigger's secret or change an agent's tools must not make the
 * trigger's runs act with someone else's permissions). Null: never changed since creation.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agents ADD COLUMN updated_by uuid`.execute(db);
  await sql`ALTER TABLE agent_triggers ADD COLUMN updated_by uuid`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agent_triggers DROP COLUMN IF EXISTS updated_by`.execute(db);
  await sql`ALTER TABLE agents DROP COLUMN IF EXISTS updated_by`.execute(db);
}
