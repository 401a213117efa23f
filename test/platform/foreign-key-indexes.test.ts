import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/db.js';

/**
 * PostgreSQL enforces a foreign key on delete of the referenced row with a plain query on the
 * referencing columns: without an index leading with them, each deleted row scans the
 * referencing table. For a table whose rows are deleted one at a time (an agent, a user) that is
 * one scan; for a table whose rows go many at a time (a source's intel items, retention, an
 * organization's data) it is one scan per row: deleting a source with 10,000 items ran for more
 * than 8 minutes on `intel_items.duplicate_of` (ON DELETE SET NULL, no index) until 0097.
 */
const DELETED_IN_BULK = ['intel_items', 'intel_indicators', 'alerts', 'alert_timeline', 'agent_runs', 'hunt_threats', 'hunt_assets', 'hunt_asset_software', 'intel_sync_jobs'];

describe('foreign keys', () => {
  let h: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    h = await createTestDatabase();
  });
  afterAll(async () => {
    await h.close();
  });

  it('to a table whose rows are deleted in bulk are led by an index (a delete does not scan per row)', async () => {
    const { rows } = await sql<{ fk: string; referenced: string }>`
      SELECT c.conrelid::regclass || '(' || string_agg(a.attname, ', ' ORDER BY k.n) || ')' AS fk, c.confrelid::regclass::text AS referenced
      FROM pg_constraint c
      CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, n)
      JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
      WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace
        AND NOT EXISTS (
          SELECT 1 FROM pg_index i
          WHERE i.indrelid = c.conrelid
            AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] @> c.conkey
            AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] <@ c.conkey)
      GROUP BY c.oid, c.conrelid, c.confrelid
      ORDER BY 1`.execute(h.db);
    // The check itself finds unindexed keys (several reference rows deleted one at a time).
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((r) => DELETED_IN_BULK.includes(r.referenced)).map((r) => r.fk)).toEqual([]);
  });
});
