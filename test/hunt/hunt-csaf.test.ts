import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server.js';
import { syncRunner } from '../support/sync.js';
import { syncThreatsFromIntel } from '../../src/modules/hunt/index.js';

/**
 * Issue 28, CSAF: a provider (provider-metadata.json → a ROLIE feed and a directory with
 * changes.csv) served by a local server from the OASIS examples and the real BSI-2022-0001
 * advisory, synced by the real job handler through the guarded client, then matched against the
 * real SBOM of this project and a CSV inventory: GET /api/threats/{id} `matches`, evidence csaf.
 */
let t: TestContext;
let key: Record<string, string>;
let org: string;
let runner: ReturnType<typeof syncRunner>;
let server: FixtureServer;
let sourceId: string;
const csafDir = path.join(import.meta.dirname, '../fixtures/csaf');
const fixture = (f: string) => fs.readFileSync(path.join(csafDir, f), 'utf8');
const sbom = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../fixtures/hunt/rampart.cdx.json'), 'utf8'));

/** A vendor advisory for undici in CSAF 2.0 form, products identified by purl (the OASIS examples use CPE only). */
function npmAdvisory(revision: string) {
  const v = (name: string, id: string, purl: string, category = 'product_version') => ({ category, name, product: { name: `undici ${name}`, product_id: id, product_identification_helper: { purl } } });
  return {
    document: {
      category: 'csaf_security_advisory', csaf_version: '2.0', lang: 'en', title: 'undici: retained aborted response bodies',
      publisher: { category: 'vendor', name: 'Example npm PSIRT', namespace: 'https://psirt.example.com' },
      tracking: { id: 'EXAMPLE-NPM-2026-001', status: 'final', version: revision, initial_release_date: '2026-11-01T00:00:00Z', current_release_date: `2026-11-0${revision}T00:00:00Z`, revision_history: [{ date: '2026-11-01T00:00:00Z', number: '1', summary: 'Initial' }] },
    },
    product_tree: {
      branches: [{ category: 'vendor', name: 'Node.js', branches: [{ category: 'product_name', name: 'undici', branches: [
        v('vers:npm/>=7.0.0|<7.31.0', 'U-7-AFFECTED', 'pkg:npm/undici', 'product_version_range'),
        v('7.31.0', 'U-7.31.0', 'pkg:npm/undici@7.31.0'),
        v('6.29.1', 'U-6.29.1', 'pkg:npm/undici@6.29.1'),
      ] }] }],
    },
    vulnerabilities: [{
      cve: 'CVE-2026-90101', title: 'Aborted response bodies are retained',
      notes: [{ category: 'description', text: 'undici 7 before 7.31.0 retains aborted response bodies.' }],
      product_status: { known_affected: ['U-7-AFFECTED'], fixed: ['U-7.31.0'], known_not_affected: ['U-6.29.1'] },
      remediations: [{ category: 'vendor_fix', details: 'Upgrade to undici 7.31.0.', product_ids: ['U-7-AFFECTED'] }],
    }],
  };
}

let npmRevision = '1';
beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  key = bearer(t.orgA.apiKey.key);
  org = t.orgA.organization.id;
  runner = syncRunner(t.database.db, { secrets: t.secrets });
  server = await startFixtureServer({
    '/.well-known/csaf/provider-metadata.json': (_req, base) => {
      const pm = JSON.parse(fixture('example-01-provider-metadata.json'));
      pm.canonical_url = `${base}/.well-known/csaf/provider-metadata.json`;
      pm.distributions[0].rolie.feeds[0].url = `${base}/.well-known/csaf/feed-tlp-white.json`;
      pm.distributions.push({ directory_url: `${base}/csaf-dir` });
      return { json: pm };
    },
    '/.well-known/csaf/feed-tlp-white.json': (_req, base) => {
      const feed = JSON.parse(fixture('example-01-feed-tlp-white.json'));
      const entry = feed.feed.entry[0];
      feed.feed.entry = [
        { ...entry, id: 'BSI-2022-0001', updated: '2022-03-17T13:03:42.105Z', link: [{ rel: 'self', href: `${base}/advisories/bsi-2022-0001.json` }], content: { type: 'application/json', src: `${base}/advisories/bsi-2022-0001.json` } },
        { ...entry, id: 'EXAMPLE-NPM-2026-001', updated: `2026-11-0${npmRevision}T00:00:00Z`, link: [{ rel: 'self', href: `${base}/advisories/example-npm-2026-001.json` }], content: { type: 'application/json', src: `${base}/advisories/example-npm-2026-001.json` } },
      ];
      return { json: feed };
    },
    '/csaf-dir/changes.csv': { type: 'text/csv', body: '"2026/not-csaf.json","2026-10-01T00:00:00Z"\n' },
    '/csaf-dir/2026/not-csaf.json': { json: { document: { csaf_version: '1.2', title: 'CVRF' } } },
    '/advisories/bsi-2022-0001.json': { file: path.join(csafDir, 'bsi-2022-0001.json') },
    '/advisories/example-npm-2026-001.json': () => ({ json: npmAdvisory(npmRevision) }),
    '/html': { type: 'text/html', body: '<html>not csaf</html>' },
  });
  const imported = await t.app.inject({ method: 'POST', url: '/api/assets/import', headers: key, payload: { format: 'cyclonedx', content: sbom } });
  expect(imported.statusCode, imported.body).toBe(200);
  const csv = ['identifier,kind,platform,internetFacing,vendor,product,version,criticality', 'conv-1,host,linux,false,CSAF Tools,CVRF-CSAF-Converter,1.0.0-rc1,high', 'conv-2,host,linux,false,CSAF Tools,CVRF-CSAF-Converter,1.0.0-rc2,low', 'conv-3,host,linux,false,CSAF Tools,CVRF-CSAF-Converter,1.0.0-beta,low'].join('\n');
  expect((await t.app.inject({ method: 'POST', url: '/api/assets/import', headers: key, payload: { format: 'csv', content: csv } })).statusCode).toBe(200);
});
afterAll(async () => {
  await server?.close();
  await t?.close();
});

async function threatByCve(cve: string) {
  const row = await t.database.db.selectFrom('huntThreats').select('id').where('organizationId', '=', org).where('canonicalKey', '=', cve).executeTakeFirstOrThrow();
  const res = await t.app.inject({ method: 'GET', url: `/api/threats/${row.id}`, headers: key });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

describe('csaf source', () => {
  it('is created as kind api / apiType csaf; serverUrl is required, intel.manage is needed', async () => {
    const bad = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'csaf', name: 'CSAF' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('Validation failed');
    expect(bad.json().issues.map((i: { path: string }) => i.path)).toEqual(['serverUrl']);
    const reader = await userWithPermissions(t.database.db, org, ['intel.read']);
    const denied = await t.app.inject({ method: 'POST', url: '/sources', headers: bearer(reader.key), payload: { kind: 'api', apiType: 'csaf', name: 'CSAF', serverUrl: `${server.url}/.well-known/csaf/provider-metadata.json` } });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['intel.manage'] });
    const res = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'csaf', name: 'Example PSIRT', serverUrl: `${server.url}/.well-known/csaf/provider-metadata.json` } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ kind: 'api', apiType: 'csaf' });
    sourceId = res.json().id;
    const other = await t.app.inject({ method: 'PUT', url: `/sources/${sourceId}`, headers: bearer(t.orgB.apiKey.key), payload: { name: 'x' } });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual({ error: 'Source not found' });
  });

  it('reads provider-metadata.json → ROLIE feed and changes.csv, stores one item per vulnerability, skips a document that is not CSAF 2.0', async () => {
    const out = await runner.sync(org, sourceId);
    expect(out.thrown).toBeNull();
    expect(out.job.status, String(out.job.error)).toBe('succeeded');
    const items = await t.database.db.selectFrom('intelItems').select(['externalId', 'title', 'vulnerability']).where('sourceId', '=', sourceId).orderBy('externalId').execute();
    expect(items.map((i) => i.externalId)).toEqual(['BSI-2022-0001/CVE-2022-27193', 'EXAMPLE-NPM-2026-001/CVE-2026-90101']);
    expect(items[0]!.title).toBe('CVE-2022-27193 (BSI-2022-0001): CVRF-CSAF-Converter: XML External Entities Vulnerability');
    // The packages with their versions and statuses are in the vulnerability store (migration
    // 0159), keyed by the item's external id; the item's copy names the packages only.
    const stored = await t.database.db.selectFrom('intelVulnerabilities').select(['vulnId', 'affected']).where('sourceId', '=', sourceId).orderBy('vulnId').execute();
    expect(stored.map((s) => s.vulnId)).toEqual(items.map((i) => i.externalId));
    expect(stored[0]!.affected).toEqual([{
      ecosystem: 'generic', name: 'cvrf-csaf-converter', purl: null, cpe: 'cpe:2.3:a:csaf-tools:cvrf-csaf-converter:*:*:*:*:*:*:*:*', ranges: [],
      versions: ['1.0.0-alpha', '1.0.0-dev1', '1.0.0-dev2', '1.0.0-dev3', '1.0.0-rc1'], fixed: ['1.0.0-rc2'], unaffected: [],
    }]);
    expect(stored[1]!.affected).toEqual([{
      ecosystem: 'npm', name: 'undici', purl: 'pkg:npm/undici', ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '7.0.0' }, { fixed: '7.31.0' }] }], versions: [], fixed: ['7.31.0'], unaffected: ['6.29.1'],
    }]);
    expect(items.map((i) => (i.vulnerability as { affected: unknown[] }).affected)).toEqual([
      [{ ecosystem: 'generic', name: 'cvrf-csaf-converter', purl: null }],
      [{ ecosystem: 'npm', name: 'undici', purl: 'pkg:npm/undici' }],
    ]);
    expect(out.state.cursor).toEqual({ since: '2026-11-01T00:00:00.000Z', pending: 0, invalid: [{ url: `${server.url}/csaf-dir/2026/not-csaf.json`, reason: 'its csaf_version is "1.2", not "2.0"' }] });
  });

  it('matches by identity with the document\'s statuses: purl ranges for the SBOM, CPE products for the CSV inventory (evidence csaf)', async () => {
    await syncThreatsFromIntel(t.database.db, org, {});
    const npm = await threatByCve('CVE-2026-90101');
    expect(npm.threat.aliases).toContain('EXAMPLE-NPM-2026-001');
    expect(npm.matches.map((m: Record<string, unknown>) => [m.product, m.version, m.verdict, m.affectedRange, m.fixedVersion, m.evidence, m.advisoryId])).toEqual([
      ['undici', '7.30.2', 'affected', '>=7.0.0 <7.31.0', '7.31.0', 'csaf', 'CVE-2026-90101'],
      ['undici', '6.29.1', 'not_affected', '>=7.0.0 <7.31.0', null, 'csaf', 'CVE-2026-90101'], // known_not_affected
    ]);
    expect(npm.runs[0].relevancyExplanation.join(' ')).not.toContain('undici-types');
    const bsi = await threatByCve('CVE-2022-27193');
    expect(bsi.matches.map((m: Record<string, unknown>) => [m.assetIdentifier, m.version, m.verdict, m.fixedVersion, m.evidence])).toEqual([
      ['conv-1', '1.0.0-rc1', 'affected', '1.0.0-rc2', 'csaf'],
      ['conv-3', '1.0.0-beta', 'unknown', null, 'csaf'], // neither listed as affected nor fixed: the document does not say
      ['conv-2', '1.0.0-rc2', 'not_affected', null, 'csaf'],
    ]);
    expect(bsi.runs[0].relevancyHeadline).toBe('conv-1 runs an affected version');
  });

  it('is incremental: an unchanged provider fetches no advisory; a changed feed entry fetches that advisory only', async () => {
    const before = server.requests.length;
    const again = await runner.sync(org, sourceId);
    expect(again.job.status).toBe('succeeded');
    expect(again.job.stats).toMatchObject({ fetched: 0 });
    expect(server.requests.slice(before).map((r) => r.url)).toEqual(['/.well-known/csaf/provider-metadata.json', '/.well-known/csaf/feed-tlp-white.json', '/csaf-dir/changes.csv']);
    npmRevision = '2';
    const mark = server.requests.length;
    const changed = await runner.sync(org, sourceId);
    expect(changed.job.stats).toMatchObject({ fetched: 1, updated: 1 });
    expect(server.requests.slice(mark).map((r) => r.url)).toContain('/advisories/example-npm-2026-001.json');
    expect(server.requests.slice(mark).map((r) => r.url)).not.toContain('/advisories/bsi-2022-0001.json');
    expect(changed.state.cursor).toMatchObject({ since: '2026-11-02T00:00:00.000Z' });
  });

  it('reads one CSAF document as a source, and says what is wrong with a URL that is not CSAF', async () => {
    const one = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'csaf', name: 'BSI-2022-0001', serverUrl: `${server.url}/advisories/bsi-2022-0001.json` } });
    const out = await runner.sync(org, one.json().id);
    expect(out.job.status, String(out.job.error)).toBe('succeeded');
    expect(out.job.stats).toMatchObject({ fetched: 1 });
    const html = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'csaf', name: 'Not CSAF', serverUrl: `${server.url}/html` } });
    const failed = await runner.sync(org, html.json().id);
    expect(failed.job.status).toBe('failed');
    expect(failed.state.lastError).toBe(`The CSAF source's ${server.url}/html is not valid JSON`);
    const invalid = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'csaf', name: 'CVRF', serverUrl: `${server.url}/csaf-dir/2026/not-csaf.json` } });
    const rejected = await runner.sync(org, invalid.json().id);
    expect(rejected.state.lastError).toBe(`The CSAF document at ${server.url}/csaf-dir/2026/not-csaf.json is not valid CSAF 2.0: its csaf_version is "1.2", not "2.0"`);
  });
});
