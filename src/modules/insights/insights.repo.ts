import { sql } from 'kysely';
import type { Database } from '../../platform/db/database.js';

/**
 * The SQL of GET /api/insights: reads only, over the tables of other modules (alerts, agents, agent_runs, destination_deliveries, intel_items, intel_indicators,
 * intel_sources, hunt_threats, tool_approvals; listed in docs/architecture.md). Every query is scoped by
 * organization and, except the "now" figures (open alerts, hunt bands), by `from`. Days are UTC.
 */
type Scope = { organizationId: string; from: Date };

/**
 * Rows are grouped by the UTC day as an integer (days since 1970: arithmetic per row) and the
 * day is written as text once per group: to_char on every one of 100,000 rows cost more than
 * the grouping itself. Seconds come from date_part (double precision), not extract (numeric
 * since PostgreSQL 14: its arithmetic per row cost a third of the volume and duration queries).
 */
const dayNumber = (column: string) => sql`floor(date_part('epoch', ${sql.ref(column)}) / 86400)::int`;
const DAY_TEXT = sql`to_char(to_timestamp(d * 86400.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
const CLOSED = sql`('closed_true_positive', 'closed_false_positive', 'closed_benign')`;
const OPEN = sql`('open', 'in_progress', 'escalated')`;

/**
 * Each query in its own short transaction with room to sort and hash in memory: at 100,000
 * alerts the default work_mem (4 MB) sent the groupings and percentiles to disk.
 */
async function rows<T>(db: Database, query: ReturnType<typeof sql<T>>): Promise<T[]> {
  return db.transaction().execute(async (tx) => {
    // No parallel plans either: the figures are already asked for side by side, and a parallel
    // plan repeated its hash builds in every worker (each built the whole per-alert table).
    await sql`SELECT set_config('work_mem', '32MB', true), set_config('max_parallel_workers_per_gather', '0', true)`.execute(tx);
    return (await query.execute(tx)).rows;
  });
}

/** Alerts created per day, by severity (`severity` set) and by source (`source` set), in one pass. */
export function alertsPerDay(db: Database, s: Scope) {
  return rows(db, sql<{ day: string; severity: string | null; source: string | null; n: number }>`
    SELECT ${DAY_TEXT} AS day, severity, source, n FROM (
      SELECT d, severity, source, count(*)::int AS n FROM (
        SELECT ${dayNumber('created_at')} AS d, severity, coalesce(trigger_type, source_category) AS source FROM alerts
        WHERE organization_id = ${s.organizationId} AND created_at >= ${s.from}
      ) x
      GROUP BY GROUPING SETS ((d, severity), (d, source))
    ) g`);
}

/** Alerts not closed, now: by status and by age band (one row per pair). */
export function openAlerts(db: Database, organizationId: string) {
  return rows(db, sql<{ status: string; age: string; n: number }>`
    SELECT status,
      CASE WHEN created_at > now() - interval '1 day' THEN 'under_1d'
           WHEN created_at > now() - interval '7 days' THEN '1d_7d'
           WHEN created_at > now() - interval '30 days' THEN '7d_30d'
           ELSE 'over_30d' END AS age,
      count(*)::int AS n
    FROM alerts
    -- The open statuses by name (not NOT IN the closed ones): an index-only range scan of
    -- alerts_org_status_idx per status instead of a pass over every alert (85 → 29 ms at 100,000).
    WHERE organization_id = ${organizationId} AND status IN ${OPEN}
    GROUP BY 1, 2`);
}

export interface DurationRow {
  severity: string | null;
  agentId: string | null;
  agentName: string | null;
  /** 1 for the severity grouping (and the overall row, where severity is null), 2 for the agent one. */
  grouping: number;
  ackN: number;
  /** [p50, p90]; null entries when the group has no time. */
  ackP: Array<number | null> | null;
  resN: number;
  resP: Array<number | null> | null;
  /** The status mix and the agents' verdicts, read in the agent grouping (rows with an agent). */
  alerts: number;
  escalated: number;
  truePositive: number;
  falsePositive: number;
  benign: number;
  verdicts: number;
  overturned: number;
  /** The agents' verdicts by what they decided (the status they set), whatever people did after. */
  decidedEscalated: number;
  decidedFalsePositive: number;
  decidedBenign: number;
  decidedInProgress: number;
}

/** MTTA (created → first triaged) and MTTR (created → resolved) as p50/p90 in seconds, one sort per figure for both percentiles. */
const DURATIONS = sql`
  count(first_triaged_at)::int AS ack_n,
  percentile_cont(ARRAY[0.5, 0.9]) WITHIN GROUP (ORDER BY date_part('epoch', first_triaged_at - created_at)) AS ack_p,
  count(resolved_at) FILTER (WHERE status IN ${CLOSED})::int AS res_n,
  percentile_cont(ARRAY[0.5, 0.9]) WITHIN GROUP (ORDER BY date_part('epoch', resolved_at - created_at)) FILTER (WHERE status IN ${CLOSED}) AS res_p`;

/**
 * The window's alerts, overall and per severity (grouping 1) and per assigned agent (grouping
 * 2): MTTA and MTTR, and per agent the status mix, escalations, the agent's verdicts (its latest
 * status change) and those overturned (a person changed the status after the verdict and it now
 * differs from it). The verdict facts are columns kept by the status change itself (migration
 * 0052), so the timeline is not read at all. Two queries side by side, not one with three
 * grouping sets: the percentiles' sorts are most of the cost (quiet machine, 100,000 alerts: one
 * query 155–162 ms; the two 86 and 56 ms, on two connections at once).
 */
export async function alertDurations(db: Database, s: Scope): Promise<DurationRow[]> {
  const window = sql`organization_id = ${s.organizationId} AND created_at >= ${s.from}`;
  const [bySeverity, byAgent] = await Promise.all([
    rows(db, sql<DurationRow>`
      SELECT severity, NULL::uuid AS agent_id, NULL AS agent_name, 1 AS grouping, ${DURATIONS},
        0 AS alerts, 0 AS escalated, 0 AS true_positive, 0 AS false_positive, 0 AS benign, 0 AS verdicts, 0 AS overturned,
        0 AS decided_escalated, 0 AS decided_false_positive, 0 AS decided_benign, 0 AS decided_in_progress
      FROM alerts WHERE ${window}
      GROUP BY GROUPING SETS ((), (severity))`),
    // Grouped on the alerts alone, the agents' names joined to the ≤ 10 groups afterwards (a join
    // per alert cost a fifth of the query).
    rows(db, sql<DurationRow>`
      SELECT g.*, ag.name AS agent_name FROM (
        SELECT NULL AS severity, assigned_agent_id AS agent_id, 2 AS grouping, ${DURATIONS},
          count(*)::int AS alerts,
          count(*) FILTER (WHERE ever_escalated)::int AS escalated,
          count(*) FILTER (WHERE status = 'closed_true_positive')::int AS true_positive,
          count(*) FILTER (WHERE status = 'closed_false_positive')::int AS false_positive,
          count(*) FILTER (WHERE status = 'closed_benign')::int AS benign,
          count(agent_verdict_at)::int AS verdicts,
          count(*) FILTER (WHERE human_status_at > agent_verdict_at AND status IS DISTINCT FROM agent_verdict_status)::int AS overturned,
          count(*) FILTER (WHERE agent_verdict_status = 'escalated')::int AS decided_escalated,
          count(*) FILTER (WHERE agent_verdict_status = 'closed_false_positive')::int AS decided_false_positive,
          count(*) FILTER (WHERE agent_verdict_status = 'closed_benign')::int AS decided_benign,
          count(*) FILTER (WHERE agent_verdict_status = 'in_progress')::int AS decided_in_progress
        FROM alerts WHERE ${window} AND assigned_agent_id IS NOT NULL
        GROUP BY assigned_agent_id
      ) g LEFT JOIN agents ag ON ag.id = g.agent_id`),
  ]);
  return [...bySeverity, ...byAgent];
}

/**
 * Runs per day, real runs (`evaluation` false) apart from the runs of evaluations (`mode`
 * `evaluation`: cases run in a sandbox), so an evaluation of 30 cases does not count as 30 runs
 * of the agent (issue 47 item 10).
 */
export function runsPerDay(db: Database, s: Scope) {
  return rows(db, sql<{ day: string; evaluation: boolean; runs: number; failed: number; inputTokens: number; outputTokens: number }>`
    SELECT ${DAY_TEXT} AS day, evaluation, runs, failed, input_tokens, output_tokens FROM (
      SELECT ${dayNumber('queued_at')} AS d, mode = 'evaluation' AS evaluation, count(*)::int AS runs,
        count(*) FILTER (WHERE status IN ('error', 'interrupted'))::int AS failed,
        coalesce(sum(input_tokens), 0)::int AS input_tokens, coalesce(sum(output_tokens), 0)::int AS output_tokens
      FROM agent_runs WHERE organization_id = ${s.organizationId} AND queued_at >= ${s.from}
      GROUP BY 1, 2
    ) g`);
}

export function deliveriesPerDestination(db: Database, s: Scope) {
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

export function intelPerDay(db: Database, s: Scope) {
  return rows(db, sql<{ day: string; sourceId: string; sourceName: string; items: number; indicators: number }>`
    WITH items AS (
      SELECT ${dayNumber('created_at')} AS d, source_id, count(*)::int AS n FROM intel_items
      WHERE organization_id = ${s.organizationId} AND created_at >= ${s.from} GROUP BY 1, 2
    ),
    indicators AS (
      SELECT ${dayNumber('ind.created_at')} AS d, i.source_id, count(*)::int AS n
      FROM intel_indicators ind JOIN intel_items i ON i.id = ind.item_id
      WHERE ind.organization_id = ${s.organizationId} AND ind.created_at >= ${s.from} GROUP BY 1, 2
    )
    SELECT to_char(to_timestamp(coalesce(items.d, indicators.d) * 86400.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, coalesce(items.source_id, indicators.source_id) AS source_id,
      src.name AS source_name, coalesce(items.n, 0) AS items, coalesce(indicators.n, 0) AS indicators
    FROM items FULL JOIN indicators ON indicators.d = items.d AND indicators.source_id = items.source_id
    JOIN intel_sources src ON src.id = coalesce(items.source_id, indicators.source_id)`);
}

/** The 10 ATT&CK techniques, or threat actors, named by most items ingested in the window. */
export function topTechniques(db: Database, s: Scope) {
  return rows(db, sql<{ id: string; name: string; items: number }>`
    SELECT t->>'technique' AS id, max(t->>'techniqueName') AS name, count(DISTINCT i.id)::int AS items
    FROM intel_items i, jsonb_array_elements(coalesce(i.classification->'attack', '[]'::jsonb)) t
    WHERE i.organization_id = ${s.organizationId} AND i.created_at >= ${s.from} AND t->>'technique' <> ''
    GROUP BY 1 ORDER BY 3 DESC, 1 LIMIT 10`);
}

export function topActors(db: Database, s: Scope) {
  return rows(db, sql<{ name: string; items: number }>`
    SELECT t->>'name' AS name, count(DISTINCT i.id)::int AS items
    FROM intel_items i, jsonb_array_elements(coalesce(i.classification->'actor', '[]'::jsonb)) t
    WHERE i.organization_id = ${s.organizationId} AND i.created_at >= ${s.from} AND t->>'name' <> ''
    GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 10`);
}

/** Threats not dismissed, now, per exposure band (floors from the hunt module: low, medium, high, critical). */
export function threatsByBand(db: Database, organizationId: string, floor: { low: number; medium: number; high: number; critical: number }) {
  return rows(db, sql<{ band: string; n: number }>`
    SELECT CASE WHEN exposure_score >= ${floor.critical} THEN 'critical' WHEN exposure_score >= ${floor.high} THEN 'high'
                WHEN exposure_score >= ${floor.medium} THEN 'medium' WHEN exposure_score >= ${floor.low} THEN 'low' ELSE 'none' END AS band,
      count(*)::int AS n
    FROM hunt_threats WHERE organization_id = ${organizationId} AND dismissed_at IS NULL
    GROUP BY 1`);
}

/** The statuses of a request a person approved, whatever became of the call since. */
const APPROVED = sql`('approved', 'executing', 'executed', 'failed', 'outcome_unknown')`;

/** Approval requests of the window per agent and tool, by outcome; agents' names joined to the groups afterwards. */
export function approvalsByAgentTool(db: Database, s: Scope) {
  return rows(db, sql<{ agentId: string; agentName: string | null; toolName: string; requests: number; approved: number; denied: number; expired: number; pending: number }>`
    SELECT g.*, ag.name AS agent_name FROM (
      SELECT agent_id, tool_name, count(*)::int AS requests,
        count(*) FILTER (WHERE status IN ${APPROVED})::int AS approved,
        count(*) FILTER (WHERE status = 'denied')::int AS denied,
        count(*) FILTER (WHERE status = 'expired')::int AS expired,
        count(*) FILTER (WHERE status = 'pending')::int AS pending
      FROM tool_approvals WHERE organization_id = ${s.organizationId} AND requested_at >= ${s.from}
      GROUP BY 1, 2
    ) g LEFT JOIN agents ag ON ag.id = g.agent_id
    ORDER BY g.requests DESC, ag.name, g.tool_name`);
}

/**
 * Requests waiting now (and the oldest of them), and the time from request to a person's
 * decision (p50/p90) for the window's requests: expiry and an interrupted run decide nothing.
 */
export async function approvalDecisions(db: Database, s: Scope) {
  const [r] = await rows(db, sql<{ pending: number; oldestPendingAt: Date | null; decidedN: number; decidedP: Array<number | null> | null }>`
    SELECT p.pending, p.oldest_pending_at, d.decided_n, d.decided_p
    FROM (SELECT count(*)::int AS pending, min(requested_at) AS oldest_pending_at FROM tool_approvals WHERE organization_id = ${s.organizationId} AND status = 'pending') p,
      (SELECT count(*)::int AS decided_n, percentile_cont(ARRAY[0.5, 0.9]) WITHIN GROUP (ORDER BY date_part('epoch', decided_at - requested_at)) AS decided_p
       FROM tool_approvals WHERE organization_id = ${s.organizationId} AND requested_at >= ${s.from} AND decided_via IN ('console', 'api', 'slack') AND decided_at IS NOT NULL) d`);
  return r!;
}
