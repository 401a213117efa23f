import { sql, type Kysely } from 'kysely';
import { up as plpgsqlDefinitions } from './0106_attack_columns_plpgsql.js';

/**
 * intel_items' stored ATT&CK columns (0096: attack_parents, actor_names, malware_names) cost
 * three PL/pgSQL calls per row written, for every item, although most items name no technique,
 * actor or malware (every OSV, CSAF and NVD record: their classification holds empty lists). A
 * PL/pgSQL call that returns at once still sets up and tears down its call frame: ~2.3 µs of
 * backend CPU each, ~7 µs per row for the three (2026-11-30, branch osvsync, 200,000 rows of
 * an OSV item's classification). So each function becomes a SQL function that answers an absent
 * or empty list itself and calls 0106's loop (kept as `…_of`) only for a list with elements; a
 * SQL function whose body is one expression is inlined where the column is computed, so an
 * empty list costs no call at all: ~1.6 µs per row for the three. Same values
 * (attack-columns.test.ts compares both with 0096's definitions), so no stored value changes.
 * The argument is referenced twice, which inlining allows because it is a plain column.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // 0106's bodies, under new names.
  await sql`
    CREATE FUNCTION intel_attack_parents_of(c jsonb) RETURNS text[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
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
  await sql`
    CREATE FUNCTION intel_classification_names_of(c jsonb, key text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
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
  // CASE, not AND: only CASE fixes the order of evaluation (jsonb_array_length throws on a non-array).
  await sql`
    CREATE OR REPLACE FUNCTION intel_attack_parents(c jsonb) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT CASE WHEN jsonb_typeof(c->'attack') IS DISTINCT FROM 'array' THEN '{}'::text[]
                  WHEN jsonb_array_length(c->'attack') = 0 THEN '{}'::text[]
                  ELSE intel_attack_parents_of(c) END
    $$`.execute(db);
  await sql`
    CREATE OR REPLACE FUNCTION intel_classification_names(c jsonb, key text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT CASE WHEN jsonb_typeof(c->key) IS DISTINCT FROM 'array' THEN '{}'::text[]
                  WHEN jsonb_array_length(c->key) = 0 THEN '{}'::text[]
                  ELSE intel_classification_names_of(c, key) END
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // 0106's PL/pgSQL definitions back under the columns' names, then the helpers dropped.
  await plpgsqlDefinitions(db);
  await sql`DROP FUNCTION intel_attack_parents_of(jsonb), intel_classification_names_of(jsonb, text)`.execute(db);
}
