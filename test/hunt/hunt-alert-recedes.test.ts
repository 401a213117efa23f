import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { runPendingHuntJobs, seedAdvisory, seedAdvisorySource } from '../support/hunt-data.js';
import { attemptDelivery, createDestination, deliveryDeps, deliveryLog } from '../support/delivery.js';
import { startFakePagerDuty, type FakePagerDuty } from '../support/fakes/pagerduty-server.js';
import { syncThreatsFromIntel } from '../../src/modules/hunt/index.js';
import { serviceEvents } from '../../src/events.js';

/**
 * Issue 47 §24: a hunt alert follows its threat both ways. The user's steps: an appliance runs
 * an affected FortiOS (medium band: the org alerts from medium), it becomes internet-facing
 * (high), stops being so (medium again), then is upgraded past the fix (not affected). Each step
 * is an inventory change through the API; the alert's severity, timeline and events follow, and
 * PagerDuty's incident (Events v2, through the fake) takes each severity and is resolved.
 */
let t: TestContext;
let key: Record<string, string>;
let pd: FakePagerDuty;
let destinationId: string;
let assetId: string;
let threatId: string;
const asset = (over: { internetFacing: boolean; version: string }) => ({
  identifier: 'vpn-1', kind: 'appliance', internetFacing: over.internetFacing, criticality: 'low',
  software: [{ vendor: 'Fortinet', product: 'FortiOS', version: over.version }],
});

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true', RAMPART_RATE_LIMIT_PER_MINUTE: '0' } });
  key = bearer(t.orgA.apiKey.key);
  const org = t.orgA.organization.id;
  pd = await startFakePagerDuty({ routingKey: 'R0UTINGKEY' });
  destinationId = await createDestination(t, t.orgA.apiKey.key, { type: 'pagerduty', name: 'On-call', config: { severity: 'info', apiBaseUrl: pd.apiBaseUrl }, token: 'R0UTINGKEY', eventSubscriptions: ['alert.created', 'alert.status_changed', 'alert.updated'] });
  const settings = await t.app.inject({ method: 'PUT', url: '/api/hunt/alert-creation-settings', headers: key, payload: { minimumExposureBand: 'medium', alertOnCompromiseBelowThreshold: true } });
  expect(settings.statusCode, settings.body).toBe(200);
  assetId = (await t.app.inject({ method: 'POST', url: '/api/assets', headers: key, payload: asset({ internetFacing: false, version: '7.0.12' }) })).json().id;
  const source = await seedAdvisorySource(t.database.db, org);
  await seedAdvisory(t.database.db, org, source, {
    title: 'FortiOS SSL-VPN heap overflow CVE-2024-21762',
    text: 'An out-of-bounds write in Fortinet FortiOS versions 7.0.0 through 7.0.13 allows remote code execution.',
    cves: ['CVE-2024-21762'],
    products: [{ vendor: 'Fortinet', product: 'FortiOS', versions: ['>=7.0.0 <=7.0.13'] }],
  });
  const events = serviceEvents();
  await syncThreatsFromIntel(t.database.db, org, { events });
  await runPendingHuntJobs(t.database.db, events);
  threatId = (await t.database.db.selectFrom('huntThreats').select('id').where('organizationId', '=', org).executeTakeFirstOrThrow()).id;
});
afterAll(async () => {
  await pd?.close();
  await t?.close();
});

const huntAlert = async () => {
  const alerts = (await t.app.inject({ url: '/api/alerts?source=hunt', headers: key })).json().alerts as Array<Record<string, any>>;
  expect(alerts).toHaveLength(1);
  return alerts[0]!;
};
const timeline = async (id: string) => (await t.app.inject({ url: `/api/alerts/${id}/timeline`, headers: key })).json().entries as Array<{ kind: string; body: string; actorType: string; data: Record<string, unknown> }>;
/** The user's step: the asset changes through the API, the worker's reassessment runs. */
async function changeAsset(over: { internetFacing: boolean; version: string }) {
  const res = await t.app.inject({ method: 'PUT', url: `/api/assets/${assetId}`, headers: key, payload: asset(over) });
  expect(res.statusCode, res.body).toBe(200);
  expect(await runPendingHuntJobs(t.database.db)).toBeGreaterThan(0);
}
/** Delivers what is pending to PagerDuty, oldest first; answers the event kinds delivered. */
async function deliverPending(): Promise<string[]> {
  const pending = (await deliveryLog(t, t.orgA.apiKey.key, destinationId, '?status=pending')).deliveries.reverse();
  for (const d of pending) expect(await attemptDelivery(deliveryDeps(t), d.id as string)).toBe('succeeded');
  return pending.map((d) => d.eventKind as string);
}

describe('a hunt alert follows its threat up, down and out', () => {
  it('medium at first: the alert is created at the band and PagerDuty triggered with warning', async () => {
    const alert = await huntAlert();
    expect(alert).toMatchObject({ severity: 'medium', status: 'open', dedupeKey: `hunt:${threatId}` });
    expect(await deliverPending()).toEqual(['alert.created']);
    expect(pd.events.at(-1)).toMatchObject({ event_action: 'trigger', dedup_key: alert.id, payload: { severity: 'warning' } });
  });

  it('internet-facing: the severity rises to high, with an updated entry and an alert.updated event PagerDuty takes as error', async () => {
    const before = await huntAlert();
    await changeAsset({ internetFacing: true, version: '7.0.12' });
    const after = await huntAlert();
    expect(after).toMatchObject({ id: before.id, severity: 'high', status: 'open' });
    const entry = (await timeline(after.id)).at(-1)!;
    expect(entry).toMatchObject({ kind: 'updated', actorType: 'system' });
    expect(entry.body).toMatch(/^Hunt: the threat's exposure rose \(exposure_band\): severity medium → high/);
    expect(await deliverPending()).toEqual(['alert.updated']);
    expect(pd.events.at(-1)).toMatchObject({ event_action: 'trigger', dedup_key: after.id, payload: { severity: 'error', summary: expect.stringMatching(/^RMP-1 is now high: CVE-2024-21762: /) } });
    expect(pd.alerts.get(after.id)).toBe('triggered');
  });

  it('no longer internet-facing: the severity the hunt set falls back to medium (severity_changed, alert.updated → warning)', async () => {
    await changeAsset({ internetFacing: false, version: '7.0.12' });
    const alert = await huntAlert();
    expect(alert).toMatchObject({ severity: 'medium', status: 'open' });
    const entry = (await timeline(alert.id)).at(-1)!;
    expect(entry).toMatchObject({ kind: 'severity_changed', actorType: 'system', data: { from: 'high', to: 'medium' } });
    expect(entry.body).toMatch(/^Hunt: the threat's exposure fell \(65 → 50\): severity high → medium/);
    expect(await deliverPending()).toEqual(['alert.updated']);
    expect(pd.events.at(-1)).toMatchObject({ event_action: 'trigger', dedup_key: alert.id, payload: { severity: 'warning' } });
    const activity = (await t.app.inject({ url: `/api/threats/${threatId}`, headers: key })).json();
    expect(activity.activeHuntAlert).toMatchObject({ id: alert.id });
  });

  it('a severity a person chose is theirs: the hunt does not lower it', async () => {
    const alert = await huntAlert();
    const raised = await t.app.inject({ method: 'POST', url: `/api/alerts/${alert.id}/severity`, headers: key, payload: { severity: 'critical' } });
    expect(raised.statusCode, raised.body).toBe(200);
    await changeAsset({ internetFacing: true, version: '7.0.12' }); // 65: high, below the person's critical
    await changeAsset({ internetFacing: false, version: '7.0.12' }); // 50: medium; the alert stays critical
    expect((await huntAlert()).severity).toBe('critical');
    await t.app.inject({ method: 'POST', url: `/api/alerts/${alert.id}/severity`, headers: key, payload: { severity: 'medium' } });
    await deliverPending();
  });

  it('upgraded past the fix: the alert is resolved by the system (closed entry, alert.status_changed) and PagerDuty resolved', async () => {
    const before = await huntAlert();
    await changeAsset({ internetFacing: false, version: '7.0.14' });
    const threat = (await t.app.inject({ url: `/api/threats/${threatId}`, headers: key })).json();
    expect(threat.threat).toMatchObject({ exposureState: 'not_affected' });
    expect(threat.activeHuntAlert).toBeNull();
    const alert = await huntAlert();
    expect(alert).toMatchObject({ id: before.id, status: 'closed_benign', resolvedByUserId: null });
    const entry = (await timeline(alert.id)).at(-1)!;
    expect(entry).toMatchObject({ kind: 'closed', actorType: 'system', data: { from: 'open', to: 'closed_benign' } });
    expect(entry.body).toMatch(/^Hunt: the threat no longer affects the organization \(exposure vulnerable_software_present → not_affected\): /);
    expect(await deliverPending()).toEqual(['alert.status_changed']);
    expect(pd.events.at(-1)).toEqual({ routing_key: 'R0UTINGKEY', event_action: 'resolve', dedup_key: alert.id });
    expect(pd.alerts.get(alert.id)).toBe('resolved');
    // Nothing more to say: a further reassessment leaves the closed alert alone.
    await t.app.inject({ method: 'POST', url: `/api/threats/${threatId}/reassess`, headers: key });
    expect((await timeline(alert.id)).at(-1)).toEqual(entry);
  });

  it('vulnerable again (a downgrade): the closed alert is reopened, as before', async () => {
    await changeAsset({ internetFacing: false, version: '7.0.12' });
    expect(await huntAlert()).toMatchObject({ status: 'open', severity: 'medium' });
  });
});
