import { sql, type Kysely } from 'kysely';

/**
 * How intel_items rows are stored, for the cost of ingesting them.
 *
 * - toast_tuple_target = 8160: a row is compressed (pglz) and moved out of line only above ~8 kB
 *   instead of 2 kB. A typical item is a few kB of prose, where pglz saves little (the ingest
 *   bench's text: 1,214 → 1,124 bytes) but compressing every such row was ~8% of PostgreSQL's
 *   CPU during an ingest (perf, `npm run bench -- ingest`). Measured on that bench: PostgreSQL
 *   CPU for 10,000 RSS entries 4.89 → 4.55 s, the table 95 → 97 MB for 11,000 items. Long
 *   articles (rows over 8 kB) still compress.
 * - search (the tsvector) is stored EXTERNAL: it does not compress (1,959 → 1,955 bytes on the
 *   same data), so the attempt is skipped; a large one still moves out of line.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE intel_items SET (toast_tuple_target = 8160)`.execute(db);
  await sql`ALTER TABLE intel_items ALTER COLUMN search SET STORAGE EXTERNAL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE intel_items RESET (toast_tuple_target)`.execute(db);
  await sql`ALTER TABLE intel_items ALTER COLUMN search SET STORAGE EXTENDED`.execute(db);
}
