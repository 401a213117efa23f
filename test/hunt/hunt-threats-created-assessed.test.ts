import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { LOG4SHELL_ADVISORY, seedAdvisory, seedAdvisorySource, type Advisory } from '../support/hunt-data.js';
import { syncThreatsFromIntel } from '../../src/modules/hunt/index.js';

/**
 * A pass's new threats are created already assessed (createAssessedThreats: one insert with the
 * run's state); a batch that cannot commit goes the two-step way (inserted, then assessed and
 * updated). Both must write the same threats, runs, links and activity but ids: org A takes the
 * first way, org B is forced onto the second by a trigger that refuses an assessed insert.
 */
let t: TestContext;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const at = new Date(Date.now() - 120_000);

const advisories: Advisory[] = [
  LOG4SHELL_ADVISORY,
  { title: 'Acme Widget Server path traversal', text: 'A path traversal in Acme Widget Server before 4.2 lets remote attackers read files. Tracked as CVE-2026-50001 and CVE-2026-50003.', cves: ['CVE-2026-50001', 'CVE-2026-50003'] },
  { title: 'Foo CMS XSS', text: 'Foo CMS 1.x is affected by CVE-2026-50002.', cves: ['CVE-2026-50002'], products: [{ vendor: 'Foo', product: 'Foo CMS', versions: ['1.x'] }] },
].map((a) => ({ ...a, processedAt: at, publishedAt: at }));

async function seed(org: string, apiKey: string, list: Advisory[]) {
  const csv = [
    'identifier,kind,platform,internetFacing,vendor,product,version,criticality',
    'reports-1,host,linux,false,Apache,Log4j,2.14.1,low',
    'widgets-1,host,linux,true,Acme,Acme Widget Server,4.1.0,high',
  ].join('\n');
  if (list === advisories) await t.app.inject({ method: 'POST', url: '/api/assets/import', headers: bearer(apiKey), payload: { format: 'csv', content: csv } });
  const source = await seedAdvisorySource(t.database.db, org);
  for (const a of list) await seedAdvisory(t.database.db, org, source, a);
}

/** How many assessed inserts org B's trigger refused (a sequence: not rolled back with them). */
async function refused(): Promise<number> {
  const { rows } = await sql<{ n: string }>`SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM test_two_step_refused`.execute(t.database.db);
  return Number(rows[0]!.n);
}

/** What an organization's pass wrote, ids replaced (they differ between organizations), in a fixed order. */
async function written(org: string) {
  const db = t.database.db;
  const norm = (rows: unknown[]) => JSON.parse(JSON.stringify(rows).replace(UUID, 'ID'));
  const threats = await sql`
    SELECT canonical_type, canonical_key_type, canonical_key, title, aliases, actor_id, relevancy_score, exposure_score, exposure_state, coverage_state,
           latest_run_id IS NOT NULL AS assessed, assessment_failed_at, latest_alert_id, active_hunt_alert_id, created_at, updated_at
    FROM hunt_threats WHERE organization_id = ${org} ORDER BY canonical_key`.execute(db);
  const runs = await sql`
    SELECT t.canonical_key, r.run_at, r.kind, r.trigger, r.relevancy_score, r.exposure_score, r.relevancy_headline, r.relevancy_explanation, r.exposure_state,
           r.coverage_state, r.has_found_ioc, r.has_blocking_gap, r.exposure_story, r.diff, r.matches, t.latest_run_id = r.id AS latest
    FROM hunt_threat_runs r JOIN hunt_threats t ON t.id = r.threat_id WHERE r.organization_id = ${org} ORDER BY t.canonical_key, r.id`.execute(db);
  const links = await sql`
    SELECT t.canonical_key, i.title, l.linked_at FROM hunt_threat_items l JOIN hunt_threats t ON t.id = l.threat_id JOIN intel_items i ON i.id = l.item_id
    WHERE l.organization_id = ${org} ORDER BY t.canonical_key, i.title`.execute(db);
  const events = await sql`
    SELECT t.canonical_key, e.kind, e.actor_type, e.metadata, e.created_at, e.run_id = t.latest_run_id AS latest_run
    FROM hunt_activity_events e JOIN hunt_threats t ON t.id = e.threat_id WHERE e.organization_id = ${org} ORDER BY t.canonical_key, e.created_at, e.id`.execute(db);
  return { threats: norm(threats.rows), runs: norm(runs.rows), links: norm(links.rows), events: norm(events.rows) };
}

beforeAll(async () => {
  t = await createTestApp();
  await seed(t.orgA.organization.id, t.orgA.apiKey.key, advisories);
  await seed(t.orgB.organization.id, t.orgB.apiKey.key, advisories);
  await sql.raw(`
    CREATE SEQUENCE test_two_step_refused;
    CREATE FUNCTION test_two_step() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM nextval('test_two_step_refused'); RAISE EXCEPTION 'assessed insert refused'; END $$;
    CREATE TRIGGER test_two_step BEFORE INSERT ON hunt_threats FOR EACH ROW
      WHEN (NEW.organization_id = '${t.orgB.organization.id}' AND NEW.latest_run_id IS NOT NULL) EXECUTE FUNCTION test_two_step()`).execute(t.database.db);
});
afterAll(async () => t?.close());

describe('new threats created already assessed', () => {
  it('write what the two-step way writes: threats, runs, links, activity', async () => {
    const now = new Date();
    const a = await syncThreatsFromIntel(t.database.db, t.orgA.organization.id, { now });
    expect(await refused()).toBe(0);
    const b = await syncThreatsFromIntel(t.database.db, t.orgB.organization.id, { now });
    expect(await refused()).toBe(1); // org B's batch went the two-step way
    expect(a.created).toHaveLength(4);
    expect(b.created).toHaveLength(4);
    const [wa, wb] = [await written(t.orgA.organization.id), await written(t.orgB.organization.id)];
    expect(wa.threats.every((x: { assessed: boolean }) => x.assessed)).toBe(true);
    expect(wa.events.map((e: { kind: string }) => e.kind)).toContain('threat_created');
    expect(wa.runs).toHaveLength(4);
    expect(wa).toEqual(wb);
  });

  it('and so does a later page: a new threat beside an existing one linked again', async () => {
    const later = new Date(Date.now() - 60_000);
    const more: Advisory[] = [
      { title: 'Log4j follow-up', text: 'More on CVE-2021-44228 and the new CVE-2026-50004 in Acme Widget Server before 4.2.', cves: ['CVE-2021-44228', 'CVE-2026-50004'], processedAt: later, publishedAt: later },
    ];
    await seed(t.orgA.organization.id, t.orgA.apiKey.key, more);
    await seed(t.orgB.organization.id, t.orgB.apiKey.key, more);
    const now = new Date();
    const a = await syncThreatsFromIntel(t.database.db, t.orgA.organization.id, { now });
    const b = await syncThreatsFromIntel(t.database.db, t.orgB.organization.id, { now });
    expect(await refused()).toBe(2);
    expect(a.created).toHaveLength(1);
    expect(a.updated).toHaveLength(1);
    expect(b).toMatchObject({ created: [expect.any(String)], updated: [expect.any(String)] });
    const [wa, wb] = [await written(t.orgA.organization.id), await written(t.orgB.organization.id)];
    expect(wa.runs).toHaveLength(6);
    expect(wa).toEqual(wb);
  });
});
