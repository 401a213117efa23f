import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/modules/organizations/organizations.service.js';
import { seedIntel } from '../support/intel-data.js';
import { migrateToLatest, migrations } from '../../src/migrations.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { createEmptyDatabase } from '../support/db.js';
import { migrateTo, migrationBefore } from '../support/migrate.js';

describe('migrations', () => {
  it('are safe when several instances start at once, and idempotent afterwards', async () => {
    const first = await createEmptyDatabase();
    // Separate pools, as separate processes would have.
    const second = openDatabase(first.url, { max: 3 });
    const third = openDatabase(first.url, { max: 3 });
    try {
      const results = await Promise.all([
        migrateToLatest(first.db, first.pool),
        migrateToLatest(second.db, second.pool),
        migrateToLatest(third.db, third.pool),
      ]);
      const applied = results.flatMap((r) => r.applied);
      // Each migration was applied exactly once across the three.
      expect(applied.sort()).toEqual(Object.keys(migrations).sort());
      expect((await migrateToLatest(first.db, first.pool)).applied).toEqual([]);
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM kysely_migration`.execute(first.db);
      expect(rows[0]!.n).toBe(Object.keys(migrations).length);
      const worker = await sql<{ n: number }>`SELECT count(*)::int AS n FROM graphile_worker.migrations`.execute(first.db);
      expect(worker.rows[0]!.n).toBeGreaterThan(0);
    } finally {
      await Promise.all([first.close(), second.close(), third.close()]);
    }
  });

  it('0022 gives existing checks to their value: one status for every mention, the history kept', async () => {
    const h = await createEmptyDatabase();
    try {
      await migrateTo(h.db, migrationBefore('0022'));
      const org = (await createOrganization(h.db, { name: 'Old', adminEmail: 'old@m.test' })).organization.id;
      const seeded = await seedIntel(h.db, org, { items: 2 });
      // Item 1 mentions item 0's address too; that mention was checked twice, the other never.
      const [first, second] = seeded.indicatorIds; // 203.0.113.1 of item 0, its domain
      await sql`INSERT INTO intel_indicators (id, organization_id, item_id, type, value, normalized_value, confidence, first_seen, last_seen, ttl_days, intel_title, source_label)
        VALUES (gen_random_uuid(), ${org}, ${seeded.itemIds[1]}, 'ipv4', '203.0.113[.]1', '203.0.113.1', 0.8, now(), now(), 30, 't', 's')`.execute(h.db);
      await sql`INSERT INTO intel_indicator_checks (id, organization_id, indicator_id, outcome, checked_at) VALUES
        (gen_random_uuid(), ${org}, ${first}, 'clean', '2026-11-01T00:00:00Z'), (gen_random_uuid(), ${org}, ${first}, 'found', '2026-11-02T00:00:00Z')`.execute(h.db);
      await sql`UPDATE intel_indicators SET status = 'found', last_checked_at = '2026-11-02T00:00:00Z' WHERE id = ${first}`.execute(h.db);

      await migrateToLatest(h.db, h.pool);
      const rows = await h.db.selectFrom('intelIndicators').select(['status', 'lastCheckedAt']).where('normalizedValue', '=', '203.0.113.1').execute();
      expect(rows.map((r) => [r.status, r.lastCheckedAt?.toISOString()])).toEqual([['found', '2026-11-02T00:00:00.000Z'], ['found', '2026-11-02T00:00:00.000Z']]);
      expect(await h.db.selectFrom('intelIndicators').select('status').where('id', '=', second!).executeTakeFirstOrThrow()).toEqual({ status: 'unchecked' });
      const values = await h.db.selectFrom('intelIndicatorValues').select(['id', 'type', 'normalizedValue', 'status']).execute();
      expect(values).toEqual([{ id: expect.any(String), type: 'ipv4', normalizedValue: '203.0.113.1', status: 'found' }]);
      const checks = await h.db.selectFrom('intelIndicatorChecks').select(['valueId', 'indicatorId']).execute();
      expect(checks).toEqual([{ valueId: values[0]!.id, indicatorId: first }, { valueId: values[0]!.id, indicatorId: first }]);
    } finally {
      await h.close();
    }
  });
});
