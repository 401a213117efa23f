import { sql, type Kysely } from 'kysely';

/**
 * How intel_items rows are stored, for the cost of ingesting them (`npm run bench -- ingest`,
 * 10,000 RSS entries, one writer, pg_stat_statements).
 *
 * - The full-text vector is no longer a column: the GIN index is over the expression
 *   `intel_item_search(title, content_text)` (the vector's single definition, migration 0007)
 *   and GET /items?search= filters on that same expression. The stored vector (~2 kB for a
 *   typical item) pushed rows past the size at which PostgreSQL compresses and moves values
 *   out of line; writing it cost 1.16 s of the items' 2.78 s INSERT (computing it is 0.4 s of
 *   that, the index 0.44 s more). Every stored item is now searchable, enriched or not. A
 *   phrase search ("…") rechecks its candidate rows by computing their vector again.
 * - toast_tuple_target = 8160: a row is compressed (pglz) and moved out of line only above ~8 kB
 *   instead of 2 kB. A typical item is a few kB of prose, where pglz saves little (the bench's
 *   text: 1,214 → 1,124 bytes) but compressing every such row was ~8% of PostgreSQL's CPU
 *   during an ingest (perf). Measured: PostgreSQL CPU 4.89 → 4.55 s for the 10,000 entries, the
 *   table 95 → 97 MB for 11,000 items. Long articles still compress.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE intel_items SET (toast_tuple_target = 8160)`.execute(db);
  await sql`ALTER TABLE intel_items DROP COLUMN search`.execute(db); // drops intel_items_search_idx with it
  await sql`CREATE INDEX intel_items_search_idx ON intel_items USING gin (intel_item_search(title, content_text))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS intel_items_search_idx`.execute(db);
  await sql`ALTER TABLE intel_items ADD COLUMN search tsvector`.execute(db);
  await sql`UPDATE intel_items SET search = intel_item_search(title, content_text) WHERE processed_at IS NOT NULL`.execute(db);
  await sql`CREATE INDEX intel_items_search_idx ON intel_items USING gin (search)`.execute(db);
  await sql`ALTER TABLE intel_items RESET (toast_tuple_target)`.execute(db);
}
