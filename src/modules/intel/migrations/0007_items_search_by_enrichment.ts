import { sql, type Kysely } from 'kysely';

/**
 * The full-text vector of an item (`search`, for GET /items?search=) is written by the
 * enrichment job instead of being a STORED generated column.
 *
 * Why: the sync inserts an item and enrichment then updates it once. The generated vector was
 * parsed at insert, and both row versions (insert, enrichment's update) were entered into the
 * GIN index with all their lexemes. On the ingest bench (10,000 RSS entries) that made the
 * sync's store phase 3.8 s instead of 1.65 s, while enrichment's update grew by 1.2 s when it
 * took over the parsing: ~1 s of PostgreSQL time saved per 10,000 items, and the sync (the part
 * a user waits for before items appear) twice as fast. The sync's insert leaves `search` NULL;
 * enrichment sets it from the row's own title and text with `intel_item_search()`, the single
 * definition of the vector. Consequence: an item is found by `search` once enriched (normally
 * seconds after its sync), and a changed item matches its new text once re-enriched.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION intel_item_search(title text, content_text text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT setweight(to_tsvector('simple', coalesce(title, '')), 'A') ||
             setweight(to_tsvector('simple', left(coalesce(content_text, ''), 200000)), 'B')
    $$`.execute(db);
  await sql`ALTER TABLE intel_items DROP COLUMN search`.execute(db);
  await sql`ALTER TABLE intel_items ADD COLUMN search tsvector`.execute(db);
  await sql`UPDATE intel_items SET search = intel_item_search(title, content_text) WHERE processed_at IS NOT NULL`.execute(db);
  await sql`CREATE INDEX intel_items_search_idx ON intel_items USING gin (search)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE intel_items DROP COLUMN search`.execute(db);
  await sql`
    ALTER TABLE intel_items ADD COLUMN search tsvector GENERATED ALWAYS AS (
      setweight(to_tsvector('simple', coalesce(title, '')), 'A') ||
      setweight(to_tsvector('simple', left(coalesce(content_text, ''), 200000)), 'B')
    ) STORED`.execute(db);
  await sql`CREATE INDEX intel_items_search_idx ON intel_items USING gin (search)`.execute(db);
  await sql`DROP FUNCTION IF EXISTS intel_item_search(text, text)`.execute(db);
}
