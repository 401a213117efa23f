import { sql, type Kysely } from 'kysely';

/** `GET /api/agent-runs/{runId}` lists the run's output deliveries: look them up by run. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX destination_deliveries_run_idx ON destination_deliveries (organization_id, run_id) WHERE run_id IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS destination_deliveries_run_idx`.execute(db);
}
