import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startFakeOsv } from '../support/fakes/osv-server.js';
import { syncRunner } from '../support/sync.js';
import { syncThreatsFromIntel } from '../../src/modules/hunt/index.js';
import { serviceEvents } from '../../src/events.js';

/**
 * Issue 47 §17: the evidence for a not-affected version cites the range of its own release line.
 * The user's steps: an OSV source mirroring the GitHub Advisory Database with two real records
 * that list one `affected` entry per branch (ws GHSA-3h5v-q93c-6h6q: four; path-to-regexp
 * GHSA-9wv6-86v2-598j: five, not in version order), services running fixed and later versions of
 * each, a sync; then GET /api/threats/{id}: `matches[].affectedRange` and the relevancy sentence.
 * Before the fix every not-affected version cited the record's first entry (`>=2.1.0 <5.2.4` for ws 8.18.0).
 */
let t: TestContext;
let key: Record<string, string>;
let org: string;
let osv: Awaited<ReturnType<typeof startFakeOsv>>;
const records = (JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../fixtures/osv/github-advisory-database.osv.json'), 'utf8')) as Array<{ id: string }>).filter((r) =>
  ['GHSA-3h5v-q93c-6h6q', 'GHSA-9wv6-86v2-598j'].includes(r.id),
);

const SERVICES: Array<[string, string, string]> = [
  ['chat-ws-5', 'ws', '5.2.4'],
  ['chat-ws-7', 'ws', '7.5.10'],
  ['chat-ws-7-old', 'ws', '7.4.6'],
  ['chat-ws-8', 'ws', '8.18.0'],
  ['legacy-ws-1', 'ws', '1.1.5'],
  ['api-ptr-1', 'path-to-regexp', '1.9.0'],
  ['api-ptr-6', 'path-to-regexp', '6.3.0'],
  ['api-ptr-8', 'path-to-regexp', '8.2.0'],
];

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  key = bearer(t.orgA.apiKey.key);
  org = t.orgA.organization.id;
  expect(records).toHaveLength(2);
  osv = await startFakeOsv(records);
  for (const [identifier, name, version] of SERVICES) {
    const res = await t.app.inject({ method: 'POST', url: '/api/assets', headers: key, payload: { identifier, kind: 'application', software: [{ product: name, version, purl: `pkg:npm/${name}@${version}` }] } });
    expect(res.statusCode, res.body).toBe(200);
  }
  const source = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'osv', name: 'GitHub advisories (npm)', serverUrl: `${osv.url}/npm/all.zip` } });
  expect(source.statusCode, source.body).toBe(200);
  const out = await syncRunner(t.database.db, { secrets: t.secrets }).sync(org, source.json().id);
  expect(out.job.status, String(out.job.error)).toBe('succeeded');
  await syncThreatsFromIntel(t.database.db, org, { events: serviceEvents() });
});
afterAll(async () => {
  await osv?.close();
  await t?.close();
});

async function threat(cve: string) {
  const row = await t.database.db.selectFrom('huntThreats').select('id').where('organizationId', '=', org).where('canonicalKey', '=', cve).executeTakeFirstOrThrow();
  const res = await t.app.inject({ url: `/api/threats/${row.id}`, headers: key });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
const ranges = (v: { matches: Array<Record<string, unknown>> }) => v.matches.map((m) => [m.assetIdentifier, m.version, m.verdict, m.affectedRange, m.fixedVersion]);

describe('a not-affected version cites its own line\'s range', () => {
  it('ws (four entries): each fixed version cites its branch; a version before every branch cites them all', async () => {
    const v = await threat('CVE-2024-37890');
    expect(ranges(v)).toEqual([
      ['chat-ws-7-old', '7.4.6', 'affected', '>=7.0.0 <7.5.10', '7.5.10'],
      ['chat-ws-5', '5.2.4', 'not_affected', '>=2.1.0 <5.2.4', null],
      ['chat-ws-7', '7.5.10', 'not_affected', '>=7.0.0 <7.5.10', null],
      ['chat-ws-8', '8.18.0', 'not_affected', '>=8.0.0 <8.17.1', null],
      ['legacy-ws-1', '1.1.5', 'not_affected', '>=2.1.0 <5.2.4, >=6.0.0 <6.2.3, >=7.0.0 <7.5.10, >=8.0.0 <8.17.1', null],
    ]);
    expect(v.runs[0].relevancyExplanation).toEqual(
      expect.arrayContaining([
        'chat-ws-7 runs ws 7.5.10, outside the affected range >=7.0.0 <7.5.10 (GHSA-3h5v-q93c-6h6q): not affected.',
        'chat-ws-8 runs ws 8.18.0, outside the affected range >=8.0.0 <8.17.1 (GHSA-3h5v-q93c-6h6q): not affected.',
      ]),
    );
  });

  it('path-to-regexp (five entries out of order): 1.9.0, 6.3.0 and the later major 8.2.0 each cite the range nearest below', async () => {
    const v = await threat('CVE-2024-45296');
    expect(ranges(v)).toEqual([
      ['api-ptr-1', '1.9.0', 'not_affected', '>=0.2.0 <1.9.0', null],
      ['api-ptr-6', '6.3.0', 'not_affected', '>=4.0.0 <6.3.0', null],
      ['api-ptr-8', '8.2.0', 'not_affected', '>=7.0.0 <8.0.0', null],
    ]);
  });
});
