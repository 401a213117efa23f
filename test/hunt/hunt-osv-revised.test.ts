import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startFakeOsv, githubAdvisoryRecords, LOG4J_ASSET } from '../support/fakes/osv-server.js';
import { syncRunner } from '../support/sync.js';
import { syncThreatsFromIntel } from '../../src/modules/hunt/index.js';
import { serviceEvents } from '../../src/events.js';

/**
 * Issue 47 §25: a revised advisory is reassessed. The user's steps: an OSV source (a mirror of
 * the GitHub Advisory Database) with the real Log4Shell record GHSA-jfh8-c2jp-5v3q, an
 * application running log4j-core 2.15.0 (the record's first fixed version: not affected). The
 * record is revised as it really was for CVE-2021-45046's incomplete fix (`fixed` 2.15.0 →
 * 2.16.0, `modified` moves): the next sync stores it and the hunt's intel pass reassesses the
 * threat on its own — the new range, affected, a higher score — with no manual reassess.
 */
let t: TestContext;
let key: Record<string, string>;
let org: string;
const records = githubAdvisoryRecords();
const log4shell = records.find((r) => r.id === 'GHSA-jfh8-c2jp-5v3q')!;
/** The same record as revised: the 2.13 branch fixed in 2.16.0, `modified` later. */
const revised = {
  ...log4shell,
  modified: '2023-11-01T00:00:00Z',
  affected: log4shell.affected.map((a: Record<string, any>) => ({
    ...a,
    ranges: a.ranges.map((r: Record<string, any>) => ({ ...r, events: r.events.map((e: Record<string, string>) => (e.fixed === '2.15.0' ? { fixed: '2.16.0' } : e)) })),
  })),
};
let osv: Awaited<ReturnType<typeof startFakeOsv>>;
let runner: ReturnType<typeof syncRunner>;
let sourceId: string;

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  key = bearer(t.orgA.apiKey.key);
  org = t.orgA.organization.id;
  runner = syncRunner(t.database.db, { secrets: t.secrets });
  osv = await startFakeOsv([log4shell]);
  const asset = await t.app.inject({ method: 'POST', url: '/api/assets', headers: key, payload: LOG4J_ASSET });
  expect(asset.statusCode, asset.body).toBe(200);
  const res = await t.app.inject({ method: 'POST', url: '/sources', headers: key, payload: { kind: 'api', apiType: 'osv', name: 'GitHub advisories', serverUrl: `${osv.url}/Maven/all.zip` } });
  expect(res.statusCode, res.body).toBe(200);
  sourceId = res.json().id;
});
afterAll(async () => {
  await osv?.close();
  await t?.close();
});

async function threat() {
  const row = await t.database.db.selectFrom('huntThreats').select('id').where('organizationId', '=', org).where('canonicalKey', '=', 'CVE-2021-44228').executeTakeFirstOrThrow();
  const res = await t.app.inject({ url: `/api/threats/${row.id}`, headers: key });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
const verdicts = (v: { matches: Array<Record<string, unknown>> }) => v.matches.map((m) => [m.version, m.verdict, m.affectedRange, m.fixedVersion]);

describe('a revised OSV record reassesses its threat', () => {
  it('first sync: 2.15.0 is the fixed version of the 2.13 branch, not affected', async () => {
    const first = await runner.sync(org, sourceId);
    expect(first.job.status, String(first.job.error)).toBe('succeeded');
    expect(first.job.stats, JSON.stringify(first.job.stats)).toMatchObject({ created: 1 });
    await syncThreatsFromIntel(t.database.db, org, { events: serviceEvents() });
    const v = await threat();
    expect(verdicts(v)).toEqual([['2.15.0', 'not_affected', '>=2.13.0 <2.15.0', null]]);
    expect(v.threat.exposureState).toBe('not_affected');
    expect(v.runs).toHaveLength(1);
  });

  it('an unchanged export reassesses nothing', async () => {
    expect((await runner.sync(org, sourceId)).state.lastStatus).toBe('not_modified');
    await syncThreatsFromIntel(t.database.db, org, { events: serviceEvents() });
    expect((await threat()).runs).toHaveLength(1);
  });

  it('the record revised (fixed 2.16.0, modified moved): the next sync and the hunt intel pass reassess it, affected, with the new range', async () => {
    osv.setRecords([revised]);
    const out = await runner.sync(org, sourceId);
    expect(out.job.status).toBe('succeeded');
    expect(out.job.stats).toMatchObject({ updated: 1 });
    await syncThreatsFromIntel(t.database.db, org, { events: serviceEvents() });
    const v = await threat();
    expect(v.runs).toHaveLength(2);
    expect(v.runs[0]).toMatchObject({ kind: 'reassess', trigger: 'new_intel' });
    expect(verdicts(v)).toEqual([['2.15.0', 'affected', '>=2.13.0 <2.16.0', '2.16.0']]);
    expect(v.threat).toMatchObject({ exposureState: 'vulnerable_software_present', status: 'relevant' });
    expect(v.threat.exposureScore).toBeGreaterThan(0);
    const revisedEntry = v.activityEvents.find((e: { kind: string }) => e.kind === 'intel_revised');
    expect(revisedEntry).toMatchObject({ actorType: 'system' });
    // The pass again (the watermark is inclusive: the revised item is read again): no further run.
    await syncThreatsFromIntel(t.database.db, org, { events: serviceEvents() });
    expect((await threat()).runs).toHaveLength(2);
  });
});
