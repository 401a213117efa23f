import { sql, type Kysely } from 'kysely';

/**
 * Issue 32: the coverage report over 100,000 items in under 200 ms. Aggregating the window's
 * (item, technique, name) rows per request cost ~450 ms at 100,000 items (docs/performance.md),
 * so what the report needs is kept as rollups, exact, by statement-level triggers on intel_items
 * in the writer's transaction (every write path: the ingest's chunked inserts and upserts,
 * re-enrichment, story links, source and organization deletion):
 * - intel_attack_daily: items per (organization, UTC day of seen_at, parent technique). Pure
 *   counters: a write adds or subtracts its rows' counts, a row at zero is deleted.
 * - intel_attack_sightings: per (organization, parent technique, kind, name) the items and the
 *   last sighting, where kind is `technique` (name '': the technique's own last sighting), `actor`
 *   or `malware` (the lower-cased names of migration 0096's generated columns). "Distinct actors
 *   naming T in the window" is the number of T's actor rows seen since the window's start.
 * - intel_attack_sighting_days: the same per UTC day, so that a removal taking a key's last
 *   sighting recomputes it from one day's items and the key's days, never by searching the
 *   organization's items (that search cost seconds for a chunk of duplicates at 100,000 items).
 * No foreign key to organizations (its check on every new row was a third of the triggers' cost):
 * deleting an organization deletes its items, whose delete trigger empties its rollups.
 * An item counts when it is no duplicate, not retracted and names a technique (the partial index
 * of 0096). An update changes the rollups only when one of the columns they are built from
 * changes (organization, seen_at, duplicate_of's nullness, retracted or not, techniques, names):
 * its old contribution is subtracted and its new one added. A recompute runs in a statement after
 * the decrement, which locks the rows first: under READ COMMITTED it sees a concurrent writer's
 * committed sighting.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE intel_attack_daily (
      organization_id uuid NOT NULL,
      day date NOT NULL,
      technique_id text NOT NULL,
      items integer NOT NULL,
      PRIMARY KEY (organization_id, day, technique_id)
    )`.execute(db);
  await sql`
    CREATE TABLE intel_attack_sightings (
      organization_id uuid NOT NULL,
      technique_id text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('technique', 'actor', 'malware')),
      name text NOT NULL,
      items integer NOT NULL,
      last_seen_at timestamptz NOT NULL,
      PRIMARY KEY (organization_id, technique_id, kind, name)
    )`.execute(db);
  await sql`
    CREATE TABLE intel_attack_sighting_days (
      organization_id uuid NOT NULL,
      technique_id text NOT NULL,
      kind text NOT NULL,
      name text NOT NULL,
      day date NOT NULL,
      items integer NOT NULL,
      last_seen_at timestamptz NOT NULL,
      PRIMARY KEY (organization_id, technique_id, kind, name, day)
    )`.execute(db);
  // What one item contributes; a key of the sightings rollups (day: null for intel_attack_sightings).
  await sql`CREATE TYPE intel_attack_fact AS (organization_id uuid, seen_at timestamptz, attack_parents text[], actor_names text[], malware_names text[])`.execute(db);
  await sql`CREATE TYPE intel_attack_key AS (organization_id uuid, technique_id text, kind text, name text, day date)`.execute(db);

  // Sightings keys of a set of facts: one row per (fact, technique, kind, name), with the fact's UTC day.
  await sql`
    CREATE FUNCTION intel_attack_fact_keys(facts intel_attack_fact[]) RETURNS TABLE (organization_id uuid, technique_id text, kind text, name text, day date, seen_at timestamptz)
    LANGUAGE sql STABLE AS $$
      SELECT k.organization_id, k.technique_id, k.kind, k.name, (k.seen_at AT TIME ZONE 'UTC')::date, k.seen_at FROM (
        SELECT f.organization_id, t AS technique_id, 'technique' AS kind, '' AS name, f.seen_at FROM unnest(facts) f, unnest(f.attack_parents) t
        UNION ALL SELECT f.organization_id, t, 'actor', n, f.seen_at FROM unnest(facts) f, unnest(f.attack_parents) t, unnest(f.actor_names) n
        UNION ALL SELECT f.organization_id, t, 'malware', n, f.seen_at FROM unnest(facts) f, unnest(f.attack_parents) t, unnest(f.malware_names) n
      ) k
    $$`.execute(db);

  // Keys in a stable order and the tables in the same order everywhere, so that concurrent writers lock shared rows alike.
  await sql`
    CREATE FUNCTION intel_attack_rollup_add(facts intel_attack_fact[]) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      IF cardinality(facts) = 0 THEN RETURN; END IF;
      INSERT INTO intel_attack_daily AS d (organization_id, day, technique_id, items)
      SELECT k.organization_id, k.day, k.technique_id, count(*) FROM intel_attack_fact_keys(facts) k WHERE k.kind = 'technique'
      GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT (organization_id, day, technique_id) DO UPDATE SET items = d.items + excluded.items;
      INSERT INTO intel_attack_sighting_days AS s (organization_id, technique_id, kind, name, day, items, last_seen_at)
      SELECT k.organization_id, k.technique_id, k.kind, k.name, k.day, count(*), max(k.seen_at) FROM intel_attack_fact_keys(facts) k
      GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT (organization_id, technique_id, kind, name, day) DO UPDATE
        SET items = s.items + excluded.items, last_seen_at = greatest(s.last_seen_at, excluded.last_seen_at);
      INSERT INTO intel_attack_sightings AS s (organization_id, technique_id, kind, name, items, last_seen_at)
      SELECT k.organization_id, k.technique_id, k.kind, k.name, count(*), max(k.seen_at) FROM intel_attack_fact_keys(facts) k
      GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
      ON CONFLICT (organization_id, technique_id, kind, name) DO UPDATE
        SET items = s.items + excluded.items, last_seen_at = greatest(s.last_seen_at, excluded.last_seen_at);
    END $$`.execute(db);

  // Each step decrements first (locking the rows, waiting for a concurrent writer), then deletes
  // the rows left empty and recomputes, in a later statement, the last sighting of the rows whose
  // last sighting went: a day's from that day's items (one day of the window index), a key's from
  // its days.
  await sql`
    CREATE FUNCTION intel_attack_rollup_remove(facts intel_attack_fact[]) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      gone intel_attack_key[];
      stale intel_attack_key[];
    BEGIN
      IF cardinality(facts) = 0 THEN RETURN; END IF;
      UPDATE intel_attack_daily d SET items = d.items - g.n FROM (
        SELECT k.organization_id, k.day, k.technique_id, count(*) AS n FROM intel_attack_fact_keys(facts) k WHERE k.kind = 'technique' GROUP BY 1, 2, 3
      ) g WHERE d.organization_id = g.organization_id AND d.day = g.day AND d.technique_id = g.technique_id;
      DELETE FROM intel_attack_daily d USING (
        SELECT DISTINCT k.organization_id, k.day, k.technique_id FROM intel_attack_fact_keys(facts) k WHERE k.kind = 'technique'
      ) g WHERE d.organization_id = g.organization_id AND d.day = g.day AND d.technique_id = g.technique_id AND d.items <= 0;

      WITH g AS (
        SELECT k.organization_id, k.technique_id, k.kind, k.name, k.day, count(*) AS n, max(k.seen_at) AS m FROM intel_attack_fact_keys(facts) k GROUP BY 1, 2, 3, 4, 5
      ), u AS (
        UPDATE intel_attack_sighting_days s SET items = s.items - g.n FROM g
        WHERE s.organization_id = g.organization_id AND s.technique_id = g.technique_id AND s.kind = g.kind AND s.name = g.name AND s.day = g.day
        RETURNING s.organization_id, s.technique_id, s.kind, s.name, s.day, s.items <= 0 AS empty, (s.items > 0 AND g.m >= s.last_seen_at) AS took_last
      )
      SELECT array_agg(ROW(u.organization_id, u.technique_id, u.kind, u.name, u.day)::intel_attack_key) FILTER (WHERE u.empty),
             array_agg(ROW(u.organization_id, u.technique_id, u.kind, u.name, u.day)::intel_attack_key) FILTER (WHERE u.took_last)
      INTO gone, stale FROM u;
      IF gone IS NOT NULL THEN
        DELETE FROM intel_attack_sighting_days s USING unnest(gone) k
        WHERE s.organization_id = k.organization_id AND s.technique_id = k.technique_id AND s.kind = k.kind AND s.name = k.name AND s.day = k.day AND s.items <= 0;
      END IF;
      IF stale IS NOT NULL THEN
        UPDATE intel_attack_sighting_days s SET last_seen_at = coalesce(r.last_seen, s.last_seen_at)
        FROM (
          SELECT k.*, (
            SELECT i.seen_at FROM intel_items i
            WHERE i.organization_id = k.organization_id AND i.duplicate_of IS NULL AND i.status <> 'retracted' AND i.attack_parents <> '{}'
              AND i.seen_at >= k.day::timestamp AT TIME ZONE 'UTC' AND i.seen_at < (k.day + 1)::timestamp AT TIME ZONE 'UTC'
              AND i.attack_parents @> ARRAY[k.technique_id]
              AND CASE k.kind WHEN 'actor' THEN i.actor_names @> ARRAY[k.name] WHEN 'malware' THEN i.malware_names @> ARRAY[k.name] ELSE true END
            ORDER BY i.seen_at DESC LIMIT 1
          ) AS last_seen FROM unnest(stale) k
        ) r
        WHERE s.organization_id = r.organization_id AND s.technique_id = r.technique_id AND s.kind = r.kind AND s.name = r.name AND s.day = r.day;
      END IF;

      WITH g AS (
        SELECT k.organization_id, k.technique_id, k.kind, k.name, count(*) AS n, max(k.seen_at) AS m FROM intel_attack_fact_keys(facts) k GROUP BY 1, 2, 3, 4
      ), u AS (
        UPDATE intel_attack_sightings s SET items = s.items - g.n FROM g
        WHERE s.organization_id = g.organization_id AND s.technique_id = g.technique_id AND s.kind = g.kind AND s.name = g.name
        RETURNING s.organization_id, s.technique_id, s.kind, s.name, s.items <= 0 AS empty, (s.items > 0 AND g.m >= s.last_seen_at) AS took_last
      )
      SELECT array_agg(ROW(u.organization_id, u.technique_id, u.kind, u.name, NULL)::intel_attack_key) FILTER (WHERE u.empty),
             array_agg(ROW(u.organization_id, u.technique_id, u.kind, u.name, NULL)::intel_attack_key) FILTER (WHERE u.took_last)
      INTO gone, stale FROM u;
      IF gone IS NOT NULL THEN
        DELETE FROM intel_attack_sightings s USING unnest(gone) k
        WHERE s.organization_id = k.organization_id AND s.technique_id = k.technique_id AND s.kind = k.kind AND s.name = k.name AND s.items <= 0;
      END IF;
      IF stale IS NOT NULL THEN
        UPDATE intel_attack_sightings s SET last_seen_at = coalesce((
          SELECT max(d.last_seen_at) FROM intel_attack_sighting_days d
          WHERE d.organization_id = s.organization_id AND d.technique_id = s.technique_id AND d.kind = s.kind AND d.name = s.name
        ), s.last_seen_at)
        FROM unnest(stale) k
        WHERE s.organization_id = k.organization_id AND s.technique_id = k.technique_id AND s.kind = k.kind AND s.name = k.name;
      END IF;
    END $$`.execute(db);

  // The transition tables' rows that count (see intel_attack_window_idx's predicate, 0096).
  const fact = (alias: string) => `ROW(${alias}.organization_id, ${alias}.seen_at, ${alias}.attack_parents, ${alias}.actor_names, ${alias}.malware_names)::intel_attack_fact`;
  const counts = (alias: string) => `(${alias}.duplicate_of IS NULL AND ${alias}.status <> 'retracted' AND ${alias}.attack_parents <> '{}')`;
  const changed = `(${counts('o')} IS DISTINCT FROM ${counts('n')} OR o.organization_id IS DISTINCT FROM n.organization_id OR o.seen_at IS DISTINCT FROM n.seen_at
    OR o.attack_parents IS DISTINCT FROM n.attack_parents OR o.actor_names IS DISTINCT FROM n.actor_names OR o.malware_names IS DISTINCT FROM n.malware_names)`;
  await sql
    .raw(
      `CREATE FUNCTION intel_attack_rollup_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM intel_attack_rollup_add(ARRAY(SELECT ${fact('n')} FROM new_rows n WHERE ${counts('n')}));
        RETURN NULL;
      END $$`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE FUNCTION intel_attack_rollup_update() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        added intel_attack_fact[];
        removed intel_attack_fact[];
      BEGIN
        SELECT array_agg(${fact('n')}) FILTER (WHERE ${counts('n')}), array_agg(${fact('o')}) FILTER (WHERE ${counts('o')})
        INTO added, removed
        FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE ${changed};
        -- Additions first: a key whose sighting only moves keeps its row instead of being deleted and re-inserted.
        IF added IS NOT NULL THEN PERFORM intel_attack_rollup_add(added); END IF;
        IF removed IS NOT NULL THEN PERFORM intel_attack_rollup_remove(removed); END IF;
        RETURN NULL;
      END $$`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE FUNCTION intel_attack_rollup_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM intel_attack_rollup_remove(ARRAY(SELECT ${fact('o')} FROM old_rows o WHERE ${counts('o')}));
        RETURN NULL;
      END $$`,
    )
    .execute(db);
  await sql`CREATE TRIGGER intel_items_attack_rollup_insert AFTER INSERT ON intel_items REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION intel_attack_rollup_insert()`.execute(db);
  await sql`CREATE TRIGGER intel_items_attack_rollup_update AFTER UPDATE ON intel_items REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION intel_attack_rollup_update()`.execute(db);
  await sql`CREATE TRIGGER intel_items_attack_rollup_delete AFTER DELETE ON intel_items REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION intel_attack_rollup_delete()`.execute(db);

  // Rebuilds an organization's rollups from its items: the backfill below, and a repair an operator can run.
  await sql`
    CREATE FUNCTION intel_attack_rollup_rebuild(org uuid) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM intel_attack_daily WHERE organization_id = org;
      DELETE FROM intel_attack_sighting_days WHERE organization_id = org;
      DELETE FROM intel_attack_sightings WHERE organization_id = org;
      PERFORM intel_attack_rollup_add(ARRAY(
        SELECT ROW(i.organization_id, i.seen_at, i.attack_parents, i.actor_names, i.malware_names)::intel_attack_fact FROM intel_items i
        WHERE i.organization_id = org AND i.duplicate_of IS NULL AND i.status <> 'retracted' AND i.attack_parents <> '{}'));
    END $$`.execute(db);
  await sql`SELECT intel_attack_rollup_rebuild(o.organization_id) FROM (SELECT DISTINCT organization_id FROM intel_items) o`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER intel_items_attack_rollup_insert ON intel_items`.execute(db);
  await sql`DROP TRIGGER intel_items_attack_rollup_update ON intel_items`.execute(db);
  await sql`DROP TRIGGER intel_items_attack_rollup_delete ON intel_items`.execute(db);
  await sql`DROP FUNCTION intel_attack_rollup_insert(), intel_attack_rollup_update(), intel_attack_rollup_delete(), intel_attack_rollup_rebuild(uuid)`.execute(db);
  await sql`DROP FUNCTION intel_attack_rollup_add(intel_attack_fact[]), intel_attack_rollup_remove(intel_attack_fact[]), intel_attack_fact_keys(intel_attack_fact[])`.execute(db);
  await sql`DROP TABLE intel_attack_daily, intel_attack_sightings, intel_attack_sighting_days`.execute(db);
  await sql`DROP TYPE intel_attack_key, intel_attack_fact`.execute(db);
}
