import { sql, type Kysely } from 'kysely';

/**
 * Issue 30 (agents as code): a resource written by `POST /api/config/apply` records that it is
 * managed by code (`managed_by = 'code'`) and the source it came from (`managed_source`, e.g. a
 * commit id). The API then refuses to edit it without `force`, so the repository stays the truth.
 */
const TABLES = ['agents', 'agent_triggers', 'output_destinations', 'model_providers', 'model_aliases', 'mcp_servers', 'code_detections', 'alert_routing'];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    await sql`ALTER TABLE ${sql.table(table)}
      ADD COLUMN managed_by text CHECK (managed_by IN ('code')),
      ADD COLUMN managed_source text CHECK (length(managed_source) <= 500)`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) await sql`ALTER TABLE ${sql.table(table)} DROP COLUMN managed_by, DROP COLUMN managed_source`.execute(db);
}
