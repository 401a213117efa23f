import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { openDatabase } from '../src/platform/db/database.js';
import { migrations } from '../src/platform/db/migrations/index.js';
import { createEmptyDatabase } from './support/db.js';

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
});
