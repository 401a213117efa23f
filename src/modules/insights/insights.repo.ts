import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';

/**
 * The SQL of GET /api/insights: reads only, over the tables of other modules (alerts,
 * alert_timeline, agents, agent_runs, destination_deliveries, intel_items, intel_indicators,
 * intel_sources, hunt_threats; listed in docs/architecture.md). Every query is scoped by
 * organization and, except the "now" figures (open alerts, hunt bands), by `from`. Days are UTC.
 */
type Scope = { organizationId: string; from: Date };

const DAY = sql`to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD')`;
const CLOSED = sql`('closed_true_positive', 'closed_false_positive', 'closed_benign')`;
/** The timeline kinds that change an alert's status (alerts.fns.ts statusChangeKind). */
const STATUS_KINDS = sql`('status_changed', 'escalated', 'closed', 'reopened')`;

async function rows<T>(db: Queryable, query: ReturnType<typeof sql<T>>): Promise<T[]> {
  return (await query.execute(db)).rows;
}

export function alertsPerDay(db: Queryable, s: Scope) {
  return rows(db, sql<{ day: string; severity: string; n: number }>`
    SELECT ${DAY} AS day, severity, count(*)::int AS n FROM alerts
    WHERE organization_id = ${s.organizationId} AND created_at >= ${s.from}
    GROUP BY 1, 2`);
}

export function alertsPerDaySource(db: Queryable, s: Scope) {
  return rows(db, sql<{ day: string; source: string; n: number }>`
    SELECT ${DAY} AS day, coalesce(trigger_type, source_category) AS source, count(*)::int AS n FROM alerts
    WHERE organization_id = ${s.organizationId} AND created_at >= ${s.from}
    GROUP BY 1, 2`);
}

/** Alerts not closed, now: by status and by age band (one row per pair). */
export function openAlerts(db: Queryable, organizationId: string) {
  return rows(db, sql<{ status: string; age: string; n: number }>`
    SELECT status,
      CASE WHEN created_at > now() - interval '1 day' THEN 'under_1d'
           WHEN created_at > now() - interval '7 days' THEN '1d_7d'
           WHEN created_at > now() - interval '30 days' THEN '7d_30d'
           ELSE 'over_30d' END AS age,
      count(*)::int AS n
    FROM alerts
    WHERE organization_id = ${organizationId} AND status NOT IN ${CLOSED}
    GROUP BY 1, 2`);
}

export interface DurationRow {
  severity: string | null;
  agentId: string | null;
  agentName: string | null;
  /** 1 for the severity grouping (and the overall row, where severity is null), 2 for the agent one. */
  grouping: number;
  ackN: number;
  ackP50: number | null;
  ackP90: number | null;
  resN: number;
  resP50: number | null;
  resP90: number | null;
}

/** MTTA (created → first triaged) and MTTR (created → resolved), p50/p90 in seconds: overall, per severity, per assigned agent. */
export function alertDurations(db: Queryable, s: Scope) {
  return rows(db, sql<DurationRow>`
    WITH a AS (
      SELECT severity, assigned_agent_id,
        extract(epoch FROM first_triaged_at - created_at)::float8 AS ack,
        CASE WHEN status IN ${CLOSED} THEN extract(epoch FROM resolved_at - created_at)::float8 END AS res
      FROM alerts WHERE organization_id = ${s.organizationId} AND created_at >= ${s.from}
    )
    SELECT a.severity, a.assigned_agent_id AS agent_id, max(ag.name) AS agent_name,
      CASE WHEN GROUPING(a.assigned_agent_id) = 1 THEN 1 ELSE 2 END AS grouping,
      count(ack)::int AS ack_n,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY ack) AS ack_p50,
      percentile_cont(0.9) WITHIN GROUP (ORDER BY ack) AS ack_p90,
      count(res)::int AS res_n,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY res) AS res_p50,
      percentile_cont(0.9) WITHIN GROUP (ORDER BY res) AS res_p90
    FROM a LEFT JOIN agents ag ON ag.id = a.assigned_agent_id
    GROUP BY GROUPING SETS ((), (a.severity), (a.assigned_agent_id))`);
}

export interface AgentQualityRow {
  agentId: string;
  agentName: string;
  alerts: number;
  escalated: number;
  truePositive: number;
  falsePositive: number;
  benign: number;
  verdicts: number;
  overturned: number;
}

/**
 * Per assigned agent, over the alerts created in the window: escalations, the status mix, and
 * the agent's verdicts (its last status change on an alert) that a person later changed to
 * another status.
 */
export function agentQuality(db: Queryable, s: Scope) {
  return rows(db, sql<AgentQualityRow>`
    WITH a AS (
      SELECT id, assigned_agent_id, status FROM alerts
      WHERE organization_id = ${s.organizationId} AND created_at >= ${s.from} AND assigned_agent_id IS NOT NULL
    ),
    changes AS (
      SELECT t.alert_id, t.actor_type, t.data->>'to' AS to_status, t.created_at, t.id
      FROM alert_timeline t JOIN a ON a.id = t.alert_id
      WHERE t.organization_id = ${s.organizationId} AND t.kind IN ${STATUS_KINDS}
    ),
    verdict AS (
      SELECT DISTINCT ON (alert_id) alert_id, to_status, created_at, id FROM changes
      WHERE actor_type = 'agent' ORDER BY alert_id, created_at DESC, id DESC
    ),
    escalated AS (SELECT DISTINCT alert_id FROM changes WHERE to_status = 'escalated'),
    -- Joins, not a correlated EXISTS per alert: that rescans the CTE for each of 100,000 alerts.
    overturned AS (
      SELECT DISTINCT v.alert_id FROM verdict v
      JOIN changes c ON c.alert_id = v.alert_id AND c.actor_type = 'human' AND (c.created_at, c.id) > (v.created_at, v.id) AND c.to_status IS DISTINCT FROM v.to_status
    )
    SELECT a.assigned_agent_id AS agent_id, max(ag.name) AS agent_name, count(*)::int AS alerts,
      count(e.alert_id)::int AS escalated,
      count(*) FILTER (WHERE a.status = 'closed_true_positive')::int AS true_positive,
      count(*) FILTER (WHERE a.status = 'closed_false_positive')::int AS false_positive,
      count(*) FILTER (WHERE a.status = 'closed_benign')::int AS benign,
      count(v.alert_id)::int AS verdicts,
      count(o.alert_id)::int AS overturned
    FROM a
    JOIN agents ag ON ag.id = a.assigned_agent_id
    LEFT JOIN escalated e ON e.alert_id = a.id
    LEFT JOIN verdict v ON v.alert_id = a.id
    LEFT JOIN overturned o ON o.alert_id = a.id
    GROUP BY 1 ORDER BY 3 DESC, 2`);
}

export function runsPerDay(db: Queryable, s: Scope) {
  return rows(db, sql<{ day: string; runs: number; failed: number; inputTokens: number; outputTokens: number }>`
    SELECT to_char((queued_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, count(*)::int AS runs,
      count(*) FILTER (WHERE status IN ('error', 'interrupted'))::int AS failed,
      coalesce(sum(input_tokens), 0)::int AS input_tokens, coalesce(sum(output_tokens), 0)::int AS output_tokens
    FROM agent_runs WHERE organization_id = ${s.organizationId} AND queued_at >= ${s.from}
    GROUP BY 1`);
}

export function deliveriesPerDestination(db: Queryable, s: Scope) {
  return rows(db, sql<{ destinationId: string; destinationName: string; deliveries: number; succeeded: number; failed: number }>`
    SELECT destination_id,
      -- The current name; a deleted destination's deliveries keep the name they were queued under.
      coalesce((SELECT o.name FROM output_destinations o WHERE o.id = destination_id), max(destination_name)) AS destination_name,
      count(*)::int AS deliveries,
      count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded,
      count(*) FILTER (WHERE status = 'failed')::int AS failed
    FROM destination_deliveries WHERE organization_id = ${s.organizationId} AND created_at >= ${s.from}
    GROUP BY 1 ORDER BY 3 DESC, 2`);
}

export function intelPerDay(db: Queryable, s: Scope) {
  return rows(db, sql<{ day: string; sourceId: string; sourceName: string; items: number; indicators: number }>`
    WITH items AS (
      SELECT ${DAY} AS day, source_id, count(*)::int AS n FROM intel_items
      WHERE organization_id = ${s.organizationId} AND created_at >= ${s.from} GROUP BY 1, 2
    ),
    indicators AS (
      SELECT to_char((ind.created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, i.source_id, count(*)::int AS n
      FROM intel_indicators ind JOIN intel_items i ON i.id = ind.item_id
      WHERE ind.organization_id = ${s.organizationId} AND ind.created_at >= ${s.from} GROUP BY 1, 2
    )
    SELECT coalesce(items.day, indicators.day) AS day, coalesce(items.source_id, indicators.source_id) AS source_id,
      src.name AS source_name, coalesce(items.n, 0) AS items, coalesce(indicators.n, 0) AS indicators
    FROM items FULL JOIN indicators ON indicators.day = items.day AND indicators.source_id = items.source_id
    JOIN intel_sources src ON src.id = coalesce(items.source_id, indicators.source_id)`);
}

/** The 10 ATT&CK techniques, or threat actors, named by most items ingested in the window. */
export function topTechniques(db: Queryable, s: Scope) {
  return rows(db, sql<{ id: string; name: string; items: number }>`
    SELECT t->>'technique' AS id, max(t->>'techniqueName') AS name, count(DISTINCT i.id)::int AS items
    FROM intel_items i, jsonb_array_elements(coalesce(i.classification->'attack', '[]'::jsonb)) t
    WHERE i.organization_id = ${s.organizationId} AND i.created_at >= ${s.from} AND t->>'technique' <> ''
    GROUP BY 1 ORDER BY 3 DESC, 1 LIMIT 10`);
}

export function topActors(db: Queryable, s: Scope) {
  return rows(db, sql<{ name: string; items: number }>`
    SELECT t->>'name' AS name, count(DISTINCT i.id)::int AS items
    FROM intel_items i, jsonb_array_elements(coalesce(i.classification->'actor', '[]'::jsonb)) t
    WHERE i.organization_id = ${s.organizationId} AND i.created_at >= ${s.from} AND t->>'name' <> ''
    GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 10`);
}

/** Threats not dismissed, now, per exposure band (floors from the hunt module: low, medium, high, critical). */
export function threatsByBand(db: Queryable, organizationId: string, floor: { low: number; medium: number; high: number; critical: number }) {
  return rows(db, sql<{ band: string; n: number }>`
    SELECT CASE WHEN exposure_score >= ${floor.critical} THEN 'critical' WHEN exposure_score >= ${floor.high} THEN 'high'
                WHEN exposure_score >= ${floor.medium} THEN 'medium' WHEN exposure_score >= ${floor.low} THEN 'low' ELSE 'none' END AS band,
      count(*)::int AS n
    FROM hunt_threats WHERE organization_id = ${organizationId} AND dismissed_at IS NULL
    GROUP BY 1`);
}
