import { createHash } from 'node:crypto';
import type { Database } from './database.js';

/**
 * Reference data every database needs (the built-in intel sources), written after the
 * migrations under their lock. Each seed carries a fingerprint of what it writes; the last one
 * applied is kept in `reference_data_seeds` (migration 0153), so a start whose seed content is
 * unchanged reads one row instead of upserting every record (issue 50: `npm start` → ready).
 */
export interface ReferenceSeed {
  /** Stable key of the seed in `reference_data_seeds` (`intel.builtin-sources`). */
  name: string;
  /** Changes whenever what `apply` writes changes: the data, or the shape of its write. */
  fingerprint: string;
  /** Idempotent upsert of the seed's rows. */
  apply(db: Database): Promise<void>;
}

/**
 * A fingerprint of a seed's content: sha-256 of its JSON with a version to bump when the write
 * itself changes (a new column written from the same data).
 */
export function seedFingerprint(version: number, content: unknown): string {
  return createHash('sha256').update(JSON.stringify({ version, content })).digest('hex');
}

/**
 * Applies each seed whose fingerprint differs from the one recorded (or that was never
 * applied), then records it; returns the names applied. Callers hold the migration lock, so two
 * instances never apply one seed at once. A row of a seed deleted by hand comes back when the
 * seed's content next changes, not at every start.
 */
export async function applyReferenceSeeds(db: Database, seeds: readonly ReferenceSeed[]): Promise<string[]> {
  if (!seeds.length) return [];
  const recorded = new Map(
    (await db.selectFrom('referenceDataSeeds').select(['name', 'fingerprint']).where('name', 'in', seeds.map((s) => s.name)).execute()).map((r) => [r.name, r.fingerprint]),
  );
  const applied: string[] = [];
  for (const seed of seeds) {
    if (recorded.get(seed.name) === seed.fingerprint) continue;
    await seed.apply(db);
    await db
      .insertInto('referenceDataSeeds')
      .values({ name: seed.name, fingerprint: seed.fingerprint, appliedAt: new Date() })
      .onConflict((oc) => oc.column('name').doUpdateSet({ fingerprint: seed.fingerprint, appliedAt: new Date() }))
      .execute();
    applied.push(seed.name);
  }
  return applied;
}
