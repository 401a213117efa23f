import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { runPendingHuntJobs, seedAdvisory, seedAdvisorySource } from '../support/hunt-data.js';
import { syncThreatsFromIntel } from '../../src/modules/hunt/index.js';
import { serviceEvents } from '../../src/events.js';

/**
 * A hunt alert follows its threat (issue 26 §5): when a sighting lifts the threat's exposure
 * from the high band (vulnerable software present) to critical (compromise signal found), the
 * open hunt alert rises with it — severity, title, huntQualifiedBy, a timeline entry saying
 * what changed, a fresh triage run — and the sighted indicator is `found` on /iocs.
 */
let t: TestContext;
let key: Record<string, string>;
let threatId: string;
let huntAgentId: string;

beforeAll(async () => {
  t = await createTestApp();
  key = bearer(t.orgA.apiKey.key);
  const org = t.orgA.organization.id;
  huntAgentId = (await t.app.inject({ method: 'POST', url: '/api/agents', headers: key, payload: { name: 'Hunt responder', systemPrompt: 'Investigate hunt alerts.' } })).json().id;
  expect((await t.app.inject({ method: 'PUT', url: '/api/alert-triage-routes', headers: key, payload: { routes: [], huntResponseAgentId: huntAgentId } })).statusCode).toBe(200);
  await t.app.inject({ method: 'POST', url: '/api/assets', headers: key, payload: { identifier: 'vpn-1', kind: 'appliance', internetFacing: true, criticality: 'critical', software: [{ vendor: 'Fortinet', product: 'FortiOS', version: '7.0.12' }] } });
  const source = await seedAdvisorySource(t.database.db, org);
  await seedAdvisory(t.database.db, org, source, {
    title: 'FortiOS SSL-VPN heap overflow CVE-2024-21762',
    text: 'An out-of-bounds write in Fortinet FortiOS versions 7.0.0 through 7.0.13 allows remote code execution. Attackers use 198.51.100.23 for command and control.',
    cves: ['CVE-2024-21762'],
    products: [{ vendor: 'Fortinet', product: 'FortiOS', versions: ['>=7.0.0 <=7.0.13'] }],
    indicators: [{ type: 'ipv4', value: '198.51.100.23' }],
  });
  const events = serviceEvents();
  await syncThreatsFromIntel(t.database.db, org, { events });
  await runPendingHuntJobs(t.database.db, events);
  threatId = (await t.database.db.selectFrom('huntThreats').select('id').where('organizationId', '=', org).executeTakeFirstOrThrow()).id;
});
afterAll(async () => t?.close());

const huntAlerts = async () => (await t.app.inject({ url: '/api/alerts?source=hunt', headers: key })).json().alerts as Array<Record<string, any>>;
const iocStatus = async () => (await t.app.inject({ url: '/iocs?search=198.51.100.23', headers: key })).json();

describe('a hunt alert follows its threat', () => {
  it('a sighting lifts the threat to critical: the open alert rises (severity, title, qualification, timeline, a fresh triage run), the indicator is found', async () => {
    const [before] = await huntAlerts();
    expect(before).toMatchObject({ severity: 'high', huntQualifiedBy: 'exposure_band', status: 'in_progress', assignedAgentId: huntAgentId, dedupeKey: `hunt:${threatId}` });
    expect(before!.title).toMatch(/^CVE-2024-21762: /);
    // Simulate says what happened to it (the hunt origin).
    const sim = (await t.app.inject({ method: 'POST', url: '/api/alert-triage-routes/simulate', headers: key, payload: { severity: 'high', createdBy: 'hunt' } })).json();
    expect(sim).toMatchObject({ outcome: before!.routing.outcome, responseAgentId: before!.assignedAgentId, responseAgentName: 'Hunt responder', reason: before!.routing.reason });
    expect(sim.outcome).toBe('hunt');
    expect((await iocStatus()).rows.map((i: { status: string }) => i.status)).toEqual(['unchecked']);
    // The first triage run ended (interrupted here: no worker runs in this file).
    expect((await t.app.inject({ method: 'POST', url: `/api/agents/${huntAgentId}/run-async/${before!.triageRunId}/interrupt`, headers: key })).statusCode).toBe(200);

    const res = await t.app.inject({ method: 'POST', url: '/api/sightings', headers: key, payload: { sightings: [{ value: '198.51.100[.]23', source: 'zeek-conn', assetIdentifier: 'vpn-1', observedAt: '2026-11-20T10:00:00Z' }] } });
    expect(res.json()).toEqual({ accepted: 1, matchedIndicators: 1, reassessedThreats: 1 });
    await runPendingHuntJobs(t.database.db);
    const threat = (await t.app.inject({ url: `/api/threats/${threatId}`, headers: key })).json();
    expect(threat.threat).toMatchObject({ exposureState: 'compromise_signal_found', exposureScore: 90 });

    const after = await huntAlerts();
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: before!.id, severity: 'critical', huntQualifiedBy: 'compromise_signal_found', duplicateCount: 2 });
    expect(after[0]!.title).not.toBe(before!.title);
    expect(after[0]!.title).toBe(`CVE-2024-21762: ${threat.runs[0].exposureStory.headline}`);
    expect(after[0]!.triageRunId).not.toBe(before!.triageRunId);
    expect((await t.app.inject({ url: `/api/agent-runs/${after[0]!.triageRunId}`, headers: key })).json()).toMatchObject({ agentId: huntAgentId, mode: 'triage', status: 'waiting', alertId: before!.id });

    const timeline = (await t.app.inject({ url: `/api/alerts/${before!.id}/timeline`, headers: key })).json().entries as Array<{ kind: string; body: string; actorType: string }>;
    const updated = timeline.find((e) => e.kind === 'updated')!;
    expect(updated.actorType).toBe('system');
    expect(updated.body).toMatch(/^Hunt: the threat's exposure rose \(compromise_signal_found\): severity high → critical; title "CVE-2024-21762: .*" → "CVE-2024-21762: .*"; qualified by exposure_band → compromise_signal_found$/);
    expect(timeline.map((e) => e.kind).slice(-3)).toEqual(['duplicate', 'updated', 'triage_started']);

    // The sighted indicator was seen: found, with the sighting as its check.
    const iocs = await iocStatus();
    expect(iocs.rows.map((i: { status: string; lastCheckedAt: string }) => [i.status, i.lastCheckedAt])).toEqual([['found', '2026-11-20T10:00:00.000Z']]);
    const checks = await t.database.db.selectFrom('intelIndicatorChecks').select(['outcome', 'evidence']).where('indicatorId', '=', iocs.rows[0].id).execute();
    expect(checks).toEqual([{ outcome: 'found', evidence: 'Sighted by zeek-conn on vpn-1' }]);

    // Nothing new: the alert stays as it is, no further run.
    await t.app.inject({ method: 'POST', url: `/api/threats/${threatId}/reassess`, headers: key });
    expect((await huntAlerts())[0]).toMatchObject({ severity: 'critical', triageRunId: after[0]!.triageRunId, duplicateCount: 2 });
  });
});
