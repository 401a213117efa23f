/**
 * Issue 42 item 5: migration 0143 (intel/migrations/0143_renormalize_indicator_values.ts) gives
 * indicator values stored by the former normalisers the one normal form, so a sighting and an
 * indicator written different ways meet again. Rows are written as the old code wrote them
 * (trailing dot, IPv6 uncompressed, defanged, registry root abbreviated), on a database migrated
 * up to the migration before it.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/modules/organizations/organizations.service.js';
import { migrateToLatest } from '../../src/migrations.js';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { createEmptyDatabase } from '../support/db.js';
import { migrateTo, migrationBefore } from '../support/migrate.js';
import { seedIntel } from '../support/intel-data.js';

let h: DatabaseHandle;
beforeAll(async () => {
  h = await createEmptyDatabase();
});
afterAll(() => h.close());

const RUN_KEY = 'HKEY_LOCAL_MACHINE\\software\\microsoft\\windows\\currentversion\\run';

describe('migration 0143: one normal form for stored indicator values', () => {
  it('re-normalises sightings, mentions and checked values, merging what becomes one', async () => {
    await migrateTo(h.db, migrationBefore('0143'));
    const org = (await createOrganization(h.db, { name: 'Old forms', adminEmail: 'old@forms.test' })).organization.id;
    const other = (await createOrganization(h.db, { name: 'Other', adminEmail: 'other@forms.test' })).organization.id;
    const { itemIds } = await seedIntel(h.db, org, { items: 2 });
    const [item, item2] = itemIds as [string, string];

    // Sightings as hunt's former normaliser stored them: lower-cased, nothing more.
    const sightings: Array<[string, string, string]> = [
      ['domain', 'Evil.Example.', 'evil.example.'],
      ['ipv6', '2001:DB8:0:0:0:0:0:1', '2001:db8:0:0:0:0:0:1'],
      ['url', 'hxxp://Evil[.]Example./a', 'hxxp://evil[.]example./a'],
      ['registry-key', 'HKLM\\Software\\Microsoft\\Windows\\CurrentVersion\\Run', 'hklm\\software\\microsoft\\windows\\currentversion\\run'],
      ['ipv4', '198.51.100.9', '198.51.100.9'],
    ];
    for (const [type, value, normalized] of sightings) {
      await sql`INSERT INTO hunt_sightings (id, organization_id, type, value, normalized_value, source, observed_at, created_at)
        VALUES (gen_random_uuid(), ${org}, ${type}, ${value}, ${normalized}, 'edr', now(), now())`.execute(h.db);
    }

    // Mentions: one item names the domain twice, once with its trailing dot kept (the registry's
    // canonical form was what intel stored, the tools' lookups wrote it the other way).
    const mention = async (itemId: string, type: string, value: string, normalized: string, confidence: number) =>
      (
        await sql<{ id: string }>`INSERT INTO intel_indicators (id, organization_id, item_id, type, value, normalized_value, confidence, first_seen, last_seen, ttl_days, intel_title, source_label)
          VALUES (gen_random_uuid(), ${org}, ${itemId}, ${type}, ${value}, ${normalized}, ${confidence}, now(), now(), 30, 't', 's') RETURNING id`.execute(h.db)
      ).rows[0]!.id;
    const dotted = await mention(item, 'domain', 'evil[.]example.', 'evil.example.', 0.9);
    const plain = await mention(item, 'domain', 'evil.example', 'evil.example', 0.6);
    const v6 = await mention(item, 'ipv6', '2001:0db8:0000:0000:0000:0000:0000:0001', '2001:0db8:0000:0000:0000:0000:0000:0001', 0.8);
    const later = await mention(item2, 'domain', 'EVIL.example.', 'evil.example.', 0.5);
    const reg = await mention(item2, 'registry-key', 'HKLM\\Software\\Microsoft\\Windows\\CurrentVersion\\Run', 'HKLM\\software\\microsoft\\windows\\currentversion\\run', 0.7);

    // Checked values: the domain checked under both forms (clean first, found later), checks on each.
    const value = async (orgId: string, normalized: string, status: string, at: string) =>
      (
        await sql<{ id: string }>`INSERT INTO intel_indicator_values (id, organization_id, type, normalized_value, status, last_checked_at)
          VALUES (gen_random_uuid(), ${orgId}, 'domain', ${normalized}, ${status}, ${at}) RETURNING id`.execute(h.db)
      ).rows[0]!.id;
    const oldValue = await value(org, 'evil.example.', 'clean', '2026-11-01T00:00:00Z');
    const newValue = await value(org, 'evil.example', 'found', '2026-11-03T00:00:00Z');
    const otherOrgValue = await value(other, 'evil.example.', 'unknown', '2026-11-02T00:00:00Z');
    const check = async (orgId: string, valueId: string, indicatorId: string | null, outcome: string, at: string) =>
      sql`INSERT INTO intel_indicator_checks (id, organization_id, value_id, indicator_id, outcome, checked_at) VALUES (gen_random_uuid(), ${orgId}, ${valueId}, ${indicatorId}, ${outcome}, ${at})`.execute(h.db);
    await check(org, oldValue, dotted, 'clean', '2026-11-01T00:00:00Z');
    await check(org, newValue, plain, 'found', '2026-11-03T00:00:00Z');
    await check(other, otherOrgValue, null, 'unknown', '2026-11-02T00:00:00Z');

    const { applied } = await migrateToLatest(h.db, h.pool);
    expect(applied[0]).toBe('0143_renormalize_indicator_values');

    const stored = await h.db.selectFrom('huntSightings').select(['type', 'normalizedValue']).orderBy('type').execute();
    expect(stored).toEqual([
      { type: 'domain', normalizedValue: 'evil.example' },
      { type: 'ipv4', normalizedValue: '198.51.100.9' },
      { type: 'ipv6', normalizedValue: '2001:db8::1' },
      { type: 'registry-key', normalizedValue: RUN_KEY },
      { type: 'url', normalizedValue: 'http://evil.example/a' },
    ]);

    // The item's two mentions of the domain became one (the more confident kept); the other item's stays.
    const mentions = await h.db.selectFrom('intelIndicators').select(['id', 'itemId', 'type', 'normalizedValue', 'status']).where('id', 'in', [dotted, plain, v6, later, reg]).orderBy('id').execute();
    expect(mentions.map((m) => [m.id, m.normalizedValue, m.status]).sort()).toEqual(
      [
        [dotted, 'evil.example', 'found'],
        [v6, '2001:db8::1', 'unchecked'],
        [later, 'evil.example', 'found'],
        [reg, RUN_KEY, 'unchecked'],
      ].sort(),
    );

    // One checked value per (organization, type, value): the most recent check's status, every check kept on it.
    const values = await h.db.selectFrom('intelIndicatorValues').select(['id', 'organizationId', 'normalizedValue', 'status']).orderBy('lastCheckedAt').execute();
    expect(values).toEqual([
      { id: otherOrgValue, organizationId: other, normalizedValue: 'evil.example', status: 'unknown' },
      { id: newValue, organizationId: org, normalizedValue: 'evil.example', status: 'found' },
    ]);
    const checks = await h.db.selectFrom('intelIndicatorChecks').select(['valueId', 'indicatorId', 'outcome']).where('organizationId', '=', org).orderBy('checkedAt').execute();
    // The deleted duplicate mention's check stays with the value, its mention gone (history kept, as 0022 does).
    expect(checks).toEqual([
      { valueId: newValue, indicatorId: dotted, outcome: 'clean' },
      { valueId: newValue, indicatorId: null, outcome: 'found' },
    ]);

    // Hunt's join of sightings to intel's indicators on the value meets again.
    const { rows: joined } = await sql<{ type: string }>`
      SELECT DISTINCT s.type FROM hunt_sightings s JOIN intel_indicators i
        ON i.organization_id = s.organization_id AND i.type = s.type AND i.normalized_value = s.normalized_value
      ORDER BY s.type`.execute(h.db);
    expect(joined.map((r) => r.type)).toEqual(['domain', 'ipv6', 'registry-key']);

    // /iocs's search copy follows the rows (intel_indicators' triggers).
    const { rows: search } = await sql<{ searchValue: string }>`SELECT search_value FROM intel_indicator_search WHERE id = ${v6}`.execute(h.db);
    expect(search).toEqual([{ searchValue: '2001:db8::1' }]);
  });
});
