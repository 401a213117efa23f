import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';
import { createOrganization } from '../../src/modules/organizations/index.js';

let t: TestContext;
let admin: Record<string, string>;
let reader: TestUser;
let triager: TestUser;
let adminB: Record<string, string>;
let triageAgent: string;
let otherAgent: string;
let creatorAgent: string;

async function agent(headers: Record<string, string>, name: string, toolNames: string[] = []): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: '/api/agents', headers, payload: { name, systemPrompt: 'Triage.', toolNames } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id;
}

async function newAlert(payload: Record<string, unknown>, headers = admin) {
  const res = await t.app.inject({ method: 'POST', url: '/api/alerts', headers, payload });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { alert: Record<string, any>; created: boolean };
}

const putRoutes = (payload: unknown, headers = admin) => t.app.inject({ method: 'PUT', url: '/api/alert-triage-routes', headers, payload: payload as object });

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  adminB = bearer(t.orgB.apiKey.key);
  reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['alert.read']);
  triager = await userWithPermissions(t.database.db, t.orgA.organization.id, ['alert.read', 'alert.triage']);
  triageAgent = await agent(admin, 'Phishing triage');
  otherAgent = await agent(admin, 'Malware triage');
  creatorAgent = await agent(admin, 'Log hunter', ['create_alert']);
});
afterAll(() => t.close());

describe('alerts API', () => {
  it('creates an alert with a display id and every §2.7 field, readable by uuid and display id', async () => {
    const { alert, created } = await newAlert({ title: 'Impossible travel for j.doe', severity: 'high', payload: { user: 'j.doe', ips: ['203.0.113.9'] } });
    expect(created).toBe(true);
    expect(alert.displayId).toMatch(/^RMP-\d+$/);
    expect(alert).toMatchObject({ organizationName: 'Org A', severity: 'high', status: 'open', duplicateCount: 1, createdBy: 'user', source: { category: 'user', name: 'api', triggerType: null }, derivedDisposition: null });
    for (const field of ['originAgentId', 'originTriggerId', 'originRunId', 'originDetectionHitId', 'codeDetectionId', 'assignedAgentId', 'triageRunId', 'resolvedByUserId', 'externalRef', 'dedupeKey', 'resolvedAt', 'firstTriagedAt', 'huntQualifiedBy', 'routing', 'detection']) {
      expect(alert).toHaveProperty(field);
    }
    const byDisplay = await t.app.inject({ url: `/api/alerts/${alert.displayId.toLowerCase()}`, headers: bearer(reader.key) });
    expect(byDisplay.statusCode).toBe(200);
    expect(byDisplay.json().alert).toMatchObject({ id: alert.id, payload: { user: 'j.doe', ips: ['203.0.113.9'] } });
    expect(byDisplay.json().timeline.map((e: { kind: string }) => e.kind)).toEqual(['created', 'not_routed']);
    const byId = await t.app.inject({ url: `/api/alerts/${alert.id}`, headers: admin });
    expect(byId.json().alert.displayId).toBe(alert.displayId);
  });

  it('answers 404 for another organization’s alert (uuid or display id), 401 without a key, 403 naming the permission, 400 on bad input', async () => {
    const { alert } = await newAlert({ title: 'Org A only' });
    for (const id of [alert.id, alert.displayId]) {
      const res = await t.app.inject({ url: `/api/alerts/${id}`, headers: adminB });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Alert not found' });
    }
    const status = await t.app.inject({ method: 'POST', url: `/api/alerts/${alert.id}/status`, headers: adminB, payload: { status: 'closed_benign' } });
    expect(status.statusCode).toBe(404);
    expect((await t.app.inject({ url: '/api/alerts' })).statusCode).toBe(401);
    const denied = await t.app.inject({ method: 'POST', url: `/api/alerts/${alert.id}/comments`, headers: bearer(reader.key), payload: { bodyMarkdown: 'hi' } });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['alert.triage'] });
    const assign = await t.app.inject({ method: 'POST', url: `/api/alerts/${alert.id}/assign`, headers: bearer(triager.key), payload: { agentId: triageAgent } });
    expect(assign.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['alert.manage'] });
    const bad = await t.app.inject({ method: 'POST', url: '/api/alerts', headers: admin, payload: { title: '', severity: 'severe' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('Validation failed');
    expect(bad.json().issues.map((i: { path: string }) => i.path).sort()).toEqual(['severity', 'title']);
    const badList = await t.app.inject({ url: '/api/alerts?status=open,bogus&limit=500', headers: admin });
    expect(badList.statusCode).toBe(400);
    expect(badList.json().issues.map((i: { path: string }) => i.path).sort()).toEqual(['limit', 'status']);
  });

  it('lists with filters, search and totalCount, newest first', async () => {
    await newAlert({ title: 'Beacon to rare-domain.example', severity: 'critical', externalRef: 'SIEM-7781' });
    await newAlert({ title: 'Another low one', severity: 'low' });
    const res = await t.app.inject({ url: '/api/alerts?severity=critical,high&limit=10', headers: bearer(reader.key) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.alerts.every((a: { severity: string }) => ['critical', 'high'].includes(a.severity))).toBe(true);
    expect(body.totalCount).toBe(body.alerts.length);
    expect(body.alerts[0]).not.toHaveProperty('payload');
    const search = await t.app.inject({ url: '/api/alerts?search=siem-7781', headers: admin });
    expect(search.json().alerts.map((a: { title: string }) => a.title)).toEqual(['Beacon to rare-domain.example']);
    const none = await t.app.inject({ url: `/api/alerts?createdAfter=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, headers: admin });
    expect(none.json()).toEqual({ alerts: [], totalCount: 0 });
  });

  it('changes status with resolution fields, reopens with a record, refuses a no-op, changes severity, comments and patches', async () => {
    const { alert } = await newAlert({ title: 'Suspicious OAuth grant' });
    const url = `/api/alerts/${alert.displayId}`;
    const closed = await t.app.inject({ method: 'POST', url: `${url}/status`, headers: bearer(triager.key), payload: { status: 'closed_true_positive', reason: 'Confirmed with the user' } });
    expect(closed.statusCode).toBe(200);
    expect(closed.json().alert).toMatchObject({ status: 'closed_true_positive', derivedDisposition: 'true_positive', resolvedByType: 'human', resolvedByUserId: triager.userId, resolvedReason: 'Confirmed with the user' });
    expect(closed.json().alert.resolvedAt).toBeTruthy();
    expect(closed.json().entry).toMatchObject({ kind: 'closed', actorType: 'human', data: { from: 'open', to: 'closed_true_positive' } });
    const again = await t.app.inject({ method: 'POST', url: `${url}/status`, headers: admin, payload: { status: 'closed_true_positive' } });
    expect(again.statusCode).toBe(400);
    expect(again.json().issues[0]).toMatchObject({ path: 'status', code: 'refused_transition' });
    const reopened = await t.app.inject({ method: 'POST', url: `${url}/status`, headers: admin, payload: { status: 'open', reason: 'New evidence' } });
    expect(reopened.json().alert).toMatchObject({ status: 'open', derivedDisposition: null, resolvedAt: null, resolvedByType: null });
    expect(reopened.json().entry.kind).toBe('reopened');
    const sev = await t.app.inject({ method: 'POST', url: `${url}/severity`, headers: admin, payload: { severity: 'critical' } });
    expect(sev.json().alert.severity).toBe('critical');
    const comment = await t.app.inject({ method: 'POST', url: `${url}/comments`, headers: admin, payload: { bodyMarkdown: '**Checked** the sign-in logs' } });
    expect(comment.json().entry).toMatchObject({ kind: 'comment', body: '**Checked** the sign-in logs' });
    const patched = await t.app.inject({ method: 'PATCH', url, headers: admin, payload: { title: 'Suspicious OAuth grant to "MailSync"' } });
    expect(patched.json().alert.title).toBe('Suspicious OAuth grant to "MailSync"');
    const timeline = await t.app.inject({ url: `${url}/timeline?limit=200`, headers: admin });
    expect(timeline.json().entries.map((e: { kind: string }) => e.kind)).toEqual(['created', 'not_routed', 'closed', 'reopened', 'severity_changed', 'comment', 'updated']);
    expect(timeline.json().totalCount).toBe(7);
    // Every entry names who acted: the triager's email (no name set), the admin's name; none for the system's own entries.
    expect(timeline.json().entries.map((e: { kind: string; actorName: string | null }) => [e.kind, e.actorName])).toEqual([
      ['created', t.orgA.user.name || t.orgA.user.email], ['not_routed', null], ['closed', `${triager.userId}@example.test`], ['reopened', t.orgA.user.name || t.orgA.user.email],
      ['severity_changed', t.orgA.user.name || t.orgA.user.email], ['comment', t.orgA.user.name || t.orgA.user.email], ['updated', t.orgA.user.name || t.orgA.user.email],
    ]);
  });

  it('bulk status: changes what it can and lists the rest', async () => {
    const a = (await newAlert({ title: 'bulk 1' })).alert;
    const b = (await newAlert({ title: 'bulk 2' })).alert;
    const res = await t.app.inject({ method: 'POST', url: '/api/alerts/bulk/status', headers: admin, payload: { alertIds: [a.id, b.displayId, '00000000-0000-7000-8000-000000000000'], status: 'closed_false_positive' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ updated: [a.id, b.id], failed: [{ alertId: '00000000-0000-7000-8000-000000000000', error: 'Alert not found' }] });
  });
});

describe('dedupe', () => {
  it('a signal with the dedupe key of an alert that is not closed counts as a duplicate; after closing, a new alert', async () => {
    const first = await newAlert({ title: 'Brute force on vpn-1', dedupeKey: 'bf:vpn-1' });
    const second = await newAlert({ title: 'Brute force on vpn-1', dedupeKey: 'bf:vpn-1' });
    expect(second).toMatchObject({ created: false, alert: { id: first.alert.id, duplicateCount: 2 } });
    await t.app.inject({ method: 'POST', url: `/api/alerts/${first.alert.id}/status`, headers: admin, payload: { status: 'closed_benign' } });
    const third = await newAlert({ title: 'Brute force on vpn-1', dedupeKey: 'bf:vpn-1' });
    expect(third.created).toBe(true);
    expect(third.alert.id).not.toBe(first.alert.id);
    // The answers are the alert as read back (names included), and each signal is on the timeline.
    expect(second.alert).toMatchObject({ displayId: first.alert.displayId, organizationName: first.alert.organizationName, title: 'Brute force on vpn-1' });
    const { entries } = (await t.app.inject({ url: `/api/alerts/${first.alert.id}/timeline?limit=200`, headers: admin })).json();
    expect(entries.map((e: { kind: string }) => e.kind)).toEqual(['created', 'not_routed', 'duplicate', 'closed']);
    expect(entries[0].body).toBe(`${first.alert.displayId} created from ${first.alert.source.name}`);
    expect(entries[2].body).toBe(`Duplicate signal from ${first.alert.source.name} (dedupe key bf:vpn-1)`);
  });

  it('two identical signals at once → one alert with duplicateCount 2', async () => {
    const results = await Promise.all([1, 2].map(() => newAlert({ title: 'Concurrent', dedupeKey: 'race-1' })));
    expect(results.map((r) => r.created).sort()).toEqual([false, true]);
    const { alerts } = (await t.app.inject({ url: '/api/alerts?search=concurrent', headers: admin })).json();
    expect(alerts).toHaveLength(1);
    expect(alerts[0].duplicateCount).toBe(2);
    // The signal that lost the race is counted on the winner's timeline, once.
    const { entries } = (await t.app.inject({ url: `/api/alerts/${alerts[0].id}/timeline`, headers: admin })).json();
    expect(entries.map((e: { kind: string }) => e.kind).sort()).toEqual(['created', 'duplicate', 'not_routed']);
  });

  it('the first alerts of a new organization, arriving at once, are all created with distinct display ids', async () => {
    const org = await createOrganization(t.database.db, { name: 'Org C', adminEmail: 'admin@c.test' });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => newAlert({ title: `First ${i}`, severity: 'high', dedupeKey: `first-${i % 4}` }, bearer(org.apiKey.key))),
    );
    expect(results.filter((r) => r.created)).toHaveLength(4);
    const ids = new Set(results.filter((r) => r.created).map((r) => r.alert.displayId));
    // Distinct; a signal that lost its dedupe race leaves a gap in the numbers, as issue trackers do.
    expect(ids.size).toBe(4);
    for (const id of ids) expect(id).toMatch(/^RMP-[1-8]$/);
  });
});

describe('PUT /api/alert-triage-routes', () => {
  it('saves routes in order and answers the §4.2 view; GET answers the same', async () => {
    const res = await putRoutes({
      routes: [
        { name: 'Critical to malware', enabled: true, conditions: [{ type: 'severity', severities: ['critical'] }], responseAgentId: otherAgent },
        { name: 'Disabled catch-all', enabled: false, conditions: [], responseAgentId: otherAgent },
        { name: 'Phishing', enabled: true, conditions: [{ type: 'source', sources: ['user'] }], responseAgentId: triageAgent },
      ],
      defaultResponseAgentId: null,
    });
    expect(res.statusCode, res.body).toBe(200);
    const view = res.json();
    expect(view.routes.map((r: { name: string; action: string; responseAgentName: string }) => [r.name, r.action, r.responseAgentName])).toEqual([
      ['Critical to malware', 'triage', 'Malware triage'],
      ['Disabled catch-all', 'triage', 'Malware triage'],
      ['Phishing', 'triage', 'Phishing triage'],
    ]);
    expect(view.defaultSettings).toMatchObject({ organizationId: t.orgA.organization.id, defaultResponseAgentId: null });
    expect(view.huntAlertRouting).toEqual({ responseAgentId: null, responseAgentName: null });
    expect(view.responseAgents.map((a: { name: string }) => a.name)).toEqual(expect.arrayContaining(['Phishing triage', 'Malware triage']));
    expect((await t.app.inject({ url: '/api/alert-triage-routes', headers: bearer(reader.key) })).json()).toEqual(view);
  });

  it('routes a new alert by the first enabled match (disabled routes never win) and starts a triage run', async () => {
    const critical = (await newAlert({ title: 'Ransom note found', severity: 'critical' })).alert;
    expect(critical).toMatchObject({ assignedAgentId: otherAgent, assignedAgentName: 'Malware triage', status: 'in_progress', routing: { outcome: 'route', routeName: 'Critical to malware' } });
    expect(critical.triageRunId).toBeTruthy();
    expect(critical.firstTriagedAt).toBeTruthy();
    const run = await t.database.db.selectFrom('agentRuns').select(['agentId', 'mode', 'input']).where('id', '=', critical.triageRunId).executeTakeFirstOrThrow();
    expect(run).toMatchObject({ agentId: otherAgent, mode: 'triage', input: { alert: { id: critical.id, title: 'Ransom note found' } } });
    const low = (await newAlert({ title: 'Phish reported', severity: 'low' })).alert;
    expect(low).toMatchObject({ assignedAgentId: triageAgent, routing: { outcome: 'route', routeName: 'Phishing', reason: expect.stringContaining('Route 3') } });
    const forRun = await t.app.inject({ url: `/api/agent-runs/${low.triageRunId}/alert`, headers: admin });
    expect(forRun.json().alert.id).toBe(low.id);
    expect((await t.app.inject({ url: `/api/agent-runs/${low.triageRunId}/alert`, headers: adminB })).json()).toEqual({ alert: null });
  });

  it('default: omitted keeps it, null clears it; unmatched alerts go to it', async () => {
    expect((await putRoutes({ routes: [], defaultResponseAgentId: triageAgent })).json().defaultSettings.defaultResponseAgentName).toBe('Phishing triage');
    expect((await putRoutes({ routes: [] })).json().defaultSettings.defaultResponseAgentId).toBe(triageAgent);
    expect((await newAlert({ title: 'to default' })).alert).toMatchObject({ assignedAgentId: triageAgent, routing: { outcome: 'default' } });
    expect((await putRoutes({ routes: [], defaultResponseAgentId: null })).json().defaultSettings.defaultResponseAgentId).toBeNull();
    expect((await newAlert({ title: 'unassigned' })).alert).toMatchObject({ assignedAgentId: null, status: 'open', routing: { outcome: 'unassigned' } });
  });

  it('400 when routes and default would loop, naming the agent and routes', async () => {
    const res = await putRoutes({ routes: [{ name: 'Agent alerts', enabled: true, conditions: [{ type: 'source', sources: ['agent'] }], responseAgentId: creatorAgent }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Validation failed');
    expect(res.json().issues).toEqual([
      expect.objectContaining({ path: 'routes.0.responseAgentId', code: 'routing_loop', message: expect.stringContaining('"Log hunter" can create alerts (create_alert)') }),
    ]);
    const viaDefault = await putRoutes({ routes: [], defaultResponseAgentId: creatorAgent });
    expect(viaDefault.statusCode).toBe(400);
    expect(viaDefault.json().issues[0]).toMatchObject({ path: 'defaultResponseAgentId', code: 'routing_loop' });
    // The same agent behind a route agent alerts cannot take is not a loop.
    const ok = await putRoutes({ routes: [{ name: 'Critical only from triggers', enabled: true, conditions: [{ type: 'source', sources: ['jira'] }], responseAgentId: creatorAgent }], defaultResponseAgentId: null });
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('at most 50 routes, or as many as are already saved when more; unknown references are 400; other org agents too', async () => {
    const route = (i: number) => ({ name: `r${i}`, enabled: true, conditions: [{ type: 'severity', severities: ['low'] }], responseAgentId: triageAgent });
    const tooMany = await putRoutes({ routes: Array.from({ length: 51 }, (_, i) => route(i)) });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().issues[0]).toMatchObject({ path: 'routes', code: 'too_big' });
    // An organization that already has 60 (saved before the limit) may keep 60, not grow.
    const saved = Array.from({ length: 60 }, (_, i) => ({ id: `0193f0a4-0000-7000-8000-${String(i).padStart(12, '0')}`, ...route(i) }));
    await sql`UPDATE alert_routing SET routes = ${JSON.stringify(saved)}::jsonb WHERE organization_id = ${t.orgA.organization.id}`.execute(t.database.db);
    expect((await putRoutes({ routes: saved.slice(0, 60) })).statusCode).toBe(200);
    expect((await putRoutes({ routes: [...saved, route(61)] })).statusCode).toBe(400);
    const unknown = await putRoutes({ routes: [{ ...route(1), responseAgentId: await agent(adminB, 'B agent') }] });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().issues[0]).toMatchObject({ path: 'routes.0.responseAgentId', code: 'unknown_reference' });
    const denied = await putRoutes({ routes: [] }, bearer(triager.key));
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['alert.manage'] });
    expect((await putRoutes({ routes: [] })).statusCode).toBe(200);
  });

  it('simulate tells which route would win and why, without creating anything; a trigger type without triggerId says routes apply only to triggers with routeAlerts', async () => {
    const before = (await t.app.inject({ url: '/api/alerts', headers: admin })).json().totalCount;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/alert-triage-routes/simulate',
      headers: admin,
      payload: { severity: 'high', source: 'jira', routes: [{ name: 'Jira', enabled: true, conditions: [{ type: 'source', sources: ['jira'] }], responseAgentId: otherAgent }] },
    });
    expect(res.json()).toMatchObject({ outcome: 'trigger', routeName: null, responseAgentId: null, reason: expect.stringContaining('source in [jira]') });
    expect(res.json().reason).toMatch(/^A trigger's alert goes to the trigger's own agent unless the trigger has routeAlerts/);
    const user = await t.app.inject({
      method: 'POST',
      url: '/api/alert-triage-routes/simulate',
      headers: admin,
      payload: { severity: 'high', source: 'user', routes: [{ name: 'High', enabled: true, conditions: [{ type: 'severity', severities: ['high'] }], responseAgentId: otherAgent }] },
    });
    expect(user.json()).toMatchObject({ outcome: 'route', routeName: 'High', responseAgentId: otherAgent, responseAgentName: 'Malware triage', reason: expect.stringContaining('severity in [high]') });
    expect((await t.app.inject({ url: '/api/alerts', headers: admin })).json().totalCount).toBe(before);
  });
});

describe('assignment', () => {
  it('starts a triage run, and refuses a second while one is active (409)', async () => {
    const { alert } = await newAlert({ title: 'Needs an agent' });
    const res = await t.app.inject({ method: 'POST', url: `/api/alerts/${alert.id}/assign`, headers: admin, payload: { agentId: triageAgent } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().alert).toMatchObject({ assignedAgentId: triageAgent, triageRunId: res.json().runId, status: 'in_progress', routing: { outcome: 'assigned' } });
    const again = await t.app.inject({ method: 'POST', url: `/api/alerts/${alert.id}/assign`, headers: admin, payload: { agentId: otherAgent } });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: expect.stringContaining('already has a triage run in progress') });
    const foreign = await t.app.inject({ method: 'POST', url: `/api/alerts/${alert.id}/assign`, headers: admin, payload: { agentId: await agent(adminB, 'B2') } });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().issues[0]).toMatchObject({ path: 'agentId', code: 'unknown_reference' });
  });
});
