import { sql, type Kysely } from 'kysely';

/**
 * `GET /api/alerts?source=` filters on trigger type OR source category, and its `totalCount`
 * counted a quarter of a 100,000-alert table by a sequential scan of the wide rows (payload,
 * description). A narrow covering index makes that count an index-only scan (30 → 11 ms).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX alerts_org_source_idx ON alerts (organization_id, source_category, trigger_type)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS alerts_org_source_idx`.execute(db);
}
