import { sql, type Kysely } from 'kysely';

/**
 * Issue 47 item 4: `agents.drifted_from_code_at` — when a hand edit of an agent managed by code
 * (`PUT …?force=true`, or a restore with `force=true`) made it differ from its file; null when the
 * agent is what its last apply wrote (an apply clears it). The console and the API show it, so a
 * forced change is visible until the repository catches up or the next apply puts the file back.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agents ADD COLUMN drifted_from_code_at timestamptz`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agents DROP COLUMN drifted_from_code_at`.execute(db);
}
