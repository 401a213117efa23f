/**
 * GET /iocs keeps what it computed for a (organization, filters) key — statusCounts,
 * availableTypes, a narrow search's sorted matches — and serves it again only while the
 * organization's indicator generation (migration 0130, bumped when a transaction that wrote the
 * search copy commits) is unchanged. These tests ask a question, change the indicators by every
 * kind of write (as the pipeline, a check through the API, a cascade, a transaction still open
 * or rolled back), and ask again: the answer must always be what the data says at that moment.
 * The writes go straight to PostgreSQL, not through the service, so nothing but the generation
 * can tell the cache that something changed.
 */
import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IOC_STATUSES } from '../../src/modules/intel/iocs/iocs.schemas.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { seedIntel } from '../support/intel-data.js';

let t: TestContext;
let admin: Record<string, string>;
let orgId: string;
let itemIds: string[];

type IocList = { rows: Array<{ id: string; normalizedValue: string; status: string }>; total: number; hasNext: boolean; statusCounts: Record<string, number>; availableTypes: string[] };
const list = async (query: string, headers = admin): Promise<IocList> => {
  const res = await t.app.inject({ url: `/iocs?${query}`, headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

/** What the answer must be, straight from intel_indicators (no copy, no cache). */
async function expected(search: string | null, q: { status?: string; type?: string; page?: number; perPage?: number } = {}) {
  const all = await t.database.db.selectFrom('intelIndicators').select(['id', 'status', 'type']).where('organizationId', '=', orgId)
    .$if(search !== null, (b) => b.where(sql<boolean>`normalized_value ILIKE ${`%${search}%`}`)).$if(!!q.type, (b) => b.where('type', '=', q.type!))
    .orderBy('createdAt', 'desc').orderBy('id', 'desc').execute();
  const matching = all.filter((r) => !q.status || r.status === q.status);
  const perPage = q.perPage ?? 50;
  const start = ((q.page ?? 1) - 1) * perPage;
  const types = await t.database.db.selectFrom('intelIndicators').select('type').distinct().where('organizationId', '=', orgId).orderBy('type').execute();
  return {
    ids: matching.slice(start, start + perPage).map((r) => r.id),
    total: matching.length,
    statusCounts: Object.fromEntries(IOC_STATUSES.map((s) => [s, all.filter((r) => r.status === s).length])),
    availableTypes: types.map((r) => r.type),
  };
}

async function expectCurrent(search: string | null, q: { status?: string; type?: string; page?: number; perPage?: number } = {}) {
  const params = new URLSearchParams();
  if (search !== null) params.set('search', search);
  for (const [k, v] of Object.entries(q)) params.set(k, String(v));
  const body = await list(params.toString());
  const want = await expected(search, q);
  expect({ ids: body.rows.map((r) => r.id), total: body.total, statusCounts: body.statusCounts, availableTypes: body.availableTypes }, params.toString()).toEqual(want);
  return body;
}

const now = () => new Date();
const indicator = (type: string, value: string, extra: Record<string, unknown> = {}) => ({
  id: uuidv7(), organizationId: orgId, itemId: itemIds[0]!, type, value, normalizedValue: value, confidence: 0.5,
  firstSeen: now(), lastSeen: now(), ttlDays: 30, intelTitle: 'Cache test', sourceLabel: 'Seeded source', createdAt: now(), ...extra,
});
const generation = async () =>
  (await sql<{ g: string | null }>`SELECT generation::text AS g FROM intel_indicator_generations WHERE organization_id = ${orgId}`.execute(t.database.db)).rows[0]?.g ?? null;

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
  orgId = t.orgA.organization.id;
  itemIds = (await seedIntel(t.database.db, orgId, { items: 6 })).itemIds;
  // A narrow search ("cache-") with enough matches for several pages, in two types.
  const rows = Array.from({ length: 45 }, (_, n) => indicator(n % 3 === 0 ? 'url' : 'domain', n % 3 === 0 ? `http://cache-${n}.example/x` : `cache-${n}.example`, { createdAt: new Date(Date.UTC(2026, 10, 1, 0, n)), itemId: itemIds[n % itemIds.length]! }));
  await t.database.db.insertInto('intelIndicators').values(rows).execute();
});
afterAll(() => t?.close());

describe('GET /iocs counts after writes', () => {
  it('a new indicator written by another path shows in the next answer: counts, pages and types', async () => {
    const before = await expectCurrent('cache-', { perPage: 10, page: 2 });
    await expectCurrent('cache-', { perPage: 10, page: 2 }); // the same question again: from the cache
    await expectCurrent(null);
    // Written as the pipeline writes, straight into intel_indicators (no service, no hook).
    await t.database.db.insertInto('intelIndicators').values([indicator('domain', 'cache-new.example'), indicator('md5', 'cacecacecacecacecacecacecacecace')]).execute();
    const after = await expectCurrent('cache-', { perPage: 10, page: 2 });
    expect(after.total).toBe(before.total + 1);
    expect(after.statusCounts.unchecked).toBe(before.statusCounts.unchecked! + 1);
    const plain = await expectCurrent(null);
    expect(plain.availableTypes).toContain('md5');
    // The newest match now leads page 1 of the narrow search's kept list.
    expect((await expectCurrent('cache-', { perPage: 10 })).rows[0]!.normalizedValue).toBe('cache-new.example');
  });

  it('a check through the API moves the value between statuses in the next answer, for every status filter and page', async () => {
    const target = (await expectCurrent('cache-1', { perPage: 200 })).rows.find((r) => r.normalizedValue === 'cache-10.example')!;
    for (const status of IOC_STATUSES) await expectCurrent('cache-', { status, perPage: 5 });
    const before = await expectCurrent('cache-');
    const res = await t.app.inject({ method: 'POST', url: `/iocs/${target.id}/checks`, headers: admin, payload: { outcome: 'found' } });
    expect(res.statusCode, res.body).toBe(200);
    const after = await expectCurrent('cache-');
    expect(after.statusCounts.found).toBe(before.statusCounts.found! + 1);
    expect(after.statusCounts.unchecked).toBe(before.statusCounts.unchecked! - 1);
    const found = await expectCurrent('cache-', { status: 'found', perPage: 5 });
    expect(found.rows.map((r) => r.id)).toContain(target.id);
    for (const status of IOC_STATUSES) for (const page of [1, 2, 3]) await expectCurrent('cache-', { status, perPage: 5, page });
  });

  it('a deleted item takes its indicators out of the next answer (cascade)', async () => {
    const before = await expectCurrent('cache-', { type: 'domain' });
    await t.database.db.deleteFrom('intelItems').where('id', '=', itemIds[1]!).execute();
    const after = await expectCurrent('cache-', { type: 'domain' });
    expect(after.total).toBeLessThan(before.total);
    await expectCurrent('cache-', { type: 'url', perPage: 3, page: 2 });
  });

  it('a write is seen when its transaction commits, never before, and a rolled-back one never', async () => {
    const before = await expectCurrent('cache-');
    const g0 = await generation();
    await t.database.db.transaction().execute(async (tx) => {
      await tx.insertInto('intelIndicators').values(indicator('domain', 'cache-pending-1.example')).execute();
      await tx.insertInto('intelIndicators').values(indicator('domain', 'cache-pending-2.example')).execute();
      // Not committed: the answer (and the generation) is still the committed state.
      expect((await list('search=cache-')).total).toBe(before.total);
      expect(await generation()).toBe(g0);
    });
    // One transaction, two write statements: one bump at commit, and no mark left behind.
    expect(BigInt((await generation())!)).toBe(BigInt(g0 ?? 0) + 1n);
    expect((await sql<{ n: number }>`SELECT count(*)::int AS n FROM intel_indicator_generation_marks`.execute(t.database.db)).rows[0]!.n).toBe(0);
    expect((await expectCurrent('cache-')).total).toBe(before.total + 2);

    await t.database.db.transaction().execute(async (tx) => {
      await tx.insertInto('intelIndicators').values(indicator('domain', 'cache-rolled-back.example')).execute();
      throw new Error('roll back');
    }).catch(() => {});
    expect((await expectCurrent('cache-')).total).toBe(before.total + 2);
  });

  it('an upsert that changes no counted column leaves the generation alone', async () => {
    const g0 = await generation();
    await t.database.db.insertInto('intelIndicators').values(indicator('domain', 'cache-new.example'))
      .onConflict((oc) => oc.columns(['itemId', 'type', 'normalizedValue']).doUpdateSet((eb) => ({ lastSeen: eb.ref('excluded.lastSeen') }))).execute();
    expect(await generation()).toBe(g0);
    await expectCurrent('cache-');
  });

  it("another organization's same question is its own: none of organization A's counts", async () => {
    await expectCurrent('cache-');
    const other = await list('search=cache-', bearer(t.orgB.apiKey.key));
    expect(other).toMatchObject({ total: 0, rows: [], statusCounts: { found: 0, clean: 0, unchecked: 0, unknown: 0 }, availableTypes: [] });
  });

  it('TRUNCATE of the indicators empties every organization\'s answer, also one never written before', async () => {
    await expectCurrent('cache-');
    const b = bearer(t.orgB.apiKey.key);
    const orgBId = t.orgB.organization.id;
    // Organization B's rows written with the triggers off (as the bench's bulk load does): no generation.
    const items = (await seedIntel(t.database.db, orgBId, { items: 1 })).itemIds;
    const row = { ...indicator('domain', 'cache-b.example'), organizationId: orgBId, itemId: items[0]! };
    await t.database.db.connection().execute(async (c) => {
      await sql`SET session_replication_role = replica`.execute(c);
      await c.insertInto('intelIndicators').values(row).execute();
      await sql`INSERT INTO intel_indicator_search (id, organization_id, type, status, created_at, search_value)
        SELECT id, organization_id, type, status, created_at, lower(normalized_value) FROM intel_indicators WHERE id = ${row.id}`.execute(c);
      await sql`SET session_replication_role = origin`.execute(c);
    });
    await sql`DELETE FROM intel_indicator_generations WHERE organization_id = ${orgBId}`.execute(t.database.db);
    expect((await sql<{ n: number }>`SELECT count(*)::int AS n FROM intel_indicator_generations WHERE organization_id = ${orgBId}`.execute(t.database.db)).rows[0]!.n).toBe(0);
    expect((await list('search=cache-b', b)).total).toBe(1);
    await sql`TRUNCATE intel_indicators CASCADE`.execute(t.database.db);
    expect((await list('search=cache-b', b)).total).toBe(0);
    expect((await list('search=cache-')).total).toBe(0);
  });

  it("deleting the organization removes its generation", async () => {
    await t.database.db.insertInto('intelIndicators').values(indicator('domain', 'cache-last.example')).execute();
    expect(await generation()).not.toBeNull();
    await t.database.db.deleteFrom('organizations').where('id', '=', orgId).execute();
    expect(await generation()).toBeNull();
  });
});
