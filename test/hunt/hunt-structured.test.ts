import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';
import { seedAdvisory, seedAdvisorySource } from '../support/hunt-data.js';
import { osvFixture, startFakeOsv } from '../support/fakes/osv-server.js';
import { startFixtureServer } from '../support/fixture-server.js';
import { syncRunner } from '../support/sync.js';
import { syncThreatsFromIntel } from '../../src/modules/hunt/index.js';
import { purlKey, purlNameOfKey } from '../../src/modules/hunt/identity.fns.js';
import { sql } from 'kysely';
import { affectedProductsFrom } from '../../src/modules/intel-ingest/pipeline/classify/products.fns.js';

/**
 * Issue 28: the real SBOM of this project, structured OSV records synced from a local OSV
 * mirror, and prose advisories — each observation of the issue as an assertion on
 * GET /api/threats/{id} `matches`, relevancy and explanation.
 */
let t: TestContext;
let key: Record<string, string>;
let org: string;
let osv: Awaited<ReturnType<typeof startFakeOsv>>;
let runner: ReturnType<typeof syncRunner>;
const sbom = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../fixtures/hunt/rampart.cdx.json'), 'utf8'));
const npmRecords = osvFixture('rampart-npm.osv.json') as unknown[];
const realRecords = [osvFixture('GHSA-229r-pqp6-8w6g.json'), osvFixture('GHSA-24fg-p96v-hxh8.json')];

async function threatByCve(cve: string) {
  const row = await t.database.db.selectFrom('huntThreats').select('id').where('organizationId', '=', org).where('canonicalKey', '=', cve).executeTakeFirstOrThrow();
  const res = await t.app.inject({ method: 'GET', url: `/api/threats/${row.id}`, headers: key });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  key = bearer(t.orgA.apiKey.key);
  org = t.orgA.organization.id;
  runner = syncRunner(t.database.db, { secrets: t.secrets });
  osv = await startFakeOsv([...npmRecords, ...realRecords]);
  const imported = await t.app.inject({ method: 'POST', url: '/api/assets/import', headers: key, payload: { format: 'cyclonedx', content: sbom } });
  expect(imported.statusCode, imported.body).toBe(200);
  const csv = ['identifier,kind,platform,internetFacing,vendor,product,version,criticality', 'bastion-1,host,linux,true,OpenBSD,OpenSSH,9.3p1,high', 'bastion-2,host,linux,false,OpenBSD,OpenSSH,8.9p1,low', 'bastion-3,host,linux,false,OpenBSD,OpenSSH,9.8p1,low'].join('\n');
  expect((await t.app.inject({ method: 'POST', url: '/api/assets/import', headers: key, payload: { format: 'csv', content: csv } })).statusCode).toBe(200);
});
afterAll(async () => {
  await osv?.close();
  await t?.close();
});

describe('osv source', () => {
  let sourceId: string;

  it('is created as kind api / apiType osv and syncs a zip laid out as OSV\'s all.zip through the guarded client', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'osv', name: 'OSV npm', serverUrl: `${osv.url}/npm/all.zip` } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ kind: 'api', apiType: 'osv' });
    sourceId = res.json().id;
    const out = await runner.sync(org, sourceId);
    expect(out.thrown).toBeNull();
    expect(out.job.status).toBe('succeeded');
    const items = await t.database.db.selectFrom('intelItems').select(['externalId', 'status', 'vulnerability']).where('sourceId', '=', sourceId).orderBy('externalId').execute();
    expect(items.map((i) => i.externalId)).toEqual(['CVE-2026-90001', 'GHSA-229r-pqp6-8w6g', 'GHSA-24fg-p96v-hxh8', 'GHSA-rmpt-0001-undc', 'GHSA-rmpt-0002-fsty', 'GHSA-rmpt-0003-stat', 'GHSA-rmpt-0004-smvr', 'GHSA-rmpt-0005-cntt']);
    // Withdrawn: the item is retracted, not deleted. GIT ranges are out of scope, said per record.
    expect(items.find((i) => i.externalId === 'GHSA-rmpt-0003-stat')!.status).toBe('retracted');
    expect((items.find((i) => i.externalId === 'CVE-2026-90001')!.vulnerability as { notes: string[] }).notes).toEqual(['A GIT range of npm undici (https://github.com/nodejs/undici) is out of scope: commits are not versions.']);
    // Two branches of one package (the real Rails record) kept as two affected entries with their
    // events, in the vulnerability store (migration 0154); the item's copy names the packages only.
    const stored = await t.database.db.selectFrom('intelVulnerabilities').select('affected').where('sourceId', '=', sourceId).where('vulnId', '=', 'GHSA-24fg-p96v-hxh8').executeTakeFirstOrThrow();
    expect(stored.affected).toEqual([
      { ecosystem: 'RubyGems', name: 'rails', purl: null, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '2.1.0' }, { fixed: '2.3.11' }] }], versions: [] },
      { ecosystem: 'RubyGems', name: 'rails', purl: null, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '3.0.0' }, { fixed: '3.0.4' }] }], versions: [] },
    ]);
    expect((items.find((i) => i.externalId === 'GHSA-24fg-p96v-hxh8')!.vulnerability as { affected: unknown[] }).affected).toEqual([
      { ecosystem: 'RubyGems', name: 'rails', purl: null },
      { ecosystem: 'RubyGems', name: 'rails', purl: null },
    ]);
  });

  it('stores a record from its fields, not its prose: severity, summary, CVE; no indicators from its text; found by id, alias and package', async () => {
    const search = async (q: string) => (await t.app.inject({ method: 'GET', url: `/items?search=${encodeURIComponent(q)}`, headers: key })).json().items.map((i: { externalId: string }) => i.externalId);
    const [item] = (await t.app.inject({ method: 'GET', url: '/items?search=sprout', headers: key })).json().items;
    expect(item).toMatchObject({
      externalId: 'GHSA-229r-pqp6-8w6g',
      severity: 'high', // the database's word (no CVSS vector in this record)
      summary: 'High severity vulnerability that affects sprout. The unpack_zip function in archive_unpacker.rb in the sprout gem 0.7.246 for Ruby allows context-dependent attackers to execute arbitrary commands via shell metacharacters in a (1) filename or (2) path.',
      tldr: 'High severity vulnerability that affects sprout',
      cves: ['CVE-2013-6421'],
      classification: { attack: [], actor: [], malware: [], mappings: [{ framework: 'cve', id: 'CVE-2013-6421', confidence: 1 }] },
      affectedProducts: [{ vendor: 'RubyGems', product: 'sprout', versions: ['<=0.7.246'], confidence: 1 }],
      droppedIndicators: [],
    });
    // The details name a file (archive_unpacker.rb): a structured record's text is not mined for indicators.
    expect(Object.values(item.iocs as Record<string, unknown[]>).flat()).toEqual([]);
    const indicators = await t.database.db.selectFrom('intelIndicators').innerJoin('intelItems', 'intelItems.id', 'intelIndicators.itemId').select('intelIndicators.value').where('intelItems.sourceId', '=', sourceId).execute();
    expect(indicators).toEqual([]);
    expect(await search('CVE-2013-6421')).toEqual(['GHSA-229r-pqp6-8w6g']);
    expect(await search('GHSA-229r-pqp6-8w6g')).toEqual(['GHSA-229r-pqp6-8w6g']);
    // The details text is not in a structured record's search vector (migration 0110).
    expect(await search('metacharacters')).toEqual([]);
  });

  it('answers 304 with nothing stored when the export did not change, and reads JSON arrays and NDJSON too', async () => {
    const again = await runner.sync(org, sourceId);
    expect(again.state.lastStatus).toBe('not_modified');
    for (const [name, file] of [['OSV array', 'records.json'], ['OSV ndjson', 'records.ndjson']]) {
      const res = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'osv', name, serverUrl: `${osv.url}/${file}` } });
      const out = await runner.sync(org, res.json().id);
      expect(out.job.status, String(out.job.error)).toBe('succeeded');
      expect(out.job.stats).toMatchObject({ fetched: 8 });
    }
  });
});

describe('matching on the real SBOM', () => {
  beforeAll(async () => {
    // Prose-only advisories, with the products the real enrichment finds in them.
    const source = await seedAdvisorySource(t.database.db, org);
    const prose = async (cve: string, title: string, text: string) =>
      seedAdvisory(t.database.db, org, source, { title, text, cves: [cve], products: affectedProductsFrom({ text: `${title}\n${text}`, cpes: [] }).map(({ vendor, product, versions }) => ({ vendor, product, versions })) });
    await prose('CVE-2026-90010', 'Fastify 4 content-type parser bypass (CVE-2026-90010)', 'Fastify versions before 4.29.1 mishandle a crafted Content-Type header on requests forwarded by a proxy. Fastify 5 is not affected. Upgrade to 4.29.1.');
    await prose('CVE-2024-6387', 'regreSSHion: OpenSSH signal handler race (CVE-2024-6387)', 'A signal handler race condition in sshd before 9.8p1 allows unauthenticated remote code execution. sshd 9.8p1 and later are not affected.');
    await prose('CVE-2026-90011', 'Apache Struts file upload RCE (CVE-2026-90011)', 'Apache Struts 2.0.0 through 6.3.0 allows path traversal in file upload. Users should upgrade to Struts 6.4.0, which fixes the issue.');
    // An NVD-style sentence: "through 7.30.x" names the 7 line only (the real SBOM also has undici 6.29.1).
    await prose('CVE-2026-90012', 'undici retains aborted response bodies (CVE-2026-90012)', 'undici through 7.30.x retains aborted response bodies.');
    await syncThreatsFromIntel(t.database.db, org, {});
  });

  it('matches package identity exactly: undici by OSV ranges per branch, never undici-types; one threat per CVE with its aliases', async () => {
    const v = await threatByCve('CVE-2026-90001');
    expect(v.threat.aliases).toContain('GHSA-rmpt-0001-undc');
    expect(v.threat.intelItemIds).toHaveLength(6); // the GHSA and its CVE record, from each of the three sources
    const undici = v.matches.filter((m: { product: string }) => m.product === 'undici');
    expect(v.matches.every((m: { product: string; purl: string }) => m.product === 'undici' && m.purl.startsWith('pkg:npm/undici@'))).toBe(true);
    expect(undici.map((m: Record<string, unknown>) => [m.version, m.verdict, m.affectedRange, m.fixedVersion, m.evidence])).toEqual([
      ['7.30.2', 'affected', '>=7.0.0 <7.31.0', '7.31.0', 'osv'],
      ['6.29.1', 'not_affected', '>=7.0.0 <7.31.0', null, 'osv'], // both records say not affected: the first advisory id's words
    ]);
    expect(v.matches[0]).toEqual({ assetId: expect.any(String), assetIdentifier: 'rampart', product: 'undici', version: '7.30.2', purl: 'pkg:npm/undici@7.30.2', cpe: null, verdict: 'affected', affectedRange: '>=7.0.0 <7.31.0', fixedVersion: '7.31.0', evidence: 'osv', advisoryId: 'CVE-2026-90001' });
    const run = v.runs[0];
    expect(run.relevancyHeadline).toBe('rampart runs an affected version');
    // undici 6.29.1 is four times in the SBOM: said once; never "undici-types".
    expect(run.relevancyExplanation.join(' ')).not.toContain('undici-types');
    expect(run.relevancyExplanation.filter((s: string) => s.includes('6.29.1'))).toHaveLength(1);
    expect(new Set(run.relevancyExplanation).size).toBe(run.relevancyExplanation.length);
    expect(run.exposureStory.observations).toHaveLength(1);
  });

  it('reads last_affected and versions lists; a withdrawn record retires its threat', async () => {
    const fastify = await threatByCve('CVE-2026-90002');
    expect(fastify.matches.map((m: Record<string, unknown>) => [m.product, m.version, m.verdict, m.affectedRange])).toEqual([['fastify', '5.12.8', 'not_affected', '>=4.0.0 <=4.29.0']]);
    expect(fastify.threat.status).toBe('not_relevant');
    const semver = await threatByCve('CVE-2026-90004');
    expect(semver.matches.map((m: Record<string, unknown>) => [m.product, m.version, m.verdict, m.affectedRange])).toEqual([['semver', '7.8.6', 'affected', '=7.8.6']]);
    const withdrawn = await threatByCve('CVE-2026-90003');
    expect(withdrawn.matches).toEqual([]);
    expect(withdrawn.runs[0].relevancyExplanation).toEqual(['Every advisory for CVE-2026-90003 was withdrawn by its source; the threat is retired.']);
    expect(withdrawn.threat.exposureState).toBe('not_affected');
  });

  it('prose: words and header names are not products, fixes and negated sentences are not affected versions', async () => {
    const v = await threatByCve('CVE-2026-90010');
    // Neither "forwarded" nor "content-type" (both in the SBOM), and Fastify 5 is outside "<4.29.1".
    expect(v.matches.map((m: Record<string, unknown>) => [m.product, m.version, m.verdict, m.affectedRange, m.evidence])).toEqual([['Fastify', '5.12.8', 'not_affected', '<4.29.1', 'advisory-text']]);
    expect(v.threat.relevancyScore).toBeLessThan(40);
    expect(v.runs[0].relevancyExplanation[0]).toBe('rampart runs fastify 5.12.8, outside the affected range <4.29.1 (the advisory names it in its text): not affected.');
    expect(v.runs[0].relevancyExplanation.filter((s: string) => /runs /.test(s))).toHaveLength(1);
    // "upgrade to Struts 6.4.0, which fixes the issue" is a fix, not an affected version.
    const struts = await threatByCve('CVE-2026-90011');
    expect(struts.intelItems[0].affectedProducts).toEqual([{ name: 'apache struts', versions: ['>=2.0.0 <=6.3.0'] }]);
  });

  it('prose: "through 7.30.x" cannot speak of the 6.x line: undici 6.29.1 is unknown, not affected', async () => {
    const v = await threatByCve('CVE-2026-90012');
    expect(v.matches.map((m: Record<string, unknown>) => [m.product, m.version, m.verdict, m.affectedRange, m.evidence])).toEqual([
      ['undici', '7.30.2', 'affected', '<=7.30.x', 'advisory-text'],
      ['undici', '6.29.1', 'unknown', '<=7.30.x', 'advisory-text'],
    ]);
  });

  it('prose: "sshd before 9.8p1" is OpenSSH with OpenSSH-style versions', async () => {
    const v = await threatByCve('CVE-2024-6387');
    expect(v.matches.map((m: Record<string, unknown>) => [m.assetIdentifier, m.version, m.verdict, m.affectedRange])).toEqual([
      ['bastion-1', '9.3p1', 'affected', '<9.8p1'],
      ['bastion-2', '8.9p1', 'affected', '<9.8p1'],
      ['bastion-3', '9.8p1', 'not_affected', '<9.8p1'],
    ]);
    expect(v.runs[0].relevancyHeadline).toBe('bastion-1 and bastion-2 run affected versions');
  });

  it('finds a package\'s software by the same name key in SQL (migration 0111) as from its identity, whatever the purl\'s spelling', async () => {
    const purls = ['pkg:npm/%40fastify/static@9.3.0?foo=bar#lib', 'pkg:npm/@Fastify/Static@1', 'pkg:pypi/Django_Rest.Framework@3.15.0', 'pkg:pypi/django-rest-framework', 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1?type=jar',
      'pkg:golang/github.com/gin-gonic/gin@v1.9.1', 'pkg:deb/debian/openssl@3.0.11-1~deb12u2?arch=amd64', 'pkg:npm/foo%2Bbar@1.0.0', 'pkg:cargo/na%C3%AFve@0.1.0'];
    const { rows } = await sql<{ p: string; n: string }>`SELECT p, hunt_purl_name(p) AS n FROM unnest(${purls}::text[]) AS p`.execute(t.database.db);
    expect(rows.map((r) => r.n)).toEqual(purls.map((p) => purlNameOfKey(purlKey(p)!)));
    expect(rows.map((r) => r.n)).toEqual(['static', 'static', 'djangorestframework', 'djangorestframework', 'log4jcore', 'gin', 'openssl', 'foobar', 'nave']);
  });

  it('keys a record with no CVE by its own id', async () => {
    const v = await threatByCve('GHSA-rmpt-0005-cntt');
    expect(v.threat).toMatchObject({ canonicalKeyType: 'osv', canonicalKey: 'GHSA-rmpt-0005-cntt' });
    // content-type 1.0.5 is outside the range, the four 2.1.0 entries are one match inside it.
    expect(v.matches.map((m: Record<string, unknown>) => [m.version, m.verdict, m.fixedVersion])).toEqual([['2.1.0', 'affected', '2.1.1'], ['1.0.5', 'not_affected', null]]);
  });

  it('gives byte-identical sentences on a reassessment', async () => {
    const before = await threatByCve('CVE-2026-90001');
    const res = await t.app.inject({ method: 'POST', url: `/api/threats/${before.threat.id}/reassess`, headers: key });
    expect(res.statusCode, res.body).toBe(200);
    const after = res.json();
    expect(after.runs[0].relevancyExplanation).toEqual(before.runs[0].relevancyExplanation);
    expect(after.matches).toEqual(before.matches);
  });

  it('another organization\'s threat is 404; hunt.read is needed', async () => {
    const v = await threatByCve('CVE-2026-90001');
    const other = await t.app.inject({ method: 'GET', url: `/api/threats/${v.threat.id}`, headers: bearer(t.orgB.apiKey.key) });
    expect(other.statusCode).toBe(404);
    const nobody = await userWithPermissions(t.database.db, org, []);
    const denied = await t.app.inject({ method: 'GET', url: `/api/threats/${v.threat.id}`, headers: bearer(nobody.key) });
    expect(denied.statusCode).toBe(403);
  });
});

describe('cisa_kev source', () => {
  it('syncs the catalog and says on the threat that the CVE is exploited, when it was listed, its due date and ransomware use', async () => {
    const catalog = fs.readFileSync(path.join(import.meta.dirname, '../fixtures/kev/known_exploited_vulnerabilities.json'));
    const server = await startFixtureServer({ '/known_exploited_vulnerabilities.json': { body: catalog } });
    try {
      const bad = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'cisa_kev', name: 'KEV' } });
      expect(bad.statusCode).toBe(400);
      const csv = ['identifier,kind,platform,internetFacing,vendor,product,version,criticality', 'reports-1,host,linux,false,Apache,Log4j,2.14.1,low'].join('\n');
      expect((await t.app.inject({ method: 'POST', url: '/api/assets/import', headers: key, payload: { format: 'csv', content: csv } })).statusCode).toBe(200);
      const res = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'cisa_kev', name: 'CISA KEV', serverUrl: `${server.url}/known_exploited_vulnerabilities.json` } });
      expect(res.statusCode, res.body).toBe(200);
      const out = await runner.sync(org, res.json().id);
      expect(out.job.status, String(out.job.error)).toBe('succeeded');
      await syncThreatsFromIntel(t.database.db, org, {});
      const v = await threatByCve('CVE-2021-44228');
      expect(v.runs[0].relevancyExplanation).toContain("CVE-2021-44228 is in CISA's Known Exploited Vulnerabilities catalog (added 2021-12-10, due 2021-12-24); it is known to be used in ransomware campaigns.");
      expect(v.matches.map((m: Record<string, unknown>) => [m.assetIdentifier, m.version, m.verdict, m.evidence])).toEqual([['reports-1', '2.14.1', 'unknown', 'advisory-text']]);
      expect(v.threat.relevancyScore).toBe(50); // version not decidable from the catalog's words (35) + exploited (15)
      // The listing as a field, a filter of the list, and what the console shows (issue 49).
      expect(v.threat.knownExploited).toEqual({ dateAdded: '2021-12-10', dueDate: '2021-12-24', ransomware: true });
      const listed = await t.app.inject({ method: 'GET', url: '/api/threats?knownExploited=true&limit=200', headers: key });
      expect(listed.statusCode, listed.body).toBe(200);
      const keys = listed.json().threats.map((x: { canonicalKey: string }) => x.canonicalKey);
      expect(keys).toEqual(expect.arrayContaining(['CVE-2021-44228', 'CVE-2023-4966']));
      expect(listed.json().threats.every((x: { knownExploited: unknown }) => x.knownExploited !== null)).toBe(true);
      const unlisted = await t.app.inject({ method: 'GET', url: '/api/threats?knownExploited=false&limit=200', headers: key });
      expect(unlisted.json().threats.map((x: { canonicalKey: string }) => x.canonicalKey)).not.toContain('CVE-2021-44228');
      expect(unlisted.json().threats.every((x: { knownExploited: unknown }) => x.knownExploited === null)).toBe(true);
      const badFilter = await t.app.inject({ method: 'GET', url: '/api/threats?knownExploited=yes', headers: key });
      expect(badFilter.statusCode).toBe(400);
      expect(badFilter.json().issues.map((i: { path: string }) => i.path)).toEqual(['knownExploited']);
      // A KEV listing alerts whatever the band once the setting says so (Log4j is only possibly affected here: score below high).
      const off = await t.app.inject({ method: 'GET', url: `/api/threats/${v.threat.id}`, headers: key });
      expect(off.json().activeHuntAlert).toBeNull();
      const settings = await t.app.inject({ method: 'PUT', url: '/api/hunt/alert-creation-settings', headers: key, payload: { minimumExposureBand: 'critical', alertOnCompromiseBelowThreshold: true, alertOnKnownExploited: true } });
      expect(settings.statusCode, settings.body).toBe(200);
      expect(settings.json().alertOnKnownExploited).toBe(true);
      try {
        const re = await t.app.inject({ method: 'POST', url: `/api/threats/${v.threat.id}/reassess`, headers: key });
        expect(re.statusCode, re.body).toBe(200);
        const after = (await t.app.inject({ method: 'GET', url: `/api/threats/${v.threat.id}`, headers: key })).json();
        expect(after.activityEvents.filter((e: { kind: string }) => e.kind === 'hunt_alert_qualified').map((e: { metadata: { label: string } }) => e.metadata.label)).toEqual(['known_exploited']);
        expect(after.activeHuntAlert).not.toBeNull();
      } finally {
        await t.app.inject({ method: 'PUT', url: '/api/hunt/alert-creation-settings', headers: key, payload: { minimumExposureBand: 'high', alertOnCompromiseBelowThreshold: true } });
      }
    } finally {
      await server.close();
    }
  });
});

describe('epss source', () => {
  it('syncs the gzipped EPSS CSV: probability and percentile on the threat, and the minEpss filter', async () => {
    const csv = fs.readFileSync(path.join(import.meta.dirname, '../fixtures/epss/epss_scores-sample.csv'));
    const server = await startFixtureServer({ '/epss_scores-current.csv.gz': { body: gzipSync(csv), type: 'application/gzip' } });
    try {
      const res = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'epss', name: 'EPSS', serverUrl: `${server.url}/epss_scores-current.csv.gz` } });
      expect(res.statusCode, res.body).toBe(200);
      const out = await runner.sync(org, res.json().id);
      expect(out.job.status, String(out.job.error)).toBe('succeeded');
      expect(out.job.stats).toMatchObject({ fetched: 0, scores: 4 });
      const v = await threatByCve('CVE-2021-44228');
      expect(v.threat.epss).toEqual({ probability: expect.closeTo(0.94358, 5), percentile: expect.closeTo(0.99961, 5), modelVersion: 'v2025.03.14', scoreDate: '2026-11-24' });
      const list = await t.app.inject({ method: 'GET', url: '/api/threats?minEpss=0.5', headers: key });
      // Log4Shell (relevant) before Citrix Bleed (from the KEV catalog, nothing run); not the undici CVE (EPSS 0.00043).
      expect(list.json().threats.map((x: { canonicalKey: string }) => x.canonicalKey)).toEqual(['CVE-2021-44228', 'CVE-2023-4966']);
      expect((await threatByCve('CVE-2026-90002')).threat.epss).toBeNull();
      const bad = await t.app.inject({ method: 'GET', url: '/api/threats?minEpss=2', headers: key });
      expect(bad.statusCode).toBe(400);
    } finally {
      await server.close();
    }
  });

  it('an EPSS minimum in the hunt alert settings holds back a band alert of a CVE scored below it', async () => {
    const settings = (body: Record<string, unknown>) => t.app.inject({ method: 'PUT', url: '/api/hunt/alert-creation-settings', headers: key, payload: { minimumExposureBand: 'low', alertOnCompromiseBelowThreshold: true, ...body } });
    const reassess = async (cve: string) => {
      const { threat } = await threatByCve(cve);
      const res = await t.app.inject({ method: 'POST', url: `/api/threats/${threat.id}/reassess`, headers: key });
      expect(res.statusCode, res.body).toBe(200);
      return threatByCve(cve);
    };
    try {
      // undici's CVE (EPSS 0.00043) runs an affected version: in band low, but under the minimum.
      expect((await settings({ minimumEpssProbability: 0.5 })).statusCode).toBe(200);
      const held = await reassess('CVE-2026-90001');
      expect(held.runs[0].exposureState).toBe('vulnerable_software_present');
      expect(held.activeHuntAlert).toBeNull();
      expect(held.activityEvents.filter((e: { kind: string }) => e.kind === 'hunt_alert_qualified')).toEqual([]);
      // Without the minimum the same evidence raises the alert.
      expect((await settings({ minimumEpssProbability: null })).statusCode).toBe(200);
      const raised = await reassess('CVE-2026-90001');
      expect(raised.activeHuntAlert).not.toBeNull();
      expect(raised.activityEvents.filter((e: { kind: string }) => e.kind === 'hunt_alert_qualified')).toHaveLength(1);
    } finally {
      await settings({ minimumExposureBand: 'high' });
    }
  });
});

describe('nvd source', () => {
  it('syncs an NVD CVE API 2.0 page: the CPE configurations decide, as evidence nvd, over the prose of the same CVE', async () => {
    const page = fs.readFileSync(path.join(import.meta.dirname, '../fixtures/nvd/cves-2.0-CVE-2024-6387.json'));
    const server = await startFixtureServer({ '/rest/json/cves/2.0': { body: page } });
    try {
      const res = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'nvd', name: 'NVD', serverUrl: `${server.url}/rest/json/cves/2.0?cveId=CVE-2024-6387` } });
      expect(res.statusCode, res.body).toBe(200);
      const out = await runner.sync(org, res.json().id);
      expect(out.job.status, String(out.job.error)).toBe('succeeded');
      await syncThreatsFromIntel(t.database.db, org, {});
      const v = await threatByCve('CVE-2024-6387');
      // The one range segment the version falls in, its versionEndExcluding as the fix.
      expect(v.matches.map((m: Record<string, unknown>) => [m.assetIdentifier, m.version, m.verdict, m.affectedRange, m.fixedVersion, m.evidence, m.advisoryId])).toEqual([
        ['bastion-1', '9.3p1', 'affected', '>=8.5 <9.8', '9.8', 'nvd', 'CVE-2024-6387'],
        ['bastion-2', '8.9p1', 'affected', '>=8.5 <9.8', '9.8', 'nvd', 'CVE-2024-6387'],
        ['bastion-3', '9.8p1', 'not_affected', '<4.4, >=8.5 <9.8', null, 'nvd', 'CVE-2024-6387'],
      ]);
    } finally {
      await server.close();
    }
  });

  it('reads every page of an answer: startIndex moves by resultsPerPage until totalResults', async () => {
    const doc = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../fixtures/nvd/cves-2.0-CVE-2024-6387.json'), 'utf8'));
    const as = (id: string) => ({ cve: { ...doc.vulnerabilities[0].cve, id } });
    const all = ['CVE-2026-90021', 'CVE-2026-90022', 'CVE-2026-90023', 'CVE-2026-90024', 'CVE-2026-90025'].map(as);
    const server = await startFixtureServer({
      '/rest/json/cves/2.0': (req) => {
        const start = Number(new URL(req.url, 'http://x').searchParams.get('startIndex') ?? 0);
        return { json: { ...doc, resultsPerPage: 2, startIndex: start, totalResults: all.length, vulnerabilities: all.slice(start, start + 2) } };
      },
    });
    const asked = () => server.requests.map((r) => new URL(r.url, 'http://x').search);
    try {
      const res = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'nvd', name: 'NVD paged', serverUrl: `${server.url}/rest/json/cves/2.0?lastModStartDate=2026-11-01T00:00:00.000` } });
      expect(res.statusCode, res.body).toBe(200);
      const out = await runner.sync(org, res.json().id);
      expect(out.job.status, String(out.job.error)).toBe('succeeded');
      expect(asked()).toEqual(['?lastModStartDate=2026-11-01T00:00:00.000', '?lastModStartDate=2026-11-01T00:00:00.000&startIndex=2', '?lastModStartDate=2026-11-01T00:00:00.000&startIndex=4']);
      const items = await t.database.db.selectFrom('intelItems').select('externalId').where('sourceId', '=', res.json().id).orderBy('externalId').execute();
      expect(items.map((i) => i.externalId)).toEqual(['CVE-2026-90021', 'CVE-2026-90022', 'CVE-2026-90023', 'CVE-2026-90024', 'CVE-2026-90025']);
    } finally {
      await server.close();
    }
  });
});
