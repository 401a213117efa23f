import { sql, type Kysely } from 'kysely';

/**
 * Ingestion cost (issue 27 item 2): the functions behind intel_items' stored ATT&CK columns
 * (migration 0096: attack_parents, actor_names, malware_names) rewritten in PL/pgSQL, same
 * results (attack-columns.test.ts compares them with the SQL definitions on edge cases and
 * random documents).
 *
 * Why: a SQL function with a FROM clause is not inlined, so each of the three calls per stored
 * row started and ended a query executor (an aggregate with a sort) — 52 µs of PostgreSQL CPU
 * per RSS entry, 20% of the item row's INSERT (ingest bench rows, backend CPU;
 * docs/performance.md). PL/pgSQL evaluates these loops as simple expressions without an
 * executor, keeps the list sorted and distinct as it goes (a few names per item), and returns
 * at once when the list is absent or empty (most TAXII and CVE items).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Same rule as 0096: parent technique ids (T1059.001 → T1059, technique else subTechnique),
  // upper-cased, only T + 4 digits, distinct, sorted.
  await sql`
    CREATE OR REPLACE FUNCTION intel_attack_parents(c jsonb) RETURNS text[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
    DECLARE
      a jsonb := c->'attack';
      parents text[] := '{}';
      p text;
      j integer;
    BEGIN
      IF jsonb_typeof(a) IS DISTINCT FROM 'array' THEN RETURN parents; END IF;
      FOR i IN 0 .. jsonb_array_length(a) - 1 LOOP
        p := split_part(upper(coalesce(nullif(a->i->>'technique', ''), a->i->>'subTechnique')), '.', 1);
        IF p ~ '^T[0-9]{4}$' AND NOT p = ANY(parents) THEN
          j := 1;
          WHILE j <= cardinality(parents) AND parents[j] < p LOOP j := j + 1; END LOOP;
          parents := parents[1:j - 1] || p || parents[j:];
        END IF;
      END LOOP;
      RETURN parents;
    END $$`.execute(db);
  // Same rule as 0096: the names of the objects of c->key, trimmed and lower-cased, non-empty,
  // distinct, sorted.
  await sql`
    CREATE OR REPLACE FUNCTION intel_classification_names(c jsonb, key text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
    DECLARE
      a jsonb := c->key;
      names text[] := '{}';
      x jsonb;
      n text;
      j integer;
    BEGIN
      IF jsonb_typeof(a) IS DISTINCT FROM 'array' THEN RETURN names; END IF;
      FOR i IN 0 .. jsonb_array_length(a) - 1 LOOP
        x := a->i;
        IF jsonb_typeof(x) = 'object' THEN
          n := lower(btrim(x->>'name'));
          IF n <> '' AND NOT n = ANY(names) THEN
            j := 1;
            WHILE j <= cardinality(names) AND names[j] < n LOOP j := j + 1; END LOOP;
            names := names[1:j - 1] || n || names[j:];
          END IF;
        END IF;
      END LOOP;
      RETURN names;
    END $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION intel_attack_parents(c jsonb) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT coalesce(array_agg(DISTINCT p ORDER BY p), '{}') FROM (
        SELECT split_part(upper(coalesce(nullif(x->>'technique', ''), x->>'subTechnique')), '.', 1) AS p
        FROM jsonb_array_elements(CASE WHEN jsonb_typeof(c->'attack') = 'array' THEN c->'attack' ELSE '[]'::jsonb END) x
      ) s WHERE p ~ '^T[0-9]{4}$'
    $$`.execute(db);
  await sql`
    CREATE OR REPLACE FUNCTION intel_classification_names(c jsonb, key text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT coalesce(array_agg(DISTINCT n ORDER BY n), '{}') FROM (
        SELECT lower(btrim(x->>'name')) AS n
        FROM jsonb_array_elements(CASE WHEN jsonb_typeof(c->key) = 'array' THEN c->key ELSE '[]'::jsonb END) x
        WHERE jsonb_typeof(x) = 'object'
      ) s WHERE coalesce(n, '') <> ''
    $$`.execute(db);
}
