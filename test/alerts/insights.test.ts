import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';
import { createAgent } from '../support/agents.js';
import { createDestination, queue } from '../support/delivery.js';
import { seedIntel } from '../support/intel-data.js';
import { backfillVerdictColumns } from '../../src/modules/alerts/migrations/0052_alert_verdict_columns.js';

/**
 * GET /api/insights over a small organization whose every figure is known: alert times set to
 * the second, one agent verdict overturned by a person, one escalation, an alert older than
 * the 30-day window, deliveries, intel items, a threat. Organization B sees none of it.
 */
let t: TestContext;
let admin: Record<string, string>;
let alertReader: TestUser;
let nobody: TestUser;
let agentId: string;
const at = { overturned: new Date(), escalated: new Date(), old: new Date() };
const HOUR = 3_600_000;
const dayOf = (d: Date) => d.toISOString().slice(0, 10);

async function newAlert(title: string, severity: string): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: '/api/alerts', headers: admin, payload: { title, severity } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().alert.id;
}

/**
 * An agent's status change at a chosen time, as the alert tools write it (alerts.transition.ts):
 * a timeline entry (actor agent, data.from/to) and the alert's status and verdict columns.
 * (test/alerts/alerts-triage.test.ts shows a real agent run's escalation counted.)
 */
async function agentVerdict(alertId: string, kind: string, from: string, to: string, when: Date): Promise<void> {
  await t.database.db.insertInto('alertTimeline').values({ id: uuidv7(), organizationId: t.orgA.organization.id, alertId, kind, actorType: 'agent', actorUserId: null, actorAgentId: agentId, runId: null, body: '', data: JSON.stringify({ from, to }), createdAt: when }).execute();
  await sql`UPDATE alerts SET status = ${to}, agent_verdict_status = ${to}, agent_verdict_at = ${when}, ever_escalated = ever_escalated OR ${to} = 'escalated' WHERE id = ${alertId}`.execute(t.database.db);
}

/**
 * Approval requests of one run whose every figure is known (docs/approvals.md): decided by
 * people after 60, 120, 300 and 900 s (approved ×2, of which one executed; denied ×2), one
 * expired (no decision), one still pending since 2 h ago, one closed by an interrupt (denied, no
 * person), and one requested before the 30-day window (approved after 10 s).
 */
async function seedApprovals(org: string): Promise<void> {
  const db = t.database.db;
  const now = Date.now();
  const runId = uuidv7();
  // Queued before every window, so the run figures (no runs) stay as the other test reads them.
  const at = new Date(now - 100 * 24 * HOUR);
  await db.insertInto('agentRuns').values({ id: runId, organizationId: org, agentId, status: 'awaiting_approval', statusMessage: null, mode: 'async', input: JSON.stringify({}), triggerId: null, triggerSource: null, triggerContext: null, actorUserId: null, actorApiKeyId: null, result: null, queuedAt: at, startedAt: at, finishedAt: null, updatedAt: at }).execute();
  const request = (toolName: string, requestedAt: Date, status: string, decided: { afterS: number; via: 'console' | 'api' | 'slack' | 'expiry' | null } | null) => ({
    id: uuidv7(), organizationId: org, runId, agentId, alertId: null, toolCallId: `call_${uuidv7()}`, toolName, args: JSON.stringify({ hostname: 'web-01' }), reason: '', status: status as 'pending',
    requestedAt, expiresAt: new Date(requestedAt.getTime() + HOUR), decidedAt: decided ? new Date(requestedAt.getTime() + decided.afterS * 1000) : null,
    decidedByUserId: null, decidedByName: decided?.via && decided.via !== 'expiry' ? 'Ana' : null, decidedVia: decided?.via ?? null, comment: null,
  });
  const isolate = 'mcp:edr/isolate_host';
  await db.insertInto('toolApprovals').values([
    request(isolate, new Date(now - 5 * HOUR), 'executed', { afterS: 60, via: 'console' }),
    request(isolate, new Date(now - 5 * HOUR), 'approved', { afterS: 120, via: 'slack' }),
    request(isolate, new Date(now - 5 * HOUR), 'denied', { afterS: 300, via: 'api' }),
    request('block_indicator', new Date(now - 5 * HOUR), 'denied', { afterS: 900, via: 'console' }),
    request('block_indicator', new Date(now - 4 * HOUR), 'expired', { afterS: 3600, via: 'expiry' }),
    request('block_indicator', new Date(now - 3 * HOUR), 'denied', { afterS: 30, via: null }),
    request(isolate, new Date(now - 2 * HOUR), 'pending', null),
    request(isolate, new Date(now - 40 * 24 * HOUR), 'executed', { afterS: 10, via: 'api' }),
  ]).execute();
}

const insights = (query = '', headers = admin) => t.app.inject({ url: `/api/insights${query}`, headers });

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  const org = t.orgA.organization.id;
  alertReader = await userWithPermissions(t.database.db, org, ['alert.read']);
  nobody = await userWithPermissions(t.database.db, org, []);
  agentId = await createAgent(t, t.orgA.apiKey.key, { name: 'Triage bot' });
  const now = Date.now();
  at.overturned = new Date(now - 10 * HOUR);
  at.escalated = new Date(now - 5 * HOUR);
  at.old = new Date(now - 40 * 24 * HOUR);

  // Acknowledged after 600 s, the agent says false positive, a person says true positive: resolved after 7,200 s.
  const overturned = await newAlert('Credential stuffing on the VPN', 'high');
  await sql`UPDATE alerts SET created_at = ${at.overturned}, first_triaged_at = ${new Date(at.overturned.getTime() + 600_000)}, assigned_agent_id = ${agentId}, status = 'in_progress' WHERE id = ${overturned}`.execute(t.database.db);
  await agentVerdict(overturned, 'closed', 'in_progress', 'closed_false_positive', new Date(at.overturned.getTime() + HOUR));
  const human = await t.app.inject({ method: 'POST', url: `/api/alerts/${overturned}/status`, headers: admin, payload: { status: 'closed_true_positive', reason: 'The agent missed the second ASN' } });
  expect(human.statusCode, human.body).toBe(200);
  await sql`UPDATE alerts SET resolved_at = ${new Date(at.overturned.getTime() + 2 * HOUR)} WHERE id = ${overturned}`.execute(t.database.db);

  // Acknowledged after 1,200 s, escalated by the agent, left so.
  const escalated = await newAlert('Mimikatz on a domain controller', 'high');
  await sql`UPDATE alerts SET created_at = ${at.escalated}, first_triaged_at = ${new Date(at.escalated.getTime() + 1_200_000)}, assigned_agent_id = ${agentId}, status = 'in_progress' WHERE id = ${escalated}`.execute(t.database.db);
  await agentVerdict(escalated, 'escalated', 'in_progress', 'escalated', new Date(at.escalated.getTime() + HOUR));

  // Open, never triaged, created before the 30-day window.
  const old = await newAlert('Stale phishing report', 'low');
  await sql`UPDATE alerts SET created_at = ${at.old} WHERE id = ${old}`.execute(t.database.db);

  // Organization B's alert is not counted in A's figures.
  const other = await t.app.inject({ method: 'POST', url: '/api/alerts', headers: bearer(t.orgB.apiKey.key), payload: { title: 'B only', severity: 'critical' } });
  expect(other.statusCode).toBe(200);

  const destination = await createDestination(t, t.orgA.apiKey.key, { type: 'webhook', name: 'SOAR', config: { url: 'https://soar.example/hook', authType: 'bearer' }, token: 't' });
  const { ids } = await queue(t, org, [destination]);
  await queue(t, org, [destination]);
  await sql`UPDATE destination_deliveries SET status = 'failed' WHERE id = ${ids[0]!}`.execute(t.database.db);

  await seedIntel(t.database.db, org);
  await seedApprovals(org);
  await t.database.db.insertInto('huntThreats').values({ id: uuidv7(), organizationId: org, canonicalKey: 'CVE-2026-1234', title: 'FortiOS', actorId: null, latestRunId: null, assessmentRunningExecutionId: null, latestAlertId: null, activeHuntAlertId: null, dismissedByUserId: null, dismissedReason: null, relevancyScore: 80, exposureScore: 75, createdAt: new Date(), updatedAt: new Date() }).execute();
});
afterAll(() => t?.close());

describe('GET /api/insights', () => {
  it('answers the alert figures of the window: volume per day by severity and source, open alerts, MTTA and MTTR, and the agent whose verdict a person overturned', async () => {
    const res = await insights('?window=30d');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.window).toBe('30d');
    expect(body.alerts.perDay).toHaveLength(30);
    expect(body.alerts.perDay.at(-1).day).toBe(dayOf(new Date()));
    const volume = Object.fromEntries(body.alerts.perDay.filter((d: { total: number }) => d.total > 0).map((d: { day: string; high: number; total: number }) => [d.day, d]));
    const expected: Record<string, number> = {};
    for (const d of [at.overturned, at.escalated]) expected[dayOf(d)] = (expected[dayOf(d)] ?? 0) + 1;
    expect(Object.fromEntries(Object.entries(volume).map(([day, d]) => [day, (d as { high: number }).high]))).toEqual(expected);
    expect(body.alerts.sources).toEqual(['user']);
    expect(body.alerts.open).toEqual({
      byStatus: [{ status: 'open', count: 1 }, { status: 'in_progress', count: 0 }, { status: 'escalated', count: 1 }],
      byAge: [{ age: 'under_1d', count: 1 }, { age: '1d_7d', count: 0 }, { age: '7d_30d', count: 0 }, { age: 'over_30d', count: 1 }],
    });
    expect(body.alerts.mtta.all).toEqual({ count: 2, p50Seconds: 900, p90Seconds: 1140 });
    expect(body.alerts.mtta.bySeverity.find((s: { severity: string }) => s.severity === 'high')).toEqual({ severity: 'high', count: 2, p50Seconds: 900, p90Seconds: 1140 });
    expect(body.alerts.mtta.byAgent).toEqual([{ agentId, agentName: 'Triage bot', count: 2, p50Seconds: 900, p90Seconds: 1140 }]);
    expect(body.alerts.mttr.all).toEqual({ count: 1, p50Seconds: 7200, p90Seconds: 7200 });
    expect(body.alerts.agents).toEqual([{
      agentId, agentName: 'Triage bot', alerts: 2, escalated: 1, escalationRate: 0.5,
      dispositions: { closed_true_positive: 1, closed_false_positive: 0, closed_benign: 0, not_closed: 1 },
      verdicts: 2, overturned: 1, overturnRate: 0.5,
      // What the agent decided (false positive, escalate), not the alerts' current, human status (issue 47 item 11).
      decided: { escalated: 1, closed_false_positive: 1, closed_benign: 0, in_progress: 0 },
    }]);
  });

  it('answers runs, deliveries per destination, intel per day and source with top techniques, and threats per exposure band', async () => {
    const body = (await insights()).json();
    expect(body.window).toBe('30d');
    expect(body.runs).toMatchObject({ totals: { runs: 0, failed: 0, inputTokens: 0, outputTokens: 0 } });
    expect(body.runs.perDay).toHaveLength(30);
    expect(body.deliveries.byDestination).toEqual([{ destinationId: expect.any(String), destinationName: 'SOAR', deliveries: 2, succeeded: 0, failed: 1, failureRate: 0.5 }]);
    expect(body.intel.sources).toEqual([{ sourceId: expect.any(String), sourceName: 'seeded' }]);
    const today = body.intel.perDay.at(-1);
    expect(today).toMatchObject({ day: dayOf(new Date()), items: 5, indicators: 15 });
    expect(today.bySource[body.intel.sources[0].sourceId]).toEqual({ items: 5, indicators: 15 });
    expect(body.intel.topTechniques).toEqual([{ id: 'T1190', name: 'Exploit Public-Facing Application', items: 1 }]);
    expect(body.intel.topActors).toEqual([]);
    expect(body.hunt.byExposureBand).toEqual([{ band: 'none', count: 0 }, { band: 'low', count: 0 }, { band: 'medium', count: 0 }, { band: 'high', count: 1 }, { band: 'critical', count: 0 }]);
  });

  it('answers the approval figures: pending now, time to a person\'s decision p50/p90, and per agent and tool the approvals, denials and expiries', async () => {
    const body = (await insights('?window=30d')).json();
    expect(body.approvals.pending).toBe(1);
    expect(Date.now() - new Date(body.approvals.oldestPendingAt).getTime()).toBeGreaterThanOrEqual(2 * HOUR);
    // 60, 120, 300, 900 s: percentile_cont gives 210 and 720; the expiry, the interrupt and the request before the window are left out.
    expect(body.approvals.timeToDecision).toEqual({ count: 4, p50Seconds: 210, p90Seconds: 720 });
    expect(body.approvals.byAgentTool).toEqual([
      { agentId, agentName: 'Triage bot', toolName: 'mcp:edr/isolate_host', requests: 4, approved: 2, denied: 1, expired: 0, pending: 1 },
      { agentId, agentName: 'Triage bot', toolName: 'block_indicator', requests: 3, approved: 0, denied: 2, expired: 1, pending: 0 },
    ]);
    const wide = (await insights('?window=90d')).json();
    expect(wide.approvals.timeToDecision).toEqual({ count: 5, p50Seconds: 120, p90Seconds: 660 });
    expect(wide.approvals.byAgentTool[0]).toMatchObject({ toolName: 'mcp:edr/isolate_host', requests: 5, approved: 3 });
  });

  it('widens to 90 days: the older alert is counted', async () => {
    const body = (await insights('?window=90d')).json();
    expect(body.alerts.perDay).toHaveLength(90);
    expect(body.alerts.perDay.find((d: { day: string }) => d.day === dayOf(at.old))).toMatchObject({ low: 1, total: 1 });
    expect(body.alerts.mtta.all.count).toBe(2);
  });

  it('answers only the sections the caller may read: alert.read alone gets the alert figures, the rest null', async () => {
    const body = (await insights('?window=7d', bearer(alertReader.key))).json();
    expect(body.alerts.agents).toHaveLength(1);
    expect({ runs: body.runs, deliveries: body.deliveries, intel: body.intel, hunt: body.hunt, approvals: body.approvals }).toEqual({ runs: null, deliveries: null, intel: null, hunt: null, approvals: null });
  });

  it('answers 403 without alert.read', async () => {
    const res = await insights('', bearer(nobody.key));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['alert.read'] });
  });

  it('counts only the caller\'s organization', async () => {
    const body = (await insights('', bearer(t.orgB.apiKey.key))).json();
    expect(body.alerts.perDay.reduce((n: number, d: { critical: number }) => n + d.critical, 0)).toBe(1);
    expect(body.alerts.agents).toEqual([]);
    expect(body.deliveries.byDestination).toEqual([]);
    expect(body.intel.sources).toEqual([]);
    expect(body.hunt.byExposureBand.every((b: { count: number }) => b.count === 0)).toBe(true);
    expect(body.approvals).toEqual({ pending: 0, oldestPendingAt: null, timeToDecision: { count: 0, p50Seconds: null, p90Seconds: null }, byAgentTool: [] });
  });

  it('refuses an unknown window or parameter with 400', async () => {
    const bad = await insights('?window=1y');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'Validation failed', issues: [{ path: 'window', message: 'Invalid option: expected one of "7d"|"30d"|"90d"', code: 'invalid_value', location: 'query' }] });
    const extra = await insights('?days=3');
    expect(extra.statusCode).toBe(400);
    expect(extra.json().issues[0]).toMatchObject({ code: 'unrecognized_keys', location: 'query' });
  });

  it('keeps on each alert the same status history that its timeline tells (migration 0052 backfills it from the timeline)', async () => {
    const read = () => sql<{ id: string; agentVerdictStatus: string | null; agentVerdictAt: Date | null; humanStatusAt: Date | null; everEscalated: boolean }>`
      SELECT id, agent_verdict_status, agent_verdict_at, human_status_at, ever_escalated FROM alerts WHERE organization_id = ${t.orgA.organization.id} ORDER BY id`.execute(t.database.db);
    const kept = (await read()).rows;
    expect(kept.filter((r) => r.agentVerdictStatus !== null).map((r) => r.agentVerdictStatus).sort()).toEqual(['closed_false_positive', 'escalated']);
    expect(kept.filter((r) => r.humanStatusAt !== null)).toHaveLength(1);
    expect(kept.filter((r) => r.everEscalated)).toHaveLength(1);
    await sql`UPDATE alerts SET agent_verdict_status = NULL, agent_verdict_at = NULL, human_status_at = NULL, ever_escalated = false WHERE organization_id = ${t.orgA.organization.id}`.execute(t.database.db);
    await backfillVerdictColumns(t.database.db, t.orgA.organization.id);
    const rebuilt = (await read()).rows;
    // The person's change is dated by its timeline entry, a moment after the alert's UPDATE.
    expect(rebuilt.map((r) => ({ ...r, humanStatusAt: r.humanStatusAt !== null }))).toEqual(kept.map((r) => ({ ...r, humanStatusAt: r.humanStatusAt !== null })));
  });

  it('counts real runs and their tokens only; the runs of evaluations are their cost apart (issue 47 item 10)', async () => {
    const run = (mode: 'sync' | 'evaluation', status: 'done' | 'error', inputTokens: number, outputTokens: number) => ({
      id: uuidv7(), organizationId: t.orgA.organization.id, agentId, status, statusMessage: null, mode, input: '{}', triggerId: null, triggerSource: null, triggerContext: null,
      alertId: null, alertDisplayId: null, agentSnapshot: null, agentVersion: 1, actorUserId: t.orgA.user.id, actorApiKeyId: null, result: null, inputTokens, outputTokens,
      interruptRequestedAt: null, transcript: null, queuedAt: new Date(), startedAt: new Date(), finishedAt: new Date(), updatedAt: new Date(), acceptanceCriteriaResults: null, evalScore: null, evalExplanation: null,
    });
    await t.database.db.insertInto('agentRuns').values([run('sync', 'done', 200, 40), run('sync', 'error', 100, 0), ...Array.from({ length: 10 }, () => run('evaluation', 'done', 2_000, 400))]).execute();
    const body = (await insights()).json();
    expect(body.runs.totals).toEqual({ runs: 2, failed: 1, inputTokens: 300, outputTokens: 40 });
    expect(body.runs.perDay.at(-1)).toEqual({ day: dayOf(new Date()), runs: 2, failed: 1, tokens: 340 });
    expect(body.runs.evaluations).toEqual({ runs: 10, inputTokens: 20_000, outputTokens: 4_000 });
  });

  it('answers 401 without a key', async () => {
    const res = await t.app.inject({ url: '/api/insights' });
    expect(res.statusCode).toBe(401);
  });
});
