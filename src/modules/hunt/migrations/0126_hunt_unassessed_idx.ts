import { sql, type Kysely } from 'kysely';

/**
 * The threats the intel pass must assess again: marked when their assessment failed
 * (`assessment_failed_at`) or never assessed (no run). Few at any time, looked up every
 * scheduler tick: a partial index keeps that lookup off the organization's threats (200,000
 * after a large OSV sync). A new threat enters it until its first run is written.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX hunt_threats_unassessed_idx ON hunt_threats (organization_id) WHERE assessment_failed_at IS NOT NULL OR latest_run_id IS NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS hunt_threats_unassessed_idx`.execute(db);
}
