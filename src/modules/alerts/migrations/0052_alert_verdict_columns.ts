import { sql, type Kysely } from 'kysely';

/**
 * What GET /api/insights asks of an alert's status history, kept on the alert by the one write
 * of a status change (alerts.transition.ts): the agent's latest verdict (status and time), the
 * latest status change by a person, and whether it was ever escalated. Insights then reads the
 * window's alerts once instead of grouping their timeline's status changes per alert (the
 * costliest of its queries: 310–390 ms at 100,000 alerts). The columns ride on the UPDATE that a
 * status change makes anyway, so they cost no extra statement or row version.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE alerts
      ADD COLUMN agent_verdict_status text,
      ADD COLUMN agent_verdict_at timestamptz,
      ADD COLUMN human_status_at timestamptz,
      ADD COLUMN ever_escalated boolean NOT NULL DEFAULT false`.execute(db);
  await backfillVerdictColumns(db);
}

/** The columns from the timeline's status changes (also used by the insights bench after its bulk seed). */
export async function backfillVerdictColumns(db: Kysely<any>, organizationId?: string): Promise<void> {
  const scope = organizationId ? sql`AND organization_id = ${organizationId}` : sql``;
  await sql`
    UPDATE alerts a SET
      agent_verdict_status = h.verdict_to, agent_verdict_at = h.verdict_at,
      human_status_at = h.human_at, ever_escalated = h.escalated
    FROM (
      SELECT alert_id,
        bool_or(data->>'to' = 'escalated') AS escalated,
        max(created_at) FILTER (WHERE actor_type = 'agent') AS verdict_at,
        (array_agg(data->>'to' ORDER BY created_at DESC, id DESC) FILTER (WHERE actor_type = 'agent'))[1] AS verdict_to,
        max(created_at) FILTER (WHERE actor_type = 'human') AS human_at
      FROM alert_timeline
      WHERE kind IN ('status_changed', 'escalated', 'closed', 'reopened') ${scope}
      GROUP BY alert_id
    ) h
    WHERE a.id = h.alert_id`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE alerts DROP COLUMN agent_verdict_status, DROP COLUMN agent_verdict_at,
      DROP COLUMN human_status_at, DROP COLUMN ever_escalated`.execute(db);
}
