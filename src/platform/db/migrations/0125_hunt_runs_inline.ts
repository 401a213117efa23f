import { sql, type Kysely } from 'kysely';

/**
 * A threat's run row (its exposure story, matches and explanation as jsonb) averages ~2.2 kB
 * for a structured threat (issue 28's bench), just over the 2 kB at which PostgreSQL starts
 * compressing a row's largest values with pglz and moving them to the TOAST table: about half
 * the runs of a first assessment were compressed and toasted on write (and decompressed on the
 * next assessment's read of the previous run). With the threshold at a page's worth, rows stay
 * inline and uncompressed until ~8 kB (docs/performance.md, 2026-11-26).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE hunt_threat_runs SET (toast_tuple_target = 8160)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE hunt_threat_runs RESET (toast_tuple_target)`.execute(db);
}
