import { sql, type Kysely } from 'kysely';

/**
 * The status changes of the alert timeline (the agents' verdicts and the people who overturned
 * them) by organization and time, with what GET /api/insights reads of them: a window of them
 * without passing over every other entry (creations, comments, duplicates). The timeline is
 * append-only, so the index costs inserts only. (The alerts themselves are read through
 * alerts_org_created_idx; a covering index there would make status changes non-HOT updates.)
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX alert_timeline_status_changes_idx ON alert_timeline (organization_id, created_at)
    INCLUDE (alert_id, actor_type, id, data)
    WHERE kind IN ('status_changed', 'escalated', 'closed', 'reopened')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX alert_timeline_status_changes_idx`.execute(db);
}
