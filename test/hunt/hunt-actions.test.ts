import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';
import { runPendingHuntJobs, seedAdvisory, seedAdvisorySource } from '../support/hunt-data.js';
import { syncThreatsFromIntel } from '../../src/modules/hunt/index.js';

const VIEW_KEYS = ['threat', 'matches', 'runs', 'deliverables', 'intelItems', 'alerts', 'activeHuntAlert', 'latestAlert', 'activityEvents', 'capabilities'];

let t: TestContext;
let key: Record<string, string>;
let org: string;
let reader: TestUser;
let threatId: string;

beforeAll(async () => {
  t = await createTestApp();
  key = bearer(t.orgA.apiKey.key);
  org = t.orgA.organization.id;
  reader = await userWithPermissions(t.database.db, org, ['hunt.read']);
  await t.app.inject({ method: 'POST', url: '/api/assets', headers: key, payload: { identifier: 'vpn-1', kind: 'appliance', internetFacing: true, criticality: 'critical', software: [{ vendor: 'Fortinet', product: 'FortiOS', version: '7.0.12' }] } });
  const source = await seedAdvisorySource(t.database.db, org);
  await seedAdvisory(t.database.db, org, source, {
    title: 'FortiOS SSL-VPN heap overflow CVE-2024-21762',
    text: 'An out-of-bounds write in Fortinet FortiOS versions 7.0.0 through 7.0.13 allows remote code execution. Attackers use 198.51.100.23 for command and control.',
    cves: ['CVE-2024-21762'],
    products: [{ vendor: 'Fortinet', product: 'FortiOS', versions: ['>=7.0.0 <=7.0.13'] }],
    indicators: [{ type: 'ipv4', value: '198.51.100.23' }, { type: 'sha256', value: 'a'.repeat(64) }],
  });
  await syncThreatsFromIntel(t.database.db, org, {});
  // The inventory-change job, without alerts: the alert tests below start from no alert.
  await runPendingHuntJobs(t.database.db, null);
  threatId = (await t.database.db.selectFrom('huntThreats').select('id').where('organizationId', '=', org).executeTakeFirstOrThrow()).id;
});
afterAll(async () => t?.close());

const view = async () => (await t.app.inject({ method: 'GET', url: `/api/threats/${threatId}`, headers: key })).json();
const post = (url: string, headers = key, payload?: Record<string, unknown>) => t.app.inject({ method: "POST", url, headers, ...(payload === undefined ? {} : { payload }) });

describe('dismiss and restore (spec §3)', () => {
  // State table: (not dismissed, restore) → 409; (not dismissed, dismiss) → dismissed;
  // (dismissed, dismiss) → 409; (dismissed, restore) → derived status, dismissal cleared.
  it('restore of a threat that is not dismissed is 409', async () => {
    const res = await post(`/api/threats/${threatId}/restore`);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'Threat is not dismissed' });
  });

  it('dismiss records who, why and when; a second dismiss is 409', async () => {
    const res = await post(`/api/threats/${threatId}/dismiss`, key, { reason: 'Appliance is behind a WAF' });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json()).sort()).toEqual([...VIEW_KEYS].sort());
    expect(res.json().threat).toMatchObject({ status: 'dismissed', dismissedReason: 'Appliance is behind a WAF', dismissedByUserId: t.orgA.user.id });
    expect(res.json().threat.dismissedAt).toMatch(/Z$/);
    expect((await t.app.inject({ method: 'GET', url: '/api/threats?status=dismissed', headers: key })).json().totalCount).toBe(1);
    const again = await post(`/api/threats/${threatId}/dismiss`, key, { reason: 'again' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'Threat is already dismissed' });
  });

  it('restore clears the dismissal and returns the derived status with the full view', async () => {
    const res = await post(`/api/threats/${threatId}/restore`);
    expect(res.statusCode).toBe(200);
    const v = res.json();
    expect(Object.keys(v)).toEqual(VIEW_KEYS);
    expect(v.threat).toMatchObject({ status: 'relevant', dismissedAt: null, dismissedByUserId: null, dismissedReason: null });
    expect(v.activityEvents.map((e: { kind: string }) => e.kind)).toEqual(expect.arrayContaining(['threat_created', 'threat_assessed', 'threat_dismissed', 'threat_restored']));
  });

  it('answers 400, 403 with missingPerms and 404 for another organization', async () => {
    const noReason = await post(`/api/threats/${threatId}/dismiss`, key, {});
    expect(noReason.statusCode).toBe(400);
    expect(noReason.json().issues[0].path).toBe('reason');
    expect((await post('/api/threats/not-a-uuid/restore')).json().error).toBe('Validation failed');
    expect((await post(`/api/threats/${threatId}/restore`, bearer(reader.key))).json()).toEqual({ error: 'Missing required permissions', missingPerms: ['hunt.manage'] });
    expect((await post(`/api/threats/${threatId}/restore`, bearer(t.orgB.apiKey.key))).json()).toEqual({ error: 'Threat not found' });
    expect((await post(`/api/threats/${uuidv7()}/dismiss`, key, { reason: 'x' })).statusCode).toBe(404);
    expect((await post(`/api/threats/${threatId}/restore`, {})).statusCode).toBe(401);
  });
});

describe('hunt alert creation settings', () => {
  it('has documented defaults, replaces them, and validates the band', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/hunt/alert-creation-settings', headers: bearer(reader.key) })).json()).toEqual({ minimumExposureBand: 'high', alertOnCompromiseBelowThreshold: true, minimumEpssProbability: null, minimumEpssPercentile: null, alertOnKnownExploited: false });
    const put = await t.app.inject({ method: 'PUT', url: '/api/hunt/alert-creation-settings', headers: key, payload: { minimumExposureBand: 'critical', alertOnCompromiseBelowThreshold: true } });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual({ minimumExposureBand: 'critical', alertOnCompromiseBelowThreshold: true, minimumEpssProbability: null, minimumEpssPercentile: null, alertOnKnownExploited: false });
    const gate = await t.app.inject({ method: 'PUT', url: '/api/hunt/alert-creation-settings', headers: key, payload: { minimumExposureBand: 'critical', alertOnCompromiseBelowThreshold: true, minimumEpssProbability: 0.1, minimumEpssPercentile: 0.95 } });
    expect(gate.json()).toEqual({ minimumExposureBand: 'critical', alertOnCompromiseBelowThreshold: true, minimumEpssProbability: 0.1, minimumEpssPercentile: 0.95, alertOnKnownExploited: false });
    expect((await t.app.inject({ method: 'GET', url: '/api/hunt/alert-creation-settings', headers: key })).json()).toMatchObject({ minimumEpssProbability: expect.closeTo(0.1, 6), minimumEpssPercentile: expect.closeTo(0.95, 6) });
    const outOfRange = await t.app.inject({ method: 'PUT', url: '/api/hunt/alert-creation-settings', headers: key, payload: { minimumExposureBand: 'critical', alertOnCompromiseBelowThreshold: true, minimumEpssProbability: 1.5 } });
    expect(outOfRange.statusCode).toBe(400);
    expect(outOfRange.json().issues.map((i: { path: string }) => i.path)).toEqual(['minimumEpssProbability']);
    // Left out, the EPSS minimums go back to none.
    expect((await t.app.inject({ method: 'PUT', url: '/api/hunt/alert-creation-settings', headers: key, payload: { minimumExposureBand: 'critical', alertOnCompromiseBelowThreshold: true } })).json()).toMatchObject({ minimumEpssProbability: null });
    const bad = await t.app.inject({ method: 'PUT', url: '/api/hunt/alert-creation-settings', headers: key, payload: { minimumExposureBand: 'severe', alertOnCompromiseBelowThreshold: 'yes' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issues.map((i: { path: string }) => i.path).sort()).toEqual(['alertOnCompromiseBelowThreshold', 'minimumExposureBand']);
    expect((await t.app.inject({ method: 'PUT', url: '/api/hunt/alert-creation-settings', headers: bearer(reader.key), payload: { minimumExposureBand: 'low', alertOnCompromiseBelowThreshold: false } })).json()).toEqual({ error: 'Missing required permissions', missingPerms: ['hunt.manage'] });
    // Another organization keeps its own defaults.
    expect((await t.app.inject({ method: 'GET', url: '/api/hunt/alert-creation-settings', headers: bearer(t.orgB.apiKey.key) })).json()).toEqual({ minimumExposureBand: 'high', alertOnCompromiseBelowThreshold: true, minimumEpssProbability: null, minimumEpssPercentile: null, alertOnKnownExploited: false });
  });
});

describe('exposure from sightings and hunt alerts (end to end through the alerts module)', () => {
  let huntAgentId: string;
  const alertsOf = async () => (await t.app.inject({ method: 'GET', url: '/api/alerts?limit=50', headers: key })).json().alerts as Array<Record<string, any>>;
  const triageRuns = async () => (await t.database.db.selectFrom('agentRuns').select('id').where('agentId', '=', huntAgentId).execute()).length;

  beforeAll(async () => {
    const agent = await t.app.inject({ method: 'POST', url: '/api/agents', headers: key, payload: { name: 'Hunt responder', systemPrompt: 'Investigate hunt alerts.', toolNames: [] } });
    huntAgentId = agent.json().id;
    const routing = await t.app.inject({ method: 'PUT', url: '/api/alert-triage-routes', headers: key, payload: { routes: [], huntResponseAgentId: huntAgentId } });
    expect(routing.statusCode, routing.body).toBe(200);
  });

  it('a sighting of an indicator → compromise_signal_found → one hunt alert routed to the hunt agent, and a rule proposal', async () => {
    // Band `critical` (≥ 80); vulnerable + internet-facing + critical = 75 is below it: no alert yet.
    expect((await view()).threat.exposureScore).toBe(75);
    expect(await alertsOf()).toEqual([]);
    const res = await post('/api/sightings', key, { sightings: [{ value: '198.51.100[.]23', source: 'zeek-conn', assetIdentifier: 'vpn-1', observedAt: '2026-11-20T10:00:00Z' }] });
    expect(res.json()).toEqual({ accepted: 1, matchedIndicators: 1, reassessedThreats: 1 });
    expect(await runPendingHuntJobs(t.database.db)).toBe(1);
    const v = await view();
    expect(v.threat).toMatchObject({ exposureState: 'compromise_signal_found', exposureScore: 90 });
    expect(v.runs[0]).toMatchObject({ kind: 'reassess', trigger: 'sighting', hasFoundIoc: true });
    expect(v.runs[0].diff).toMatchObject({ beforeExposureState: 'vulnerable_software_present', afterExposureState: 'compromise_signal_found', beforeExposureScore: 75, afterExposureScore: 90 });
    const story = v.runs[0].exposureStory;
    expect(story.iocFindings).toEqual([expect.objectContaining({ iocType: 'ip', iocValue: '198.51.100.23', affectedSystems: ['vpn-1'], role: 'compromise', authoritative: true })]);
    expect(story.exposureChecks.find((c: { checked: string }) => c.checked === '198.51.100.23').outcome).toBe('found');
    expect(story.nextSteps[0]).toMatch(/^Investigate/);
    const alerts = await alertsOf();
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ huntQualifiedBy: 'compromise_signal_found', assignedAgentId: huntAgentId, severity: 'critical', dedupeKey: `hunt:${threatId}`, duplicateCount: 1 });
    expect(await triageRuns()).toBe(1);
    expect(v.alerts.map((a: { id: string }) => a.id)).toEqual([alerts[0]!.id]);
    expect(v.activeHuntAlert).toMatchObject({ id: alerts[0]!.id, huntQualifiedBy: 'compromise_signal_found' });
    expect(v.latestAlert.id).toBe(v.threat.latestAlertId);
    expect(v.threat.activeHuntAlertId).toBe(alerts[0]!.id);
    expect(v.activityEvents.map((e: { kind: string }) => e.kind)).toEqual(expect.arrayContaining(['exposure_changed', 'hunt_alert_qualified', 'hunt_alert_created', 'deliverable_proposed']));
    expect(v.deliverables).toEqual([expect.objectContaining({ kind: 'rule_proposal', pinning: 'ioc_pinned', lifecycleStatus: 'authoring', pinnedIocs: [{ type: 'ipv4', value: '198.51.100.23' }], targetLogSource: 'firewall' })]);
    expect(v.deliverables[0].content).toContain('198.51.100.23');
  });

  it('nothing new raises nothing; after the alert is closed, new evidence reopens it once and routes it to the hunt agent again', async () => {
    await post(`/api/threats/${threatId}/reassess`);
    expect((await alertsOf())[0]).toMatchObject({ duplicateCount: 1 });
    const alertId = (await alertsOf())[0]!.id;
    const closed = await post(`/api/alerts/${alertId}/status`, key, { status: 'closed_benign', reason: 'Scanner traffic' });
    expect(closed.statusCode, closed.body).toBe(200);
    expect((await view()).activeHuntAlert).toBeNull();
    await post('/api/sightings', key, { sightings: [{ value: 'a'.repeat(64), type: 'sha256', source: 'edr', assetIdentifier: 'vpn-1' }] });
    await runPendingHuntJobs(t.database.db);
    const alerts = await alertsOf();
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ id: alertId, resolvedAt: null, assignedAgentId: huntAgentId });
    expect(['open', 'in_progress']).toContain(alerts[0]!.status);
    expect(await triageRuns()).toBe(2);
    const v = await view();
    expect(v.activeHuntAlert).toMatchObject({ id: alertId });
    expect(v.activityEvents.filter((e: { kind: string }) => e.kind === 'hunt_alert_created')).toHaveLength(1);
    expect(v.activityEvents.filter((e: { kind: string }) => e.kind === 'hunt_alert_reopened')).toHaveLength(1);
    const timeline = (await t.app.inject({ method: 'GET', url: `/api/alerts/${alertId}/timeline`, headers: key })).json();
    expect(JSON.stringify(timeline)).toContain('reopened');
    // The new set of found indicators supersedes the first proposal.
    expect(v.deliverables).toHaveLength(2);
    expect(v.deliverables[1].supersededById).toBe(v.deliverables[0].id);
    await post(`/api/threats/${threatId}/reassess`);
    expect(await alertsOf()).toHaveLength(1);
    expect((await view()).activityEvents.filter((e: { kind: string }) => e.kind === 'hunt_alert_reopened')).toHaveLength(1);
  });

  it('moves a rule proposal through its lifecycle; a deployed proposal is detection coverage', async () => {
    const d = (await view()).deliverables[0];
    const url = `/api/threats/${threatId}/deliverables/${d.id}`;
    const skip = await t.app.inject({ method: 'PUT', url, headers: key, payload: { lifecycleStatus: 'deployed' } });
    expect(skip.statusCode).toBe(400);
    expect(skip.json().issues[0]).toMatchObject({ path: 'lifecycleStatus', code: 'invalid_transition' });
    expect((await t.app.inject({ method: 'PUT', url, headers: key, payload: { lifecycleStatus: 'review' } })).json().lifecycleStatus).toBe('review');
    expect((await t.app.inject({ method: 'PUT', url, headers: key, payload: { lifecycleStatus: 'deployed' } })).json().lifecycleStatus).toBe('deployed');
    expect((await t.app.inject({ method: 'PUT', url, headers: bearer(t.orgB.apiKey.key), payload: { lifecycleStatus: 'retired' } })).statusCode).toBe(404);
    const v = (await post(`/api/threats/${threatId}/reassess`)).json();
    expect(v.threat.coverageState).toBe('full');
    expect(v.runs[0].diff).toMatchObject({ beforeCoverageState: 'none', afterCoverageState: 'full' });
  });
});
