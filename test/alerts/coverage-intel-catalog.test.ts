import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startFixtureServer } from '../support/fixture-server.js';
import { startFakeTaxii } from '../support/fakes/taxii-server.js';
import { userWithPermissions } from '../support/actors.js';
import { syncRunner } from '../support/sync.js';

/**
 * Issue 47 items 12 and 14, as a security team meets them through the API:
 * - coverage with no intel to compare with says so, and why (sources failing, with their last
 *   error, or never synced), instead of "no gap";
 * - a real SigmaHQ rule naming an ATT&CK id newer than the shipped catalog (`attack.t1685.002`,
 *   `attack.defense-impairment`) counts under the id it names, marked unknown to the catalog
 *   (v18.1); a sync of the built-in MITRE ATT&CK source refreshes the catalog coverage reads.
 */
const CLOUDTRAIL_RULE = fs.readFileSync(new URL('../fixtures/sigma/aws_cloudtrail_disable_logging.yml', import.meta.url), 'utf8');

let t: TestContext;
let runner: ReturnType<typeof syncRunner>;
const closers: Array<() => Promise<void>> = [];
const adminA = () => bearer(t.orgA.apiKey.key);
const adminB = () => bearer(t.orgB.apiKey.key);
const coverage = async (headers: Record<string, string>, query = '') => {
  const res = await t.app.inject({ url: `/api/coverage/attack${query}`, headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

beforeAll(async () => {
  // The fake feeds are local servers: the API and the sync share the setting, as in a deployment.
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  runner = syncRunner(t.database.db, { secrets: t.secrets });
});
afterAll(async () => {
  for (const c of closers) await c();
  await t.close();
});

async function seedItem(organizationId: string, technique: string) {
  const now = new Date();
  const sourceId = uuidv7();
  await t.database.db.insertInto('intelSources').values({ id: sourceId, organizationId, builtinKey: null, name: `seeded-${technique}`, displayName: 'Seeded', kind: 'rss', apiType: null, feedUrl: 'https://seed.example/feed', serverUrl: null, collectionId: null, authType: null, username: null, apiKeyCiphertext: null, scheduleCron: '0 * * * *', maxEntries: 100, createdBy: null, createdAt: now, updatedAt: now }).execute();
  await t.database.db.insertInto('intelItems').values({
    id: uuidv7(), organizationId, sourceId, externalId: randomUUID(), title: `Report naming ${technique}`, url: 'https://seed.example/r', publisher: 'Seed', publishedAt: now,
    language: 'en', contentText: 'text', contentHtml: null, structuredIndicators: '[]', referenceUrls: '[]', tags: [], raw: null, contentHash: randomUUID(),
    createdAt: now, updatedAt: now, processedAt: now, status: 'processed', duplicateOf: null,
    classification: JSON.stringify({ attack: [{ technique, subTechnique: '', techniqueName: '', confidence: 0.9 }], actor: [], malware: [] }),
  }).execute();
}

describe('issue 47 item 12: coverage says when there is no intel to compare with', () => {
  it('a new organization whose sources never synced: no intel to compare with, not "no gap"', async () => {
    const body = await coverage(adminB());
    expect(body.topGaps).toEqual([]);
    expect(body.intelStatus).toMatchObject({ comparable: false, reason: 'never_synced', techniques: 0, failingSources: [] });
    expect(body.intelStatus.sources.enabled).toBeGreaterThan(0);
    expect(body.intelStatus.message).toBe(`No intel to compare with: none of the ${body.intelStatus.sources.enabled} enabled sources has synced yet.`);
  });

  it('when sources fail to sync, names each failing source with its last error', async () => {
    const feed = await startFixtureServer({ '/feed.xml': { status: 503, type: 'text/plain', body: 'maintenance' } });
    closers.push(feed.close);
    const created = await t.app.inject({ method: 'POST', url: '/sources', headers: adminB(), payload: { kind: 'rss', name: 'Vendor advisories', feedUrl: `${feed.url}/feed.xml` } });
    expect(created.statusCode, created.body).toBe(200);
    const { state } = await runner.sync(t.orgB.organization.id, created.json().id);
    expect(state.lastStatus).toBe('error');

    const body = await coverage(adminB());
    expect(body.topGaps).toEqual([]);
    expect(body.intelStatus).toMatchObject({ comparable: false, reason: 'sources_failing', techniques: 0 });
    expect(body.intelStatus.failingSources).toEqual([{ id: created.json().id, name: 'Vendor advisories', lastError: state.lastError, lastFailedAt: expect.any(String) }]);
    expect(state.lastError).toMatch(/503/);
    expect(body.intelStatus.message).toBe(`No intel to compare with: 1 source of ${body.intelStatus.sources.enabled} failed to sync (Vendor advisories: ${state.lastError}).`);
  });

  it('with intel naming techniques, there is something to compare with (failing sources still listed)', async () => {
    await seedItem(t.orgB.organization.id, 'T1190');
    const body = await coverage(adminB());
    expect(body.intelStatus).toMatchObject({ comparable: true, reason: null, message: null, techniques: 1 });
    expect(body.intelStatus.failingSources.map((s: { name: string }) => s.name)).toEqual(['Vendor advisories']);
    expect(body.topGaps.map((g: { techniqueId: string }) => g.techniqueId)).toEqual(['T1190']);
    // A filter that leaves no intel says so too.
    const filtered = await coverage(adminB(), '?actor=APT29');
    expect(filtered.intelStatus).toMatchObject({ comparable: false, reason: 'sources_failing' });
  });

  it('still needs intel.read as well as alert.read (403 naming it)', async () => {
    const alertsOnly = await userWithPermissions(t.database.db, t.orgB.organization.id, ['alert.read']);
    const denied = await t.app.inject({ url: '/api/coverage/attack', headers: bearer(alertsOnly.key) });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['intel.read'] });
  });
});

describe('issue 47 item 14: ATT&CK ids newer than the shipped catalog', () => {
  let detectionId = '';

  it('a SigmaHQ rule naming attack.t1685.002 imports with the technique counted and a warning naming the catalog version', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/code-detections/import', headers: adminA(), payload: { format: 'sigma', content: CLOUDTRAIL_RULE } });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.errors).toEqual([]);
    expect(body.warnings).toEqual([{ index: 0, ruleId: '4db60cc0-36fb-42b7-9b58-a5b53019fb74', title: 'AWS CloudTrail Important Change', message: 'ATT&CK technique(s) T1685.002 unknown to the catalog (v18.1): counted for coverage under the id named, without a name or tactic until the catalog knows it' }]);
    detectionId = body.created[0].id;
    const detection = (await t.app.inject({ url: `/api/code-detections/${detectionId}`, headers: adminA() })).json();
    expect(detection.attackTechniques).toEqual(['T1685.002']);
    expect(detection.tags).toEqual(['attack.defense-impairment', 'attack.t1685.002']);

    // Saved again unchanged (PUT replaces): the rule itself names the id, so it is not refused.
    const { id: _id, organizationId: _o, managedBy: _m, managedSource: _s, createdAt: _c, updatedAt: _u, ...input } = detection;
    const again = await t.app.inject({ method: 'PUT', url: `/api/code-detections/${detectionId}`, headers: adminA(), payload: input });
    expect(again.statusCode, again.body).toBe(200);
    // An id typed by hand that no rule of the detection names is still checked against the catalog.
    const typed = await t.app.inject({ method: 'PUT', url: `/api/code-detections/${detectionId}`, headers: adminA(), payload: { ...input, attackTechniques: ['T1685.002', 'T1686'] } });
    expect(typed.statusCode).toBe(400);
    expect(typed.json().issues).toEqual([{ path: 'attackTechniques.1', message: 'T1686 is not an ATT&CK technique of the catalog', code: 'unknown_reference', location: 'body' }]);
  });

  it('coverage counts it under T1685, marked unknown to the catalog (v18.1), and the technique panel answers for it', async () => {
    const body = await coverage(adminA());
    expect(body.catalog).toEqual({ version: '18.1', releasedAt: '2025-11-13', refreshedAt: null, syncedEntries: 0 });
    expect(body.techniques.find((x: { techniqueId: string }) => x.techniqueId === 'T1685')).toMatchObject({
      techniqueId: 'T1685', name: '', tactics: [], inCatalog: false, state: 'unused', detections: { total: 1, test: 1 },
    });
    expect(body.summary.unused).toBe(1);
    const known = await t.app.inject({ url: '/api/coverage/attack/techniques/T1685.002', headers: adminA() });
    expect(known.statusCode, known.body).toBe(200);
    expect(known.json()).toMatchObject({ techniqueId: 'T1685', inCatalog: false, catalog: { version: '18.1' }, detections: [{ id: detectionId, attackTechniques: ['T1685.002'] }] });
    // Another organization does not see it.
    expect((await t.app.inject({ url: '/api/coverage/attack/techniques/T1685', headers: adminB() })).statusCode).toBe(404);
  });

  it('a sync of the built-in MITRE ATT&CK source refreshes the catalog coverage reads: T1685 gets its name and tactic', async () => {
    // The technique as ATT&CK's TAXII server publishes techniques (STIX 2.1 attack-pattern);
    // the name and tactic stand for those of the release that introduces T1685.
    const technique = {
      type: 'attack-pattern', spec_version: '2.1', id: 'attack-pattern--5f3b0c2e-6a8f-4c1e-9d62-1b7d7a7e1685',
      created: '2026-04-28T00:00:00.000Z', modified: '2026-04-28T00:00:00.000Z', name: 'Impair Defenses',
      description: 'Adversaries may maliciously modify components of a victim environment in order to hinder or disable defensive mechanisms.',
      kill_chain_phases: [{ kill_chain_name: 'mitre-attack', phase_name: 'defense-impairment' }],
      external_references: [{ source_name: 'mitre-attack', external_id: 'T1685', url: 'https://attack.mitre.org/techniques/T1685' }],
      x_mitre_platforms: ['IaaS', 'Windows'],
      date_added: '2026-04-28T00:00:00.000Z', // the fake TAXII server's added-date

    };
    const taxii = await startFakeTaxii({ collections: { attack: { title: 'Enterprise ATT&CK', objects: [technique] } } });
    closers.push(taxii.close);
    const { db } = t.database;
    const builtin = await db.selectFrom('intelSources').select(['id']).where('builtinKey', '=', 'mitre-attack-enterprise').executeTakeFirstOrThrow();
    await db.updateTable('intelSources').set({ serverUrl: `${taxii.url}/taxii2/`, collectionId: 'attack' }).where('id', '=', builtin.id).execute();
    const { job } = await runner.sync(t.orgA.organization.id, builtin.id);
    expect(job.status, String(job.error)).toBe('succeeded');

    const body = await coverage(adminA());
    expect(body.catalog).toMatchObject({ version: '18.1', refreshedAt: expect.any(String), syncedEntries: 1 });
    expect(body.techniques.find((x: { techniqueId: string }) => x.techniqueId === 'T1685')).toMatchObject({ name: 'Impair Defenses', tactics: ['defense-impairment'], inCatalog: true, state: 'unused' });
    expect(body.tactics.find((x: { tactic: string }) => x.tactic === 'defense-impairment')).toEqual({ tactic: 'defense-impairment', name: 'Defense Impairment', techniques: 1, covered: 0, coveredExperimentalOnly: 0, gap: 0, unused: 1 });
    // Classification and detections read the same catalog: T1685 typed by hand is now accepted.
    const typed = await t.app.inject({ method: 'POST', url: '/api/code-detections', headers: adminA(), payload: { name: 'Trail stopped (hand-written)', attackTechniques: ['T1685'] } });
    expect(typed.statusCode, typed.body).toBe(200);
  });
});
