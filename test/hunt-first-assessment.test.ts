import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { bearer, createTestApp, type TestContext } from './support/app.js';
import { seedAdvisory, seedAdvisorySource } from './support/hunt-data.js';
import { osvFixture, startFakeOsv } from './support/fakes/osv-server.js';
import { syncRunner } from './support/sync.js';
import { syncThreatsFromIntel } from '../src/modules/hunt/index.js';
import { affectedProductsFrom } from '../src/modules/intel/pipeline/classify/products.fns.js';

/**
 * The first assessment of a page's new threats runs inside the intel pass's transaction and
 * writes each threat with its first run's state (threats.sync.ts). It must decide exactly as the
 * general assessment does: two organizations with the same real SBOM, the same real-format OSV
 * records (test/fixtures/osv) and prose advisories; one pass inline, one with the general
 * assessment afterwards; every threat, run, match, sentence and activity entry compared.
 */
let t: TestContext;
let osv: Awaited<ReturnType<typeof startFakeOsv>>;
const sbom = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'fixtures/hunt/rampart.cdx.json'), 'utf8'));
const records = [...(osvFixture('rampart-npm.osv.json') as unknown[]), osvFixture('GHSA-229r-pqp6-8w6g.json'), osvFixture('GHSA-24fg-p96v-hxh8.json')];
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

async function prepare(org: string, apiKey: string) {
  const key = bearer(apiKey);
  const imported = await t.app.inject({ method: 'POST', url: '/api/assets/import', headers: key, payload: { format: 'cyclonedx', content: sbom } });
  expect(imported.statusCode, imported.body).toBe(200);
  const csv = ['identifier,kind,platform,internetFacing,vendor,product,version,criticality', 'bastion-1,host,linux,true,OpenBSD,OpenSSH,9.3p1,high', 'bastion-2,host,linux,false,OpenBSD,OpenSSH,8.9p1,low'].join('\n');
  expect((await t.app.inject({ method: 'POST', url: '/api/assets/import', headers: key, payload: { format: 'csv', content: csv } })).statusCode).toBe(200);
  const source = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'osv', name: 'OSV npm', serverUrl: `${osv.url}/npm/all.zip` } });
  expect(source.statusCode, source.body).toBe(200);
  const out = await syncRunner(t.database.db, { secrets: t.secrets }).sync(org, source.json().id);
  expect(out.job.status, String(out.job.error)).toBe('succeeded');
  // Prose beside the records: one page holds both kinds (and a threat with items of each).
  const prose = await seedAdvisorySource(t.database.db, org);
  const advisory = (cve: string, title: string, text: string) =>
    seedAdvisory(t.database.db, org, prose, { title, text, cves: [cve], publishedAt: new Date('2026-11-18T08:00:00Z'), products: affectedProductsFrom({ text: `${title}\n${text}`, cpes: [] }).map(({ vendor, product, versions }) => ({ vendor, product, versions })) });
  await advisory('CVE-2024-6387', 'regreSSHion: OpenSSH signal handler race (CVE-2024-6387)', 'A signal handler race condition in sshd before 9.8p1 allows unauthenticated remote code execution, exploited in the wild.');
  await advisory('CVE-2026-90001', 'undici memory exhaustion (CVE-2026-90001)', 'undici before 7.31.0 exhausts memory on crafted responses.');
  await advisory('CVE-2026-90010', 'Fastify 4 content-type parser bypass (CVE-2026-90010)', 'Fastify versions before 4.29.1 mishandle a crafted Content-Type header. Fastify 5 is not affected.');
}

/** An organization's threats as the API and the activity log show them, its own ids replaced. */
async function snapshot(org: string, apiKey: string) {
  const threats = await t.database.db.selectFrom('huntThreats').select(['id', 'canonicalKey']).where('organizationId', '=', org).orderBy('canonicalKey').execute();
  const out: Record<string, unknown> = {};
  for (const th of threats) {
    const res = await t.app.inject({ method: 'GET', url: `/api/threats/${th.id}`, headers: bearer(apiKey) });
    expect(res.statusCode, res.body).toBe(200);
    const { rows: activity } = await sql<{ kind: string; actorType: string; metadata: unknown }>`
      SELECT kind, actor_type AS "actorType", metadata FROM hunt_activity_events WHERE threat_id = ${th.id} ORDER BY created_at, id`.execute(t.database.db);
    out[th.canonicalKey] = JSON.parse(JSON.stringify({ view: res.json(), activity }).replace(UUID, '<id>'));
  }
  return out;
}

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  osv = await startFakeOsv(records);
});
afterAll(async () => {
  await osv?.close();
  await t?.close();
});

describe('first assessment of new threats in the intel pass', () => {
  it('gives the same threats, matches, relevancy, sentences and activity as the general assessment', async () => {
    const now = new Date('2026-11-20T12:00:00Z');
    const inline = t.orgA;
    const general = t.orgB;
    await prepare(inline.organization.id, inline.apiKey.key);
    await prepare(general.organization.id, general.apiKey.key);
    const a = await syncThreatsFromIntel(t.database.db, inline.organization.id, { now, settledBefore: new Date() });
    const b = await syncThreatsFromIntel(t.database.db, general.organization.id, { now, settledBefore: new Date(), firstAssessment: 'separate' });
    expect(a.created.length).toBe(b.created.length);
    expect(a.created.length).toBeGreaterThanOrEqual(7);

    // Inline, each new threat was written with its state in the page's transaction (the one
    // that linked its items); the general path updated it in a later one.
    const sameTx = async (org: string) => (await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM hunt_threats th JOIN hunt_threat_items l ON l.threat_id = th.id
      WHERE th.organization_id = ${org} AND th.latest_run_id IS NOT NULL AND th.xmin::text = l.xmin::text`.execute(t.database.db)).rows[0]!.n;
    expect(await sameTx(inline.organization.id)).toBeGreaterThan(0);
    expect(await sameTx(general.organization.id)).toBe(0);

    const left = await snapshot(inline.organization.id, inline.apiKey.key);
    const right = await snapshot(general.organization.id, general.apiKey.key);
    expect(Object.keys(left)).toEqual(Object.keys(right));
    for (const k of Object.keys(left)) expect(left[k], k).toEqual(right[k]);
    // Not a comparison of empty runs: structured and prose matches, with verdicts and sentences.
    const undici = left['CVE-2026-90001'] as { view: { matches: Array<{ verdict: string; evidence: string }>; runs: Array<{ relevancyExplanation: string[] }> } };
    expect(undici.view.matches.some((m) => m.verdict === 'affected' && m.evidence === 'osv')).toBe(true);
    expect(undici.view.runs[0]!.relevancyExplanation.length).toBeGreaterThan(0);
    const ssh = left['CVE-2024-6387'] as { view: { matches: Array<{ verdict: string; evidence: string }> } };
    expect(ssh.view.matches.map((m) => [m.verdict, m.evidence])).toContainEqual(['affected', 'advisory-text']);
  });
});
