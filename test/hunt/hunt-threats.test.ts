import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';
import { LOG4SHELL_ADVISORY, runPendingHuntJobs, seedAdvisory, seedAdvisorySource } from '../support/hunt-data.js';
import { runHuntIntelPass, syncThreatsFromIntel } from '../../src/modules/hunt/index.js';

const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../fixtures/hunt', name), 'utf8'));
const VIEW_KEYS = ['threat', 'matches', 'runs', 'deliverables', 'intelItems', 'alerts', 'activeHuntAlert', 'latestAlert', 'activityEvents', 'capabilities'];

let t: TestContext;
let key: Record<string, string>;
let org: string;
let reader: TestUser;
let log4shell: string;

beforeAll(async () => {
  t = await createTestApp();
  key = bearer(t.orgA.apiKey.key);
  org = t.orgA.organization.id;
  reader = await userWithPermissions(t.database.db, org, ['hunt.read']);
  const db = t.database.db;
  await t.app.inject({ method: 'POST', url: '/api/assets/import', headers: key, payload: { format: 'cyclonedx', content: fixture('payments-api.cdx.json') } });
  const csv = [
    'identifier,kind,platform,internetFacing,vendor,product,version,criticality',
    'reports-1,host,linux,false,Apache,Log4j,2.17.1,low',
    'legacy-1,host,linux,false,Apache,Log4j,,low',
    'widgets-1,host,linux,true,Acme,Acme Widget Server,4.1.0,high',
    'widgets-2,host,linux,false,Acme,Acme Widget Server,4.3.0,low',
  ].join('\n');
  await t.app.inject({ method: 'POST', url: '/api/assets/import', headers: key, payload: { format: 'csv', content: csv } });
  const source = await seedAdvisorySource(db, org);
  await seedAdvisory(db, org, source, LOG4SHELL_ADVISORY);
  // A product no dictionary knows, named only in the text, with a version range in words.
  await seedAdvisory(db, org, source, { title: 'Acme Widget Server path traversal', text: 'A path traversal in Acme Widget Server before 4.2 lets remote attackers read files. Tracked as CVE-2026-50001.', cves: ['CVE-2026-50001'] });
  await seedAdvisory(db, org, source, { title: 'Foo CMS XSS', text: 'Foo CMS 1.x is affected by CVE-2026-50002.', cves: ['CVE-2026-50002'], products: [{ vendor: 'Foo', product: 'Foo CMS', versions: ['1.x'] }] });
  await syncThreatsFromIntel(db, org, {});
  log4shell = (await db.selectFrom('huntThreats').select('id').where('organizationId', '=', org).where('canonicalKey', '=', 'CVE-2021-44228').executeTakeFirstOrThrow()).id;
});
afterAll(async () => t?.close());

async function view(id: string, headers = key) {
  return t.app.inject({ method: 'GET', url: `/api/threats/${id}`, headers });
}

describe('threats from intel', () => {
  it('creates one threat per CVE with a create/new_threat run, aliases and a threat_created event', async () => {
    const res = await view(log4shell);
    expect(res.statusCode).toBe(200);
    const v = res.json();
    expect(Object.keys(v).sort()).toEqual([...VIEW_KEYS].sort());
    expect(v.threat).toMatchObject({ canonicalType: 'vulnerability', canonicalKeyType: 'cve', canonicalKey: 'CVE-2021-44228', exposureState: 'vulnerable_software_present', status: 'relevant' });
    expect(v.threat.aliases).toContain('Log4Shell');
    expect(v.threat.intelItemIds).toHaveLength(1);
    expect(v.runs).toHaveLength(1);
    expect(v.runs[0]).toMatchObject({ kind: 'create', trigger: 'new_threat', hasFoundIoc: false });
    expect(v.runs[0].diff).toMatchObject({ prevRunId: null, afterExposureState: 'vulnerable_software_present', reasons: ['First assessment.'] });
    expect(v.activityEvents[0]).toMatchObject({ kind: 'threat_created', actorType: 'system', metadata: { canonicalKey: 'CVE-2021-44228' } });
    expect(v.intelItems[0]).toMatchObject({ sourceName: 'Advisories', affectedProducts: [{ name: 'Apache Log4j', versions: ['>=2.0-beta9 <=2.14.1'] }], attackTechniques: [{ id: 'T1190', name: 'Exploit Public-Facing Application' }] });
    expect(v.capabilities).toEqual({ canReadEvidence: true, canReassess: true, canTriage: true });
    expect(v.alerts).toEqual([]);
    expect(v.activeHuntAlert).toBeNull();
  });

  it('scores relevancy with version ranges: inside, outside and unknown version, in plain sentences', async () => {
    const run = (await view(log4shell)).json().runs[0];
    expect(run.relevancyExplanation).toEqual(expect.arrayContaining([
      'payments-api runs log4j-core 2.14.1, inside the affected range >=2.0-beta9 <=2.14.1 of Apache Log4j.',
      'legacy-1 runs Log4j with no known version; it may be affected (affected: >=2.0-beta9 <=2.14.1).',
      'reports-1 runs Log4j 2.17.1, outside the affected range >=2.0-beta9 <=2.14.1 of Apache Log4j: not affected.',
      'CVE-2021-44228 is reported exploited in the wild.',
    ]));
    // inside 60 + exploited 15 + recent 5.
    expect(run.relevancyScore).toBe(80);
    expect(run.exposureStory.assets.map((a: { identifier: string }) => a.identifier).sort()).toEqual(['legacy-1', 'payments-api']);
    expect(run.exposureStory.gaps.map((g: { logSource: string }) => g.logSource).sort()).toEqual(['domain', 'inventory', 'ip']);
    expect(run.hasBlockingGap).toBe(true);
  });

  it('finds a product named only in the advisory text, with its range, and ignores what nobody runs', async () => {
    const list = (await t.app.inject({ method: 'GET', url: '/api/threats?search=CVE-2026', headers: key })).json();
    expect(list.totalCount).toBe(2);
    const acme = list.threats.find((x: { canonicalKey: string }) => x.canonicalKey === 'CVE-2026-50001');
    const acmeRun = (await view(acme.id)).json().runs[0];
    expect(acmeRun.relevancyExplanation[0]).toBe('widgets-1 runs Acme Widget Server 4.1.0, inside the affected range <4.2 of Widget Server (the advisory names it in its text).');
    expect(acmeRun.relevancyExplanation[1]).toMatch(/^widgets-2 runs Acme Widget Server 4.3.0, outside/);
    const foo = list.threats.find((x: { canonicalKey: string }) => x.canonicalKey === 'CVE-2026-50002');
    expect(foo).toMatchObject({ exposureState: 'not_affected', status: 'not_relevant' });
    expect(foo.relevancyScore).toBeLessThan(40);
  });

  it('lists with filters and paging, and validates the query', async () => {
    const byState = (await t.app.inject({ method: 'GET', url: '/api/threats?exposureState=not_affected', headers: key })).json();
    expect(byState.threats.map((x: { canonicalKey: string }) => x.canonicalKey)).toEqual(['CVE-2026-50002']);
    const relevant = (await t.app.inject({ method: 'GET', url: '/api/threats?status=relevant&minRelevancy=50&limit=1', headers: key })).json();
    expect(relevant.totalCount).toBe(2);
    expect(relevant.threats).toHaveLength(1);
    // Most relevant first: the internet-facing, high-criticality widgets-1 outranks payments-api.
    expect(relevant.threats[0].canonicalKey).toBe('CVE-2026-50001');
    const bad = await t.app.inject({ method: 'GET', url: '/api/threats?minRelevancy=101', headers: key });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issues[0].path).toBe('minRelevancy');
    expect((await t.app.inject({ method: 'GET', url: '/api/threats', headers: bearer(t.orgB.apiKey.key) })).json()).toEqual({ threats: [], totalCount: 0 });
  });

  it('is idempotent: a second pass over the same items makes no new threat or run', async () => {
    const r = await syncThreatsFromIntel(t.database.db, org, {});
    expect(r).toEqual({ created: [], updated: [] });
    expect((await view(log4shell)).json().runs).toHaveLength(1);
  });

  it('answers 404 for another organization and for unknown ids, 400 for a bad id, 401 without a key', async () => {
    expect((await view(log4shell, bearer(t.orgB.apiKey.key))).json()).toEqual({ error: 'Threat not found' });
    expect((await view('0190a000-0000-7000-8000-000000000000')).statusCode).toBe(404);
    expect((await view('nope')).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: `/api/threats/${log4shell}` })).statusCode).toBe(401);
  });

  it('gives capabilities from the caller\'s permissions', async () => {
    expect((await view(log4shell, bearer(reader.key))).json().capabilities).toEqual({ canReadEvidence: true, canReassess: false, canTriage: false });
  });
});

describe('reassess', () => {
  it('adds a reassess/manual run whose diff points at the previous run', async () => {
    const before = (await view(log4shell)).json().runs[0];
    const res = await t.app.inject({ method: 'POST', url: `/api/threats/${log4shell}/reassess`, headers: key });
    expect(res.statusCode).toBe(200);
    const v = res.json();
    expect(v.runs[0]).toMatchObject({ kind: 'reassess', trigger: 'manual' });
    expect(v.runs[0].diff).toMatchObject({ prevRunId: before.id, beforeExposureScore: before.exposureScore, reasons: ['No change.'] });
    expect(v.threat.latestRunId).toBe(v.runs[0].id);
    const denied = await t.app.inject({ method: 'POST', url: `/api/threats/${log4shell}/reassess`, headers: bearer(reader.key) });
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['hunt.manage'] });
    expect((await t.app.inject({ method: 'POST', url: `/api/threats/${log4shell}/reassess`, headers: bearer(t.orgB.apiKey.key) })).statusCode).toBe(404);
  });

  it('reassesses after an inventory change through the job enqueued with it', async () => {
    await t.app.inject({ method: 'POST', url: '/api/assets/import', headers: key, payload: { format: 'csv', content: 'identifier,kind,platform,internetFacing,vendor,product,version\nreports-1,host,linux,false,Apache,Log4j,2.14.0\n' } });
    // Without the alerts port here: the hunt alert tests below start from no alert.
    expect(await runPendingHuntJobs(t.database.db, null)).toBe(1);
    const v = (await view(log4shell)).json();
    expect(v.runs[0]).toMatchObject({ kind: 'reassess', trigger: 'inventory_change' });
    expect(v.runs[0].relevancyExplanation).toContain('reports-1 runs Log4j 2.14.0, inside the affected range >=2.0-beta9 <=2.14.1 of Apache Log4j.');
  });
});

describe('dismissal and hunt alerts', () => {
  it('a dismissed threat raises no hunt alert for exposure alone; restored, it does', async () => {
    const acme = (await t.app.inject({ method: 'GET', url: '/api/threats?search=CVE-2026-50001', headers: key })).json().threats[0];
    // vulnerable 50 + internet-facing 15 + high criticality 10 = 75: the default band `high`.
    expect(acme).toMatchObject({ exposureState: 'vulnerable_software_present', exposureScore: 75 });
    await t.app.inject({ method: 'POST', url: `/api/threats/${acme.id}/dismiss`, headers: key, payload: { reason: 'WAF rule in place' } });
    const dismissed = (await t.app.inject({ method: 'POST', url: `/api/threats/${acme.id}/reassess`, headers: key })).json();
    expect(dismissed.alerts).toEqual([]);
    expect(dismissed.activityEvents.filter((e: { runId: string }) => e.runId === dismissed.runs[0].id).map((e: { kind: string }) => e.kind)).toEqual(['threat_assessed']);
    // An action that takes no body accepts `content-type: application/json` with an empty body (as curl -H and many clients send).
    const restore = await t.app.inject({ method: 'POST', url: `/api/threats/${acme.id}/restore`, headers: { ...key, 'content-type': 'application/json' }, payload: '' });
    expect(restore.statusCode, restore.body).toBe(200);
    // Where a body is required, an empty one is still refused.
    const emptyDismiss = await t.app.inject({ method: 'POST', url: `/api/threats/${acme.id}/dismiss`, headers: { ...key, 'content-type': 'application/json' }, payload: '' });
    expect(emptyDismiss.statusCode).toBe(400);
    expect(emptyDismiss.json()).toMatchObject({ error: 'Validation failed', issues: [{ message: 'Body cannot be empty when content-type is application/json', code: 'invalid_json' }] });
    const restored = (await t.app.inject({ method: 'POST', url: `/api/threats/${acme.id}/reassess`, headers: key })).json();
    expect(restored.alerts).toHaveLength(1);
    expect(restored.activeHuntAlert).toMatchObject({ huntQualifiedBy: 'exposure_band', severity: 'high' });
    expect(restored.activityEvents.map((e: { kind: string }) => e.kind)).toContain('hunt_alert_created');
    // The threat's alerts only for callers who may read alerts (issue 25 item 6): hunt.read alone sees none.
    const huntOnly = (await view(acme.id, bearer(reader.key))).json();
    expect(huntOnly).toMatchObject({ alerts: [], activeHuntAlert: null, latestAlert: null, threat: { id: acme.id } });
  });
});

describe('the scheduler pass', () => {
  it('reads only items whose processing settled, then links later items to the existing threat', async () => {
    const db = t.database.db;
    const source = await seedAdvisorySource(db, org);
    const fresh = await seedAdvisory(db, org, source, { title: 'Acme Widget Server follow-up', text: 'More on CVE-2026-50001.', cves: ['CVE-2026-50001'] });
    await syncThreatsFromIntel(db, org, { settledBefore: new Date(Date.now() - 60_000) });
    const acme = await db.selectFrom('huntThreats').select('id').where('organizationId', '=', org).where('canonicalKey', '=', 'CVE-2026-50001').executeTakeFirstOrThrow();
    const linked = async () => (await db.selectFrom('huntThreatItems').select('itemId').where('threatId', '=', acme.id).execute()).map((l) => l.itemId);
    expect(await linked()).not.toContain(fresh.itemId);
    await syncThreatsFromIntel(db, org, {});
    expect(await linked()).toContain(fresh.itemId);
    const v = (await view(acme.id)).json();
    expect(v.runs[0]).toMatchObject({ kind: 'reassess', trigger: 'new_intel' });
    expect(v.activityEvents.map((e: { kind: string }) => e.kind)).toContain('intel_linked');
  });

  it('follows a running sync: waits for a writer still open, then reads what settled without a minute\'s delay', async () => {
    const db = t.database.db;
    const source = await seedAdvisorySource(db, org);
    // A sync chunk still being written: its transaction began, and stamped its item, before a
    // later chunk committed (two chunks are written at once).
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let stamped!: () => void;
    const begun = new Promise<void>((r) => (stamped = r));
    const writer = db.transaction().execute(async (tx) => {
      await seedAdvisory(tx, org, source, { title: 'Early chunk', text: 'Tracked as CVE-2026-50011.', cves: ['CVE-2026-50011'], attack: false });
      stamped();
      await held;
    });
    await begun;
    await new Promise((r) => setTimeout(r, 1_200));
    await seedAdvisory(db, org, source, { title: 'Later chunk', text: 'Tracked as CVE-2026-50012.', cves: ['CVE-2026-50012'], attack: false });
    const keys = async () => (await db.selectFrom('huntThreats').select('canonicalKey').where('organizationId', '=', org).where('canonicalKey', 'in', ['CVE-2026-50011', 'CVE-2026-50012']).orderBy('canonicalKey').execute()).map((r) => r.canonicalKey);
    // Read now, the later item would move the watermark past the early one, which commits after.
    await runHuntIntelPass(db);
    expect(await keys()).toEqual([]);
    release();
    await writer;
    await new Promise((r) => setTimeout(r, 1_100)); // the clock tolerance between workers
    await runHuntIntelPass(db);
    expect(await keys()).toEqual(['CVE-2026-50011', 'CVE-2026-50012']);
  });

  it('a first assessment that fails leaves its threats marked, and the next pass assesses them', async () => {
    const db = t.database.db;
    const source = await seedAdvisorySource(db, org);
    // A real failure in PostgreSQL: writing this threat's run raises, until the trigger is dropped.
    await sql`CREATE FUNCTION test_fail_run() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF EXISTS (SELECT 1 FROM hunt_threats WHERE id = NEW.threat_id AND canonical_key = 'CVE-2026-50021') THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$`.execute(db);
    await sql`CREATE TRIGGER test_fail_run BEFORE INSERT ON hunt_threat_runs FOR EACH ROW EXECUTE FUNCTION test_fail_run()`.execute(db);
    try {
      await seedAdvisory(db, org, source, { title: 'Failing assessment', text: 'Tracked as CVE-2026-50021.', cves: ['CVE-2026-50021'], attack: false });
      await new Promise((r) => setTimeout(r, 1_100)); // settled (the clock tolerance between workers)
      await expect(runHuntIntelPass(db)).rejects.toThrow('injected failure');
      const threat = await db.selectFrom('huntThreats').select('id').where('organizationId', '=', org).where('canonicalKey', '=', 'CVE-2026-50021').executeTakeFirstOrThrow();
      const failed = (await view(threat.id)).json();
      expect(failed.runs).toEqual([]);
      expect(failed.threat.assessmentFailedAt).toEqual(expect.any(String));
      // Still failing: marked again, and the pass still throws for the scheduler's log.
      await expect(runHuntIntelPass(db)).rejects.toThrow('injected failure');
      await sql`DROP TRIGGER test_fail_run ON hunt_threat_runs`.execute(db);
      await runHuntIntelPass(db);
      const assessed = (await view(threat.id)).json();
      expect(assessed.runs.map((r: { kind: string; trigger: string }) => `${r.kind}/${r.trigger}`)).toEqual(['create/new_threat']);
      expect(assessed.threat.assessmentFailedAt).toBeNull();
    } finally {
      await sql`DROP TRIGGER IF EXISTS test_fail_run ON hunt_threat_runs`.execute(db);
      await sql`DROP FUNCTION IF EXISTS test_fail_run()`.execute(db);
    }
  });

  it('runs for every organization with settled items past its watermark', async () => {
    const db = t.database.db;
    const orgB = t.orgB.organization.id;
    const source = await seedAdvisorySource(db, orgB);
    await seedAdvisory(db, orgB, source, { title: 'Org B advisory CVE-2026-50009', text: 'Nothing Org B runs.', cves: ['CVE-2026-50009'], processedAt: new Date(Date.now() - 120_000) });
    await runHuntIntelPass(db);
    const list = (await t.app.inject({ method: 'GET', url: '/api/threats', headers: bearer(t.orgB.apiKey.key) })).json();
    expect(list.threats.map((x: { canonicalKey: string }) => x.canonicalKey)).toEqual(['CVE-2026-50009']);
  });
});
