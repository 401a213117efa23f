import { sql, type Kysely } from 'kysely';

/**
 * The items' search vector (migration 0110) with the same value, written so PostgreSQL inlines
 * it. 0110's body joined the record's id, aliases and package names with `concat_ws`, which is
 * STABLE (it formats its `any` arguments through their output functions); an IMMUTABLE SQL
 * function whose body calls a STABLE one is never inlined, so every evaluation ran as a nested
 * SQL statement (executor set up and torn down per row): once per row written (the GIN index's
 * expression) and once per row of every ANALYZE sample of intel_items. Measured on the hunt-osv
 * bench (docs/performance-history.md, 2026-11-30, branch osvpass): 105–126 µs per record
 * written, and 2.5 s of autovacuum CPU for the one autoanalyze of 20,000 fresh records; the
 * inlined body ~40 % less per evaluation. Same text, so the same vector: `concat_ws(' ', a, b, c)`
 * is `substr(coalesce(' ' || a, '') || coalesce(' ' || b, '') || …, 2)` (a NULL argument is left
 * out with its separator), and `jsonb::text` is the jsonb output concat_ws used; compared equal
 * on 20,000 bench records and the edge cases (NULL id, aliases or names, empty arrays). The
 * index keeps its entries (same values) and still matches `GET /items?search=`'s condition
 * (both sides are inlined alike) — once a connection reloads the index's definition: a backend
 * caches an index's expressions as they read when it first opened the index, and replacing a
 * function's body does not tell it, so a connection that had opened the index would plan the
 * search without it. `searchIndexReloaded` makes every connection reload it.
 */

/**
 * A catalog update of the index changes nothing in it (an option it does not set, reset) but makes
 * every backend rebuild its cached definition, with the function's body as it now reads.
 */
const searchIndexReloaded = (db: Kysely<unknown>) => sql`ALTER INDEX intel_items_search_idx RESET (fastupdate)`.execute(db);
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION intel_item_search(title text, content_text text, vulnerability jsonb) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT CASE WHEN vulnerability->>'format' IN ('osv', 'csaf')
        THEN setweight(to_tsvector('simple', coalesce(title, '')), 'A') ||
             setweight(to_tsvector('simple', substr(
               coalesce(' ' || (vulnerability->>'id'), '') ||
               coalesce(' ' || (vulnerability->'aliases')::text, '') ||
               coalesce(' ' || jsonb_path_query_array(vulnerability, '$.affected[*].name')::text, ''), 2)), 'B')
        ELSE setweight(to_tsvector('simple', coalesce(title, '')), 'A') ||
             setweight(to_tsvector('simple', left(coalesce(content_text, ''), 200000)), 'B')
      END
    $$`.execute(db);
  await searchIndexReloaded(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION intel_item_search(title text, content_text text, vulnerability jsonb) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT CASE WHEN vulnerability->>'format' IN ('osv', 'csaf')
        THEN setweight(to_tsvector('simple', coalesce(title, '')), 'A') ||
             setweight(to_tsvector('simple', concat_ws(' ', vulnerability->>'id', vulnerability->'aliases', jsonb_path_query_array(vulnerability, '$.affected[*].name'))), 'B')
        ELSE setweight(to_tsvector('simple', coalesce(title, '')), 'A') ||
             setweight(to_tsvector('simple', left(coalesce(content_text, ''), 200000)), 'B')
      END
    $$`.execute(db);
  await searchIndexReloaded(db);
}
