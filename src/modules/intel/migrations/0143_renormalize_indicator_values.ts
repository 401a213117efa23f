import { sql, type Kysely } from 'kysely';
import type { IndicatorType } from '../indicator-vocabulary.js';
import { normalizeIndicator } from '../normalize-indicator.fns.js';

/**
 * Issue 42 item 5: one normal form for every stored indicator value. Three normalisers used to
 * disagree (hunt kept a trailing dot's absence only, intel canonicalised registry roots, the
 * tools a third way), and hunt joins sightings to intel's indicators on `normalized_value`
 * equality, so a sighting written one way missed the indicator written the other. Writers now
 * all call `normalizeIndicator(type, value)`; this migration gives the rows written before it
 * the same form: intel's mentions (intel_indicators) and checked values (intel_indicator_values),
 * and hunt's sightings (hunt_sightings). It touches hunt's table too and stays with intel, which
 * owns the normaliser and most of the rows (docs/architecture.md#tables-and-migrations).
 *
 * It calls the TypeScript normaliser, so it reads each table in batches (keyset on id), keeps
 * only the rows whose form changes in a temporary table, and writes them set-based. Where two
 * rows become one value:
 * - two mentions in one item (UNIQUE (item_id, type, normalized_value)) keep one, the most
 *   confident; the other's checks stay with the value (indicator_id set to NULL, as when a
 *   mention goes);
 * - two checked values of one organization (UNIQUE (organization_id, type, normalized_value))
 *   keep the most recently checked, which gets the other's checks; every mention then shows its
 *   value's status again.
 * Updates go through intel_indicators' triggers, so the /iocs search copy and intel out's change
 * queue follow.
 */
const BATCH = 2_000;

// The migration runs in the migrator's transaction; `any` because migrations see the schema as it is then.
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await sql`CREATE TEMP TABLE renormalized (id uuid PRIMARY KEY, normalized_value text NOT NULL) ON COMMIT DROP`.execute(db);

  // Sightings: nothing unique on the value.
  await collect(db, 'hunt_sightings', 'value');
  await sql`UPDATE hunt_sightings s SET normalized_value = r.normalized_value FROM renormalized r WHERE r.id = s.id`.execute(db);

  // Mentions: drop the ones that become a duplicate within their item, then rename the rest.
  await sql`TRUNCATE renormalized`.execute(db);
  await collect(db, 'intel_indicators', 'value');
  await sql`
    DELETE FROM intel_indicators d USING (
      SELECT i.id, row_number() OVER (
               PARTITION BY i.item_id, i.type, coalesce(r.normalized_value, i.normalized_value)
               ORDER BY i.confidence DESC, i.id) AS n
      FROM intel_indicators i LEFT JOIN renormalized r ON r.id = i.id
      WHERE (i.item_id, i.type) IN (SELECT i2.item_id, i2.type FROM intel_indicators i2 JOIN renormalized r2 ON r2.id = i2.id)
    ) dup
    WHERE d.id = dup.id AND dup.n > 1`.execute(db);
  await sql`UPDATE intel_indicators d SET normalized_value = r.normalized_value FROM renormalized r WHERE r.id = d.id`.execute(db);

  // Checked values: merge the ones that become one, keeping the most recent check's status.
  await sql`TRUNCATE renormalized`.execute(db);
  await collect(db, 'intel_indicator_values', 'normalized_value');
  await sql`
    CREATE TEMP TABLE value_merges ON COMMIT DROP AS
    SELECT id, first_value(id) OVER w AS kept
    FROM (
      SELECT v.id, v.organization_id, v.type, coalesce(r.normalized_value, v.normalized_value) AS normalized_value, v.last_checked_at
      FROM intel_indicator_values v LEFT JOIN renormalized r ON r.id = v.id
      WHERE (v.organization_id, v.type) IN (SELECT v2.organization_id, v2.type FROM intel_indicator_values v2 JOIN renormalized r2 ON r2.id = v2.id)
    ) f
    WINDOW w AS (PARTITION BY organization_id, type, normalized_value ORDER BY last_checked_at DESC, id)`.execute(db);
  await sql`UPDATE intel_indicator_checks c SET value_id = m.kept FROM value_merges m WHERE c.value_id = m.id AND m.id <> m.kept`.execute(db);
  await sql`DELETE FROM intel_indicator_values v USING value_merges m WHERE v.id = m.id AND m.id <> m.kept`.execute(db);
  await sql`UPDATE intel_indicator_values v SET normalized_value = r.normalized_value FROM renormalized r WHERE r.id = v.id`.execute(db);

  // Every mention shows its value's status (as migration 0022 set it up).
  await sql`
    UPDATE intel_indicators d SET status = v.status, last_checked_at = v.last_checked_at
    FROM intel_indicator_values v
    WHERE v.organization_id = d.organization_id AND v.type = d.type AND v.normalized_value = d.normalized_value
      AND (d.status, d.last_checked_at) IS DISTINCT FROM (v.status, v.last_checked_at)`.execute(db);
}

/** Reads `table` in batches and keeps in `renormalized` each row whose normal form is not the stored one. */
async function collect(db: Db, table: 'hunt_sightings' | 'intel_indicators' | 'intel_indicator_values', from: 'value' | 'normalized_value'): Promise<void> {
  let after: string | null = null;
  for (;;) {
    const { rows }: { rows: Array<{ id: string; type: string; source: string; normalized: string }> } = await sql<{ id: string; type: string; source: string; normalized: string }>`
      SELECT id, type, ${sql.ref(from)} AS source, normalized_value AS normalized FROM ${sql.table(table)}
      WHERE ${after === null ? sql`true` : sql`id > ${after}`} ORDER BY id LIMIT ${BATCH}`.execute(db);
    if (rows.length === 0) return;
    const changed = rows.flatMap((r) => {
      const normalized = normalizeIndicator(r.type as IndicatorType, r.source);
      return normalized !== r.normalized && normalized !== '' ? [{ id: r.id, normalized }] : [];
    });
    if (changed.length) {
      await sql`
        INSERT INTO renormalized (id, normalized_value)
        SELECT * FROM unnest(${changed.map((c) => c.id)}::uuid[], ${changed.map((c) => c.normalized)}::text[])`.execute(db);
    }
    after = rows[rows.length - 1]!.id;
  }
}

/** The former forms are not kept: a value's normal form is the one every writer stores now. */
export async function down(): Promise<void> {}
