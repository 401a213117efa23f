import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, migrations } from '../../src/migrations.js';
import { BUILTIN_SOURCES } from '../../src/modules/intel/sources/builtin-sources.js';
import { applyReferenceSeeds, seedFingerprint, type ReferenceSeed } from '../../src/platform/db/reference-seeds.js';
import { REFERENCE_SEEDS, seedReferenceData } from '../../src/seed.js';
import { createEmptyDatabase } from '../support/db.js';

/**
 * Issue 50 item 4 (`npm start` → ready < 1 s): a start on an up-to-date database skips Kysely's
 * Migrator and the seed's upserts, and still applies a migration or a seed that changed.
 */
describe('warm start: migrations and reference seeds', () => {
  let h: Awaited<ReturnType<typeof createEmptyDatabase>>;
  beforeAll(async () => {
    h = await createEmptyDatabase();
  });
  afterAll(async () => {
    await h?.close();
  });

  const builtinName = BUILTIN_SOURCES[0]!.name;
  const displayName = async () =>
    (await h.db.selectFrom('intelSources').select('displayName').where('builtinKey', '=', BUILTIN_SOURCES[0]!.key).executeTakeFirstOrThrow()).displayName;

  it('runs the Migrator on a new database, skips it when every migration is recorded, and runs it again for one that is missing', async () => {
    const first = await migrateToLatest(h.db, h.pool, { seed: seedReferenceData });
    expect(first.migrator).toBe('ran');
    expect(first.applied.sort()).toEqual(Object.keys(migrations).sort());

    expect(await migrateToLatest(h.db, h.pool, { seed: seedReferenceData })).toEqual({ applied: [], migrator: 'skipped' });

    // A migration the code gives and the database has not applied (as after an upgrade): the
    // Migrator runs and applies exactly it.
    await sql`DROP TABLE reference_data_seeds`.execute(h.db);
    await sql`DELETE FROM kysely_migration WHERE name = '0153_reference_data_seeds'`.execute(h.db);
    expect(await migrateToLatest(h.db, h.pool, { seed: seedReferenceData })).toEqual({ applied: ['0153_reference_data_seeds'], migrator: 'ran' });
    const { rows } = await sql<{ present: boolean }>`SELECT to_regclass('reference_data_seeds') IS NOT NULL AS present`.execute(h.db);
    expect(rows[0]!.present).toBe(true);
  });

  it('applies the built-in sources seed once, skips it while unchanged, and applies it again when its content changed', async () => {
    // The previous test recreated the table: the seed was applied and recorded with its fingerprint.
    const recorded = await h.db.selectFrom('referenceDataSeeds').select(['name', 'fingerprint']).execute();
    expect(recorded).toEqual(REFERENCE_SEEDS.map((s) => ({ name: s.name, fingerprint: s.fingerprint })));
    expect(await displayName()).toBe(BUILTIN_SOURCES[0]!.displayName);

    // Unchanged seed: not upserted (an edit of its row stays until the seed's content changes).
    await h.db.updateTable('intelSources').set({ displayName: 'edited by hand' }).where('name', '=', builtinName).execute();
    expect(await seedReferenceData(h.db)).toEqual([]);
    await migrateToLatest(h.db, h.pool, { seed: seedReferenceData });
    expect(await displayName()).toBe('edited by hand');

    // The database recorded another content (this code's BUILTIN_SOURCES changed since): applied again.
    await h.db.updateTable('referenceDataSeeds').set({ fingerprint: seedFingerprint(1, [{ ...BUILTIN_SOURCES[0], displayName: 'older' }]) }).execute();
    await migrateToLatest(h.db, h.pool, { seed: seedReferenceData });
    expect(await displayName()).toBe(BUILTIN_SOURCES[0]!.displayName);
    expect((await h.db.selectFrom('referenceDataSeeds').select('fingerprint').executeTakeFirstOrThrow()).fingerprint).toBe(REFERENCE_SEEDS[0]!.fingerprint);
  });

  it('applies a seed whose content or version changes, and only that one', async () => {
    const writes: string[] = [];
    const seed = (name: string, version: number, content: unknown): ReferenceSeed => ({
      name,
      fingerprint: seedFingerprint(version, content),
      apply: async () => void writes.push(`${name}@${JSON.stringify(content)}`),
    });
    expect(await applyReferenceSeeds(h.db, [seed('test.a', 1, ['x']), seed('test.b', 1, ['y'])])).toEqual(['test.a', 'test.b']);
    expect(await applyReferenceSeeds(h.db, [seed('test.a', 1, ['x']), seed('test.b', 1, ['y'])])).toEqual([]);
    expect(await applyReferenceSeeds(h.db, [seed('test.a', 1, ['x', 'z']), seed('test.b', 1, ['y'])])).toEqual(['test.a']);
    expect(await applyReferenceSeeds(h.db, [seed('test.a', 1, ['x', 'z']), seed('test.b', 2, ['y'])])).toEqual(['test.b']);
    expect(writes).toEqual(['test.a@["x"]', 'test.b@["y"]', 'test.a@["x","z"]', 'test.b@["y"]']);
  });
});
