import { sql, type Kysely } from 'kysely';

/**
 * Issue 43 (console approvals): `tool_approvals.args` becomes `json`, which keeps the text as
 * written, instead of `jsonb`, which reorders an object's keys (shortest first). A person
 * approves the arguments exactly as the model gave them (docs/approvals.md), and the console,
 * the API and Slack show them in the model's order. Nothing queries inside `args`; rows stored
 * before this migration keep jsonb's order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tool_approvals ALTER COLUMN args TYPE json USING args::json`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tool_approvals ALTER COLUMN args TYPE jsonb USING args::jsonb`.execute(db);
}
