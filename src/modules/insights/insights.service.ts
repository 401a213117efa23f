import type { Database } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import { hasPermission } from '../../platform/auth/actor.js';
import { iso } from '../../platform/time.js';
import { BAND_FLOOR } from '../hunt/index.js';
import { byDay, rate, secondsOf, windowDays } from './insights.fns.js';
import * as repo from './insights.repo.js';
import type { InsightsDto, InsightWindow } from './insights.schemas.js';

const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
const OPEN_STATUSES = ['open', 'in_progress', 'escalated'] as const;
const AGES = ['under_1d', '1d_7d', '7d_30d', 'over_30d'] as const;
const BANDS = ['none', 'low', 'medium', 'high', 'critical'] as const;

const sum = <T>(rows: readonly T[], f: (r: T) => number) => rows.reduce((n, r) => n + f(r), 0);
const durations = (n: number, p: Array<number | null> | null) => ({ count: n, p50Seconds: secondsOf(p?.[0] ?? null), p90Seconds: secondsOf(p?.[1] ?? null) });

/**
 * The figures of GET /api/insights. The alert sections need `alert.read` (the route's
 * permission); each other section is answered only to a caller who may read its resources
 * (null otherwise), so Insights reveals nothing its reader could not list.
 */
export function createInsightsService(deps: { db: Database }) {
  const { db } = deps;

  async function alertSection(scope: { organizationId: string; from: Date }, days: string[]): Promise<InsightsDto['alerts']> {
    const [volume, open, dur] = await Promise.all([repo.alertsPerDay(db, scope), repo.openAlerts(db, scope.organizationId), repo.alertDurations(db, scope)]);
    // A deleted agent's alerts keep its id but have no name to show: left out, as in the durations.
    const quality = dur
      .filter((r): r is typeof r & { agentId: string; agentName: string } => r.grouping === 2 && r.agentId !== null && r.agentName !== null)
      .sort((a, b) => b.alerts - a.alerts || a.agentName.localeCompare(b.agentName));
    const perDay = volume.filter((r) => r.severity !== null);
    const perSource = volume.filter((r) => r.source !== null) as Array<{ day: string; source: string; n: number }>;
    const sevByDay = byDay(perDay);
    const srcByDay = byDay(perSource);
    const sourceTotals = new Map<string, number>();
    for (const r of perSource) sourceTotals.set(r.source, (sourceTotals.get(r.source) ?? 0) + r.n);
    const overall = dur.find((r) => r.grouping === 1 && r.severity === null);
    const pick = (key: 'ack' | 'res') => ({
      all: overall ? durations(overall[`${key}N`], overall[`${key}P`]) : durations(0, null),
      bySeverity: SEVERITIES.map((severity) => {
        const r = dur.find((x) => x.grouping === 1 && x.severity === severity);
        return { severity, ...(r ? durations(r[`${key}N`], r[`${key}P`]) : durations(0, null)) };
      }),
      byAgent: dur
        .filter((x) => x.grouping === 2 && x.agentId !== null && x[`${key}N`] > 0)
        .map((r) => ({ agentId: r.agentId!, agentName: r.agentName ?? '', ...durations(r[`${key}N`], r[`${key}P`]) }))
        .sort((a, b) => b.count - a.count || a.agentName.localeCompare(b.agentName)),
    });
    return {
      perDay: days.map((day) => {
        const counts = Object.fromEntries(SEVERITIES.map((s) => [s, sevByDay.get(day)?.find((r) => r.severity === s)?.n ?? 0])) as Record<(typeof SEVERITIES)[number], number>;
        return { day, ...counts, total: sum(SEVERITIES, (s) => counts[s]) };
      }),
      sources: [...sourceTotals.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([s]) => s),
      perDaySource: days.map((day) => ({ day, counts: Object.fromEntries((srcByDay.get(day) ?? []).map((r) => [r.source, r.n])) })),
      open: {
        byStatus: OPEN_STATUSES.map((status) => ({ status, count: sum(open.filter((r) => r.status === status), (r) => r.n) })),
        byAge: AGES.map((age) => ({ age, count: sum(open.filter((r) => r.age === age), (r) => r.n) })),
      },
      mtta: pick('ack'),
      mttr: pick('res'),
      agents: quality.map((q) => ({
        agentId: q.agentId,
        agentName: q.agentName,
        alerts: q.alerts,
        escalated: q.escalated,
        escalationRate: rate(q.escalated, q.alerts),
        dispositions: { closed_true_positive: q.truePositive, closed_false_positive: q.falsePositive, closed_benign: q.benign, not_closed: q.alerts - q.truePositive - q.falsePositive - q.benign },
        verdicts: q.verdicts,
        decided: { escalated: q.decidedEscalated, closed_false_positive: q.decidedFalsePositive, closed_benign: q.decidedBenign, in_progress: q.decidedInProgress },
        overturned: q.overturned,
        overturnRate: rate(q.overturned, q.verdicts),
      })),
    };
  }

  async function runSection(scope: { organizationId: string; from: Date }, days: string[]): Promise<NonNullable<InsightsDto['runs']>> {
    const all = await repo.runsPerDay(db, scope);
    const rows = all.filter((r) => !r.evaluation);
    const evaluation = all.filter((r) => r.evaluation);
    const map = new Map(rows.map((r) => [r.day, r]));
    return {
      perDay: days.map((day) => {
        const r = map.get(day);
        return { day, runs: r?.runs ?? 0, failed: r?.failed ?? 0, tokens: r ? r.inputTokens + r.outputTokens : 0 };
      }),
      totals: { runs: sum(rows, (r) => r.runs), failed: sum(rows, (r) => r.failed), inputTokens: sum(rows, (r) => r.inputTokens), outputTokens: sum(rows, (r) => r.outputTokens) },
      evaluations: { runs: sum(evaluation, (r) => r.runs), inputTokens: sum(evaluation, (r) => r.inputTokens), outputTokens: sum(evaluation, (r) => r.outputTokens) },
    };
  }

  async function deliverySection(scope: { organizationId: string; from: Date }): Promise<NonNullable<InsightsDto['deliveries']>> {
    const rows = await repo.deliveriesPerDestination(db, scope);
    return { byDestination: rows.map((r) => ({ ...r, failureRate: rate(r.failed, r.deliveries) })) };
  }

  async function intelSection(scope: { organizationId: string; from: Date }, days: string[]): Promise<NonNullable<InsightsDto['intel']>> {
    const [perDay, techniques, actors] = await Promise.all([repo.intelPerDay(db, scope), repo.topTechniques(db, scope), repo.topActors(db, scope)]);
    const totals = new Map<string, { sourceName: string; items: number }>();
    for (const r of perDay) totals.set(r.sourceId, { sourceName: r.sourceName, items: (totals.get(r.sourceId)?.items ?? 0) + r.items });
    const map = byDay(perDay);
    return {
      sources: [...totals.entries()].sort((a, b) => b[1].items - a[1].items || a[1].sourceName.localeCompare(b[1].sourceName)).map(([sourceId, t]) => ({ sourceId, sourceName: t.sourceName })),
      perDay: days.map((day) => {
        const rows = map.get(day) ?? [];
        return { day, items: sum(rows, (r) => r.items), indicators: sum(rows, (r) => r.indicators), bySource: Object.fromEntries(rows.map((r) => [r.sourceId, { items: r.items, indicators: r.indicators }])) };
      }),
      topTechniques: techniques,
      topActors: actors,
    };
  }

  async function huntSection(organizationId: string): Promise<NonNullable<InsightsDto['hunt']>> {
    const rows = await repo.threatsByBand(db, organizationId, BAND_FLOOR);
    return { byExposureBand: BANDS.map((band) => ({ band, count: rows.find((r) => r.band === band)?.n ?? 0 })) };
  }

  async function approvalSection(scope: { organizationId: string; from: Date }): Promise<NonNullable<InsightsDto['approvals']>> {
    const [byAgentTool, decisions] = await Promise.all([repo.approvalsByAgentTool(db, scope), repo.approvalDecisions(db, scope)]);
    return {
      pending: decisions.pending,
      oldestPendingAt: decisions.oldestPendingAt ? iso(decisions.oldestPendingAt) : null,
      timeToDecision: durations(decisions.decidedN, decisions.decidedP),
      byAgentTool: byAgentTool.map((r) => ({ ...r, agentName: r.agentName ?? '' })),
    };
  }

  return {
    async get(ctx: RequestContext, window: InsightWindow, now = new Date()): Promise<InsightsDto> {
      const { actor } = ctx;
      const { from, days } = windowDays(window, now);
      const scope = { organizationId: actor.organizationId, from };
      const [alerts, runs, deliveries, intel, hunt, approvals] = await Promise.all([
        alertSection(scope, days),
        hasPermission(actor, 'agent.read') ? runSection(scope, days) : null,
        hasPermission(actor, 'destination.read') ? deliverySection(scope) : null,
        hasPermission(actor, 'intel.read') ? intelSection(scope, days) : null,
        hasPermission(actor, 'hunt.read') ? huntSection(actor.organizationId) : null,
        hasPermission(actor, 'approval.read') ? approvalSection(scope) : null,
      ]);
      return { window, from: iso(from), generatedAt: iso(now), alerts, runs, deliveries, intel, hunt, approvals };
    },
  };
}
