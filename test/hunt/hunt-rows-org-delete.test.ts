import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase } from '../support/db.js';
import { seedAdvisory, seedAdvisorySource } from '../support/hunt-data.js';
import { syncThreatsFromIntel } from '../../src/modules/hunt/index.js';
import { createOrganization } from '../../src/modules/organizations/organizations.service.js';

/**
 * Migration 0160 took the organization's foreign key off hunt_threat_items, hunt_threat_runs and
 * hunt_activity_events (a referential check per row of the intel pass): deleting an organization
 * still removes them, through its threats' keys. The other organization's rows stay.
 */
describe('an organization deleted after its intel pass', () => {
  let h: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    h = await createTestDatabase();
  });
  afterAll(async () => {
    await h.close();
  });

  const counts = async (organizationId: string) => {
    const { rows } = await sql<{ links: number; runs: number; events: number; threats: number }>`
      SELECT (SELECT count(*)::int FROM hunt_threat_items WHERE organization_id = ${organizationId}) AS links,
             (SELECT count(*)::int FROM hunt_threat_runs WHERE organization_id = ${organizationId}) AS runs,
             (SELECT count(*)::int FROM hunt_activity_events WHERE organization_id = ${organizationId}) AS events,
             (SELECT count(*)::int FROM hunt_threats WHERE organization_id = ${organizationId}) AS threats`.execute(h.db);
    return rows[0]!;
  };

  it('takes its threats, links, runs and activity with it', async () => {
    const orgs = [];
    for (const name of ['Gone Org', 'Kept Org']) {
      const org = (await createOrganization(h.db, { name, adminEmail: `${name.replace(' ', '').toLowerCase()}@hunt.test` })).organization.id;
      const source = await seedAdvisorySource(h.db, org);
      await seedAdvisory(h.db, org, source, { title: 'Acme Widget flaw', text: 'CVE-2026-10001 in Acme Widget before 4.2.', cves: ['CVE-2026-10001'] });
      await seedAdvisory(h.db, org, source, { title: 'Other flaw', text: 'CVE-2026-10002 in Other Thing.', cves: ['CVE-2026-10002'] });
      await syncThreatsFromIntel(h.db, org, {});
      orgs.push(org);
    }
    const [gone, kept] = orgs as [string, string];
    const before = await counts(gone);
    expect(before).toMatchObject({ threats: 2, links: 2, runs: 2 });
    expect(before.events).toBeGreaterThanOrEqual(4); // threat_created and threat_assessed per threat
    await sql`DELETE FROM organizations WHERE id = ${gone}`.execute(h.db);
    expect(await counts(gone)).toEqual({ links: 0, runs: 0, events: 0, threats: 0 });
    expect(await counts(kept)).toEqual(before); // seeded alike
  });
});
