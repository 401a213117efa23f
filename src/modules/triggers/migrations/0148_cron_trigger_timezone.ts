import { sql, type Kysely } from 'kysely';

/**
 * Issue 47 item 27: a cron trigger's schedule is read in an IANA time zone (`Europe/Paris`), DST
 * included, as systemd's OnCalendar and Kubernetes CronJob's `timeZone` do. Null: UTC, as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agent_triggers ADD COLUMN cron_timezone text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agent_triggers DROP COLUMN IF EXISTS cron_timezone`.execute(db);
}
