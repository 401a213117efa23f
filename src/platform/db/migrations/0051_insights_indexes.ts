import { sql, type Kysely } from 'kysely';

/**
 * What GET /api/insights reads, as narrow index-only scans instead of passes over the wide
 * alert rows (payload, titles) and every timeline entry: the alerts of an organization by
 * creation time with the columns the figures use, and the status changes of the timeline (the
 * agents' verdicts and the people who overturned them) with their `data` (`to`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX alerts_insights_idx ON alerts (organization_id, created_at)
    INCLUDE (severity, status, source_category, trigger_type, assigned_agent_id, first_triaged_at, resolved_at)`.execute(db);
  await sql`
    CREATE INDEX alert_timeline_status_changes_idx ON alert_timeline (organization_id, created_at)
    INCLUDE (alert_id, actor_type, id, data)
    WHERE kind IN ('status_changed', 'escalated', 'closed', 'reopened')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX alert_timeline_status_changes_idx`.execute(db);
  await sql`DROP INDEX alerts_insights_idx`.execute(db);
}
