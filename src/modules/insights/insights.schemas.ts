import { z } from 'zod';

/**
 * GET /api/insights (an extension; docs/console.md#insights): figures of the organization over
 * the last 7, 30 or 90 days, computed from the database on each request. Days are UTC days,
 * oldest first, every day of the window present (zeros included) so a chart needs no filling.
 */
export const INSIGHT_WINDOWS = ['7d', '30d', '90d'] as const;
export type InsightWindow = (typeof INSIGHT_WINDOWS)[number];

export const InsightsQuery = z.strictObject({
  window: z.enum(INSIGHT_WINDOWS).default('30d').describe('The last 7, 30 or 90 UTC days, today included (default 30d)'),
});

const day = z.string().describe('UTC day, YYYY-MM-DD');
const count = z.number().int();
const seconds = z.number().nullable().describe('Seconds; null when no alert of the group has the time');

const Durations = z.object({
  count: count.describe('Alerts of the group that have the time'),
  p50Seconds: seconds,
  p90Seconds: seconds,
});
const SeverityDurations = Durations.extend({ severity: z.enum(['low', 'medium', 'high', 'critical']) });
const AgentDurations = Durations.extend({ agentId: z.uuid(), agentName: z.string() });

const AlertInsights = z.object({
  perDay: z
    .array(z.object({ day, low: count, medium: count, high: count, critical: count, total: count }))
    .describe('Alerts created per day by severity'),
  sources: z.array(z.string()).describe('The sources of `perDaySource`, most alerts first: a trigger type (`webhook`, `jira`…) or a source category (`detection`, `agent`, `user`, `hunt`)'),
  perDaySource: z.array(z.object({ day, counts: z.record(z.string(), count).describe('Alerts created that day per source (sources with none omitted)') })),
  open: z.object({
    byStatus: z.array(z.object({ status: z.enum(['open', 'in_progress', 'escalated']), count })).describe('Alerts not closed now, whenever created'),
    byAge: z.array(z.object({ age: z.enum(['under_1d', '1d_7d', '7d_30d', 'over_30d']), count })).describe('Alerts not closed now, by time since creation'),
  }),
  mtta: z.object({ all: Durations, bySeverity: z.array(SeverityDurations), byAgent: z.array(AgentDurations) }).describe('Time to acknowledge: creation → first triage (an agent assigned, by a route, a trigger or a person), alerts created in the window'),
  mttr: z.object({ all: Durations, bySeverity: z.array(SeverityDurations), byAgent: z.array(AgentDurations) }).describe('Time to resolve: creation → closed, alerts created in the window and closed'),
  agents: z
    .array(
      z.object({
        agentId: z.uuid(),
        agentName: z.string(),
        alerts: count.describe('Alerts created in the window and assigned to the agent'),
        escalated: count.describe('Of those, alerts escalated (by anyone)'),
        escalationRate: z.number().nullable().describe('escalated / alerts, 0..1'),
        dispositions: z.object({ closed_true_positive: count, closed_false_positive: count, closed_benign: count, not_closed: count }).describe('The status of those alerts now'),
        verdicts: count.describe('Alerts whose status the agent set (its last status change on the alert is its verdict)'),
        decided: z
          .object({ escalated: count, closed_false_positive: count, closed_benign: count, in_progress: count })
          .describe('The verdicts by what the agent decided (the status it set), whatever people did after; `dispositions` is what the alerts are now, mostly people\'s doing'),
        overturned: count.describe('Verdicts a person overturned: a person changed the status after the verdict, and the alert\'s status now differs from the verdict'),
        overturnRate: z.number().nullable().describe('overturned / verdicts, 0..1: how often a person disagreed with the agent'),
      }),
    )
    .describe('Per assigned agent, most alerts first'),
});

const RunInsights = z.object({
  perDay: z.array(z.object({ day, runs: count, failed: count.describe('Runs that ended in `error` or `interrupted`'), tokens: count.describe('Input and output tokens') })),
  totals: z.object({ runs: count, failed: count, inputTokens: count, outputTokens: count }).describe('Real runs only (API, triggers, cron, triage): not the runs of evaluations'),
  evaluations: z
    .object({ runs: count, inputTokens: count, outputTokens: count })
    .describe('The runs of evaluations (cases run in the sandbox) in the window and their tokens: their cost, apart from the real runs'),
}).describe('Agent runs queued in the window; `perDay` and `totals` count real runs only');

const DeliveryInsights = z.object({
  byDestination: z
    .array(z.object({ destinationId: z.uuid(), destinationName: z.string(), deliveries: count, succeeded: count, failed: count, failureRate: z.number().nullable().describe('failed / deliveries, 0..1') }))
    .describe('Deliveries created in the window, per destination (a deleted destination under its last name), most first'),
});

const IntelInsights = z.object({
  sources: z.array(z.object({ sourceId: z.uuid(), sourceName: z.string() })).describe('The sources of `perDay`, most items first'),
  perDay: z.array(z.object({ day, items: count, indicators: count, bySource: z.record(z.string(), z.object({ items: count, indicators: count })).describe('Keyed by sourceId; sources with nothing that day omitted') })),
  topTechniques: z.array(z.object({ id: z.string().describe('ATT&CK technique id'), name: z.string(), items: count })).describe('The 10 techniques named by most items ingested in the window'),
  topActors: z.array(z.object({ name: z.string(), items: count })).describe('The 10 threat actors named by most items ingested in the window'),
});

const HuntInsights = z.object({
  byExposureBand: z
    .array(z.object({ band: z.enum(['none', 'low', 'medium', 'high', 'critical']), count }))
    .describe('Threats not dismissed, now, by exposure band (low ≥ 1, medium ≥ 40, high ≥ 60, critical ≥ 80; none below 1)'),
});

const ApprovalInsights = z.object({
  pending: count.describe('Requests waiting for a decision now, whenever requested'),
  oldestPendingAt: z.string().nullable().describe('When the longest-waiting of them was requested; null when none waits'),
  timeToDecision: Durations.describe('Requested → decided by a person (console, API or Slack), requests of the window; expired requests and those closed by an interrupted run are not decisions and are left out'),
  byAgentTool: z
    .array(
      z.object({
        agentId: z.uuid(),
        agentName: z.string().describe('The agent\'s name; empty once the agent is deleted'),
        toolName: z.string(),
        requests: count.describe('Requests of the window'),
        approved: count.describe('Approved (and then executing, executed, failed or outcome_unknown)'),
        denied: count.describe('Denied by a person, or closed because the run was interrupted'),
        expired: count.describe('No one decided in time'),
        pending: count.describe('Still waiting'),
      }),
    )
    .describe('Per agent and tool, most requests first'),
});

export const Insights = z
  .object({
    window: z.enum(INSIGHT_WINDOWS),
    from: z.string().describe('Start of the first day of the window (UTC midnight)'),
    generatedAt: z.string(),
    alerts: AlertInsights,
    runs: RunInsights.nullable().describe('null without `agent.read`'),
    deliveries: DeliveryInsights.nullable().describe('null without `destination.read`'),
    intel: IntelInsights.nullable().describe('null without `intel.read`'),
    hunt: HuntInsights.nullable().describe('null without `hunt.read`'),
    approvals: ApprovalInsights.nullable().describe('Approval requests of agents\' tool calls (docs/approvals.md); null without `approval.read`'),
  })
  .meta({ id: 'Insights' });
export type InsightsDto = z.infer<typeof Insights>;
