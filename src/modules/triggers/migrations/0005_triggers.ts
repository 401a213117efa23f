import { sql, type Kysely } from 'kysely';

/**
 * Triggers: the input a cron trigger passes to its agent, and an index for the cleanup of
 * drafts that `…/fields` handed out and nobody saved.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agent_triggers ADD COLUMN input jsonb`.execute(db);
  await sql`CREATE INDEX agent_triggers_draft_idx ON agent_triggers (created_at) WHERE status = 'draft'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS agent_triggers_draft_idx`.execute(db);
  await sql`ALTER TABLE agent_triggers DROP COLUMN IF EXISTS input`.execute(db);
}
