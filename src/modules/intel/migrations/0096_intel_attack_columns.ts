import { sql, type Kysely } from 'kysely';

/**
 * Issue 32: the ATT&CK coverage aggregate (intel's attack-pressure.repo.ts) over a window of
 * 100,000 items in well under 200 ms. Reading every item's classification JSON per request was
 * ~10× too slow, so what it needs is kept beside the JSON by PostgreSQL itself, as stored
 * generated columns (no writer changes, never stale):
 * - attack_parents: the parent technique ids an item names (T1059.001 → T1059), the
 *   `techniqueIdOf` rule (technique, else subTechnique) in SQL;
 * - actor_names / malware_names: the names of its actors and malware, lower-cased, distinct;
 * - seen_at: its publication date, else when it was stored (the coverage window's clock).
 * A covering partial index on (organization, seen_at) holds them, so the aggregate is an
 * index-only scan of the window. Adding the columns rewrites intel_items once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION intel_attack_parents(c jsonb) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT coalesce(array_agg(DISTINCT p ORDER BY p), '{}') FROM (
        SELECT split_part(upper(coalesce(nullif(x->>'technique', ''), x->>'subTechnique')), '.', 1) AS p
        FROM jsonb_array_elements(CASE WHEN jsonb_typeof(c->'attack') = 'array' THEN c->'attack' ELSE '[]'::jsonb END) x
      ) s WHERE p ~ '^T[0-9]{4}$'
    $$`.execute(db);
  await sql`
    CREATE FUNCTION intel_classification_names(c jsonb, key text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT coalesce(array_agg(DISTINCT n ORDER BY n), '{}') FROM (
        SELECT lower(btrim(x->>'name')) AS n
        FROM jsonb_array_elements(CASE WHEN jsonb_typeof(c->key) = 'array' THEN c->key ELSE '[]'::jsonb END) x
        WHERE jsonb_typeof(x) = 'object'
      ) s WHERE coalesce(n, '') <> ''
    $$`.execute(db);
  await sql`
    ALTER TABLE intel_items
      ADD COLUMN attack_parents text[] GENERATED ALWAYS AS (intel_attack_parents(classification)) STORED,
      ADD COLUMN actor_names text[] GENERATED ALWAYS AS (intel_classification_names(classification, 'actor')) STORED,
      ADD COLUMN malware_names text[] GENERATED ALWAYS AS (intel_classification_names(classification, 'malware')) STORED,
      ADD COLUMN seen_at timestamptz GENERATED ALWAYS AS (coalesce(published_at, created_at)) STORED`.execute(db);
  await sql`
    CREATE INDEX intel_items_attack_window_idx ON intel_items (organization_id, seen_at) INCLUDE (attack_parents, actor_names, malware_names)
    WHERE duplicate_of IS NULL AND status <> 'retracted' AND attack_parents <> '{}'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE intel_items DROP COLUMN attack_parents, DROP COLUMN actor_names, DROP COLUMN malware_names, DROP COLUMN seen_at`.execute(db);
  await sql`DROP FUNCTION intel_attack_parents(jsonb)`.execute(db);
  await sql`DROP FUNCTION intel_classification_names(jsonb, text)`.execute(db);
}
