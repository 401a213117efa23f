/**
 * intel_indicator_search (migration 0006) is a trigger-maintained copy of intel_indicators'
 * searchable columns; GET /iocs answers from it. Whatever writes indicators, the copy must equal
 * what it is derived from.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { createTestDatabase } from '../../../../test/support/db.js';
import { seedIntel } from '../../../../test/support/intel-data.js';
import { createOrganization } from '../../organizations/organizations.service.js';
import type { DatabaseHandle } from '../../../platform/db/database.js';
import type { RequestContext } from '../../../platform/context.js';
import { IOC_STATUSES, IocListQuery } from './iocs.schemas.js';
import { createIocsService, type IndicatorStats } from './iocs.service.js';

let h: DatabaseHandle;
let orgId: string;
let itemIds: string[];

beforeAll(async () => {
  h = await createTestDatabase();
  orgId = (await createOrganization(h.db, { name: 'Copy Org', adminEmail: 'copy@iocs.test' })).organization.id;
  itemIds = (await seedIntel(h.db, orgId)).itemIds;
});
afterAll(() => h.close());

/** Rows of the copy that differ from what intel_indicators says they should be, both ways. */
async function drift(): Promise<unknown[]> {
  const { rows } = await sql`
    (SELECT id, organization_id, type, status, created_at, lower(normalized_value) AS search_value FROM intel_indicators
     EXCEPT ALL SELECT id, organization_id, type, status, created_at, search_value FROM intel_indicator_search)
    UNION ALL
    (SELECT id, organization_id, type, status, created_at, search_value FROM intel_indicator_search
     EXCEPT ALL SELECT id, organization_id, type, status, created_at, lower(normalized_value) FROM intel_indicators)`.execute(h.db);
  return rows;
}
const copied = async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM intel_indicator_search WHERE organization_id = ${orgId}`.execute(h.db)).rows[0]!.n);

describe('GET /iocs search plans', () => {
  it('give the same page whichever way it is found: walk, bounded walk falling back, GIN, the kept match list', async () => {
    const org = (await createOrganization(h.db, { name: 'Plan Org', adminEmail: 'plan@iocs.test' })).organization.id;
    const items = (await seedIntel(h.db, org)).itemIds;
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    const rows = Array.from({ length: 600 }, (_, n) => {
      // Older rows say "Evil", newer ones are mostly noise: matches bunch at the old end for "evil".
      const nv = n < 150 ? `C2-${n}.Evil-Example.NET` : n % 7 === 0 ? `cdn-${n}.evil-example.net` : `host-${n}.contoso.com`;
      return { id: uuidv7(), organizationId: org, itemId: items[n % items.length]!, type: n % 5 === 0 ? 'url' : 'domain', value: nv, normalizedValue: nv, confidence: 0.5,
        firstSeen: new Date(t0), lastSeen: new Date(t0), ttlDays: 30, intelTitle: 't', sourceLabel: 's', status: IOC_STATUSES[n % 4]!, createdAt: new Date(t0 + (n % 300) * 60_000) };
    });
    await h.db.insertInto('intelIndicators').values(rows).execute();
    const ctx: RequestContext = { actor: { type: 'user', userId: 'u', organizationId: org, apiKeyId: 'k', roleId: 'r', permissions: new Set() }, requestId: 'r' };
    const gin: IndicatorStats = { total: Infinity, byStatus: { found: Infinity, clean: Infinity, unchecked: Infinity, unknown: Infinity } };
    const plans: Record<string, Parameters<typeof createIocsService>[0]> = {
      walk: { db: h.db, stats: async () => ({ total: 700, byStatus: { found: 200, clean: 200, unchecked: 200, unknown: 200 } }) },
      'walk cut short': { db: h.db, stats: async () => ({ total: 1, byStatus: {} }) },
      'GIN, each page': { db: h.db, stats: async () => gin, listMaxMatches: 0 },
      'GIN, the match list kept': { db: h.db, stats: async () => gin },
      'counted from the match list': { db: h.db, stats: async () => gin, estimate: () => 0 },
    };
    const queries = [
      { search: 'evil' }, { search: 'EVIL-example', page: 2, perPage: 20 }, { search: 'evil', status: 'found' }, { search: 'evil', status: 'clean', type: 'url', perPage: 5, page: 3 },
      { search: 'contoso', status: 'unknown', perPage: 200 }, { search: 'c2-1', page: 4, perPage: 10 }, { search: 'nothing-here' }, { search: 'net', page: 99 },
    ];
    const services = Object.fromEntries(Object.entries(plans).map(([name, deps]) => [name, createIocsService(deps)]));
    for (const q of queries) {
      const query = IocListQuery.parse(q);
      // Twice each: computed, then from what the first answer kept.
      const answers = (await Promise.all(Object.values(services).map(async (svc) => [await svc.list(ctx, query), await svc.list(ctx, query)]))).flat();
      const ref = await h.db.selectFrom('intelIndicators').select(['id', 'status']).where('organizationId', '=', org)
        .where(sql<boolean>`normalized_value ILIKE ${`%${q.search}%`}`).$if(!!q.type, (b) => b.where('type', '=', q.type!))
        .orderBy('createdAt', 'desc').orderBy('id', 'desc').execute();
      const matching = ref.filter((r) => !q.status || r.status === q.status);
      const start = (query.page - 1) * query.perPage;
      for (const a of answers) {
        expect(a.rows.map((r) => r.id), JSON.stringify(q)).toEqual(matching.slice(start, start + query.perPage).map((r) => r.id));
        expect(a.total).toBe(matching.length);
        expect(a.statusCounts).toEqual(Object.fromEntries(IOC_STATUSES.map((s) => [s, ref.filter((r) => r.status === s).length])));
        expect(a).toEqual(answers[0]);
      }
    }
  });
});

describe('intel_indicator_search', () => {
  it('follows inserts (batch and upsert), status and value updates, type changes and deletes', async () => {
    expect(await copied()).toBeGreaterThan(0);
    expect(await drift()).toEqual([]);

    const now = new Date();
    const base = { organizationId: orgId, itemId: itemIds[0]!, confidence: 0.5, firstSeen: now, lastSeen: now, ttlDays: 30, intelTitle: 't', sourceLabel: 's', createdAt: now };
    const ids = [uuidv7(), uuidv7()];
    await h.db.insertInto('intelIndicators').values([
      { ...base, id: ids[0]!, type: 'url', value: 'HTTP://Mixed.Example/Path', normalizedValue: 'http://mixed.example/Path' },
      { ...base, id: ids[1]!, type: 'filename', value: 'Dropper.EXE', normalizedValue: 'Dropper.EXE' },
    ]).execute();
    expect(await drift()).toEqual([]);
    // An upsert that only touches non-copied columns, and one that inserts.
    await h.db.insertInto('intelIndicators')
      .values([{ ...base, id: uuidv7(), type: 'url', value: 'x', normalizedValue: 'http://mixed.example/Path' }, { ...base, id: uuidv7(), type: 'domain', value: 'new.example', normalizedValue: 'new.example' }])
      .onConflict((oc) => oc.columns(['itemId', 'type', 'normalizedValue']).doUpdateSet((eb) => ({ value: eb.ref('excluded.value'), lastSeen: eb.ref('excluded.lastSeen') })))
      .execute();
    expect(await drift()).toEqual([]);

    // A new mention of a checked value takes the value's status (migration 0022), in the copy too.
    await h.db.insertInto('intelIndicatorValues').values({ id: uuidv7(), organizationId: orgId, type: 'domain', normalizedValue: 'checked.example', status: 'clean', lastCheckedAt: now }).execute();
    const inherited = uuidv7();
    await h.db.insertInto('intelIndicators').values([{ ...base, id: inherited, type: 'domain', value: 'checked[.]example', normalizedValue: 'checked.example' }, { ...base, id: uuidv7(), type: 'url', value: 'u', normalizedValue: 'http://checked.example/' }]).execute();
    expect(await h.db.selectFrom('intelIndicators').select('status').where('id', '=', inherited).executeTakeFirstOrThrow()).toEqual({ status: 'clean' });
    expect(await drift()).toEqual([]);

    await h.db.updateTable('intelIndicators').set({ status: 'found', lastCheckedAt: now }).where('id', '=', ids[0]!).execute();
    await h.db.updateTable('intelIndicators').set({ normalizedValue: 'Dropper2.EXE' }).where('id', '=', ids[1]!).execute();
    await h.db.updateTable('intelIndicators').set({ type: 'url' }).where('id', '=', ids[1]!).execute(); // another partition
    expect(await drift()).toEqual([]);

    await h.db.deleteFrom('intelIndicators').where('id', '=', ids[0]!).execute();
    expect(await drift()).toEqual([]);
    await h.db.deleteFrom('intelItems').where('id', '=', itemIds[1]!).execute(); // cascades to its indicators
    expect(await drift()).toEqual([]);
    await h.db.deleteFrom('organizations').where('id', '=', orgId).execute(); // cascades to everything
    expect(await drift()).toEqual([]);
    expect(await copied()).toBe(0);
  });
});
