import { sql, type Kysely } from 'kysely';

/**
 * The full-text vector of a structured vulnerability record (OSV, CSAF: `vulnerability.format`)
 * covers its title (its ids and summary), its identifiers (id and aliases) and the names of its
 * packages, not its details text. Other items keep the vector of title and text (migration 0007).
 *
 * Why: an OSV export is hundreds of thousands of records, each with a details text of a few
 * hundred to a few thousand words. Entering every lexeme of that text into the GIN index was
 * 60% of PostgreSQL's CPU for storing a record (20,000 OSV records: 3.2 s with the index of
 * title and text, 1.4 s without any, 1.9 s with this vector; docs/performance.md). What users
 * search such records by — a CVE, GHSA or PYSEC id, a package name, the words of the summary
 * ("prototype pollution in lodash") — is in this vector. `GET /items?search=` filters on the
 * same expression. The body of the 2-argument function is repeated, not called: an index
 * expression is evaluated with a search_path that does not name the schema of our functions.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
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
  await sql`DROP INDEX IF EXISTS intel_items_search_idx`.execute(db);
  await sql`CREATE INDEX intel_items_search_idx ON intel_items USING gin (intel_item_search(title, content_text, vulnerability))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS intel_items_search_idx`.execute(db);
  await sql`CREATE INDEX intel_items_search_idx ON intel_items USING gin (intel_item_search(title, content_text))`.execute(db);
  await sql`DROP FUNCTION IF EXISTS intel_item_search(text, text, jsonb)`.execute(db);
}
