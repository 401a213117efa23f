import { sql, type Kysely } from 'kysely';

/**
 * `intel_items.duplicate_of` references `intel_items` ON DELETE SET NULL, and no index led with
 * it: every deleted item made PostgreSQL scan `intel_items` for its duplicates, so deleting a
 * source of 10,000 items took minutes (test/platform/foreign-key-indexes.test.ts). Partial: most items are
 * no one's duplicate, and the key's `duplicate_of = $1` implies NOT NULL, so the planner uses it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX IF NOT EXISTS intel_items_duplicate_of_idx ON intel_items (duplicate_of) WHERE duplicate_of IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS intel_items_duplicate_of_idx`.execute(db);
}
