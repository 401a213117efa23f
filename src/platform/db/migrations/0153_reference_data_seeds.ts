import { sql, type Kysely } from 'kysely';

/**
 * Issue 50 item 4 (`npm start` → ready < 1 s): the fingerprint of each reference-data seed last
 * applied (platform/db/reference-seeds.ts), so that a start whose seed is unchanged skips its
 * upserts. Empty here: the next start applies every seed once and records it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE reference_data_seeds (
      name text PRIMARY KEY,
      fingerprint text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE reference_data_seeds`.execute(db);
}
