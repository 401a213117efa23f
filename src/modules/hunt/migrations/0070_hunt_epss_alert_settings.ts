import { sql, type Kysely } from 'kysely';

/**
 * Issue 28: an EPSS gate on hunt alerts. A run that qualifies by its exposure band raises an
 * alert only when the CVE's EPSS probability / percentile reach these minimums (null: no gate).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE hunt_settings
      ADD COLUMN minimum_epss_probability real CHECK (minimum_epss_probability BETWEEN 0 AND 1),
      ADD COLUMN minimum_epss_percentile real CHECK (minimum_epss_percentile BETWEEN 0 AND 1)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE hunt_settings DROP COLUMN minimum_epss_probability, DROP COLUMN minimum_epss_percentile`.execute(db);
}
