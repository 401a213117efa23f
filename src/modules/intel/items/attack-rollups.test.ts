/**
 * Migration 0115's rollups (intel_attack_daily, intel_attack_sightings) are kept by triggers on
 * intel_items; the coverage report reads them instead of the items. Whatever writes items
 * (multi-row inserts, upserts, reclassification, retraction, duplicate links, published dates
 * moved, deletions of one item or a whole source), the rollups must equal what they are derived
 * from, and the report read from them must equal the one computed from the items.
 * Property-style: random writes from a seeded generator, checked after every step.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { createTestDatabase } from '../../../../test/support/db.js';
import { createOrganization } from '../../organizations/organizations.service.js';
import type { Database, DatabaseHandle } from '../../../platform/db/database.js';
import { attackPressureFromRollups, attackPressureScan, type TechniquePressure } from './attack-pressure.repo.js';

let h: DatabaseHandle;
beforeAll(async () => {
  h = await createTestDatabase();
});
afterAll(() => h.close());

/** mulberry32: a small seeded generator, so a failure replays. */
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TECHNIQUES = ['T1059', 'T1059.001', 'T1059.003', 'T1566', 'T1566.001', 'T1190', 'T1486', 'T1027', 't1105', 'T1078.004', 'not-a-technique'];
// Enough names that a deletion takes the last sighting of many keys at once.
const ACTORS = ['APT28', 'apt28', 'Lazarus Group', 'FIN7', ' Sandworm ', ...Array.from({ length: 25 }, (_, i) => `Actor ${i}`)];
const MALWARE = ['Emotet', 'QakBot', 'emotet', 'Cobalt Strike', ...Array.from({ length: 15 }, (_, i) => `Family ${i}`)];
const NOW = Date.UTC(2026, 10, 25, 15, 30);
const DAY = 86_400_000;

function generator(seed: number) {
  const r = rng(seed);
  const pick = <T,>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const some = <T,>(xs: readonly T[], max: number) => Array.from({ length: Math.floor(r() * (max + 1)) }, () => pick(xs));
  return {
    r,
    pick,
    classification: () => ({
      attack: some(TECHNIQUES, 3).map((t) => (t.includes('.') && r() < 0.5 ? { technique: '', subTechnique: t } : { technique: t, subTechnique: '' })),
      actor: some(ACTORS, 2).map((name) => ({ name, confidence: 0.7 })),
      malware: some(MALWARE, 2).map((name) => ({ name, confidence: 0.7 })),
    }),
    // Spread over 12 days around "now", hours apart; sometimes no publication date (created_at counts).
    publishedAt: () => (r() < 0.15 ? null : new Date(NOW - Math.floor(r() * 12 * 24) * 3_600_000 + Math.floor(r() * 3) * 1000)),
    status: () => (r() < 0.1 ? 'retracted' : pick(['active', 'processed', 'corrected'])),
  };
}

async function newSource(db: Database, organizationId: string): Promise<string> {
  return (await sql<{ id: string }>`
    INSERT INTO intel_sources (id, organization_id, name, display_name, kind, feed_url, schedule_cron, max_entries, created_at, updated_at)
    VALUES (${uuidv7()}, ${organizationId}, ${'s-' + uuidv7()}, 'Property feed', 'rss', 'https://prop.example/feed', '0 * * * *', 100, now(), now()) RETURNING id`.execute(db)).rows[0]!.id;
}

async function insertItems(db: Database, g: ReturnType<typeof generator>, organizationId: string, sourceId: string, n: number): Promise<string[]> {
  const rows = Array.from({ length: n }, () => ({ id: uuidv7(), published_at: g.publishedAt(), status: g.status(), classification: g.classification(), created_at: new Date(NOW - Math.floor(g.r() * 5) * DAY) }));
  await sql`
    INSERT INTO intel_items (id, organization_id, source_id, external_id, title, language, content_text, content_hash, status, classification, published_at, created_at, updated_at)
    SELECT r.id, ${organizationId}, ${sourceId}, r.id::text, 'Item', 'en', '', md5(r.id::text), r.status, r.classification, r.published_at, r.created_at, now()
    FROM json_to_recordset(${JSON.stringify(rows)}::json) AS r(id uuid, status text, classification jsonb, published_at timestamptz, created_at timestamptz)`.execute(db);
  return rows.map((r) => r.id);
}

/** Rollup rows that differ from a recomputation from intel_items, both ways (empty when exact). */
async function drift(db: Database): Promise<unknown[]> {
  const qualifying = sql`duplicate_of IS NULL AND status <> 'retracted' AND attack_parents <> '{}'`;
  const daily = await sql`
    WITH truth AS (
      SELECT organization_id, (seen_at AT TIME ZONE 'UTC')::date AS day, t AS technique_id, count(*)::int AS items
      FROM intel_items, unnest(attack_parents) t WHERE ${qualifying} GROUP BY 1, 2, 3
    )
    (SELECT 'missing' AS d, * FROM truth EXCEPT ALL SELECT 'missing', organization_id, day, technique_id, items FROM intel_attack_daily)
    UNION ALL (SELECT 'extra', organization_id, day, technique_id, items FROM intel_attack_daily EXCEPT ALL SELECT 'extra', * FROM truth)`.execute(db);
  const sightings = await sql`
    WITH keys AS (
      SELECT organization_id, t AS technique_id, 'technique' AS kind, '' AS name, seen_at FROM intel_items, unnest(attack_parents) t WHERE ${qualifying}
      UNION ALL SELECT organization_id, t, 'actor', n, seen_at FROM intel_items, unnest(attack_parents) t, unnest(actor_names) n WHERE ${qualifying}
      UNION ALL SELECT organization_id, t, 'malware', n, seen_at FROM intel_items, unnest(attack_parents) t, unnest(malware_names) n WHERE ${qualifying}
    ), truth AS (SELECT organization_id, technique_id, kind, name, count(*)::int AS items, max(seen_at) AS last_seen_at FROM keys GROUP BY 1, 2, 3, 4)
    (SELECT 'missing' AS d, * FROM truth EXCEPT ALL SELECT 'missing', organization_id, technique_id, kind, name, items, last_seen_at FROM intel_attack_sightings)
    UNION ALL (SELECT 'extra', organization_id, technique_id, kind, name, items, last_seen_at FROM intel_attack_sightings EXCEPT ALL SELECT 'extra', * FROM truth)`.execute(db);
  const days = await sql`
    WITH keys AS (
      SELECT organization_id, t AS technique_id, 'technique' AS kind, '' AS name, seen_at FROM intel_items, unnest(attack_parents) t WHERE ${qualifying}
      UNION ALL SELECT organization_id, t, 'actor', n, seen_at FROM intel_items, unnest(attack_parents) t, unnest(actor_names) n WHERE ${qualifying}
      UNION ALL SELECT organization_id, t, 'malware', n, seen_at FROM intel_items, unnest(attack_parents) t, unnest(malware_names) n WHERE ${qualifying}
    ), truth AS (SELECT organization_id, technique_id, kind, name, (seen_at AT TIME ZONE 'UTC')::date AS day, count(*)::int AS items, max(seen_at) AS last_seen_at FROM keys GROUP BY 1, 2, 3, 4, 5)
    (SELECT 'missing' AS d, * FROM truth EXCEPT ALL SELECT 'missing', organization_id, technique_id, kind, name, day, items, last_seen_at FROM intel_attack_sighting_days)
    UNION ALL (SELECT 'extra', organization_id, technique_id, kind, name, day, items, last_seen_at FROM intel_attack_sighting_days EXCEPT ALL SELECT 'extra', * FROM truth)`.execute(db);
  return [...daily.rows, ...sightings.rows, ...days.rows];
}

const byTechnique = (rows: TechniquePressure[]) => [...rows].sort((a, b) => a.techniqueId.localeCompare(b.techniqueId));

/** The report's intel pressure from the rollups equals the scan of the items, for windows starting at several times of day. */
async function expectSameReport(db: Database, organizationId: string) {
  for (const since of [NOW - 3 * DAY, NOW - 3 * DAY - 9 * 3_600_000, NOW - 7 * DAY + 1, Date.UTC(2026, 10, 20), NOW - 40 * DAY, NOW + DAY]) {
    const scope = { organizationId, since: new Date(since) };
    expect(byTechnique(await attackPressureFromRollups(db, scope))).toEqual(byTechnique(await attackPressureScan(db, scope)));
    const only = ['T1059', 'T1190'];
    expect(byTechnique(await attackPressureFromRollups(db, scope, only))).toEqual(byTechnique(await attackPressureScan(db, scope, only)));
  }
}

describe('ATT&CK rollups (migration 0115)', () => {
  it('equal the items they are derived from after random inserts, updates and deletes', async () => {
    const db = h.db;
    const g = generator(32);
    const orgs = [
      (await createOrganization(db, { name: 'Rollup Org A', adminEmail: 'a@rollups.test' })).organization.id,
      (await createOrganization(db, { name: 'Rollup Org B', adminEmail: 'b@rollups.test' })).organization.id,
    ];
    const sources = new Map<string, string[]>(orgs.map((o) => [o, []]));
    const items: Array<{ id: string; org: string; source: string }> = [];
    const addSource = async (org: string) => {
      const s = await newSource(db, org);
      sources.get(org)!.push(s);
      return s;
    };
    for (const org of orgs) for (const s of [await addSource(org), await addSource(org)]) for (const id of await insertItems(db, g, org, s, 120)) items.push({ id, org, source: s });
    expect(await drift(db)).toEqual([]);
    await expectSameReport(db, orgs[0]!);
    // The migration's backfill (and an operator's repair) rebuilds the same rows from the items.
    await sql`DELETE FROM intel_attack_sightings WHERE organization_id = ${orgs[0]} AND kind = 'actor'`.execute(db);
    expect(await drift(db)).not.toEqual([]);
    await sql`SELECT intel_attack_rollup_rebuild(${orgs[0]})`.execute(db);
    expect(await drift(db)).toEqual([]);

    const someIds = (n: number) => Array.from({ length: n }, () => g.pick(items).id);
    const steps: Array<[string, () => Promise<unknown>]> = [
      ['insert a chunk', async () => {
        const org = g.pick(orgs);
        const s = g.pick(sources.get(org)!);
        for (const id of await insertItems(db, g, org, s, 1 + Math.floor(g.r() * 60))) items.push({ id, org, source: s });
      }],
      ['reclassify', async () => {
        for (const id of someIds(1 + Math.floor(g.r() * 20))) await sql`UPDATE intel_items SET classification = ${JSON.stringify(g.classification())}::jsonb WHERE id = ${id}`.execute(db);
      }],
      ['reclassify many in one statement', async () => {
        const rows = someIds(40).map((id) => ({ id, c: g.classification() }));
        await sql`UPDATE intel_items i SET classification = v.c FROM json_to_recordset(${JSON.stringify([...new Map(rows.map((r) => [r.id, r])).values()])}::json) AS v(id uuid, c jsonb) WHERE i.id = v.id`.execute(db);
      }],
      ['retract and restore', async () => {
        await sql`UPDATE intel_items SET status = 'retracted' WHERE id = ANY(${someIds(15)}::uuid[])`.execute(db);
        await sql`UPDATE intel_items SET status = 'corrected' WHERE id = ANY(${someIds(10)}::uuid[]) AND status = 'retracted'`.execute(db);
      }],
      ['mark duplicates and unlink', async () => {
        const [first, ...later] = someIds(6);
        await sql`UPDATE intel_items SET duplicate_of = ${first} WHERE id = ANY(${later}::uuid[]) AND id <> ${first}`.execute(db);
        await sql`UPDATE intel_items SET duplicate_of = NULL WHERE id = ANY(${someIds(20)}::uuid[])`.execute(db);
      }],
      ['move publication dates', async () => {
        for (const id of someIds(10)) await sql`UPDATE intel_items SET published_at = ${g.publishedAt()} WHERE id = ${id}`.execute(db);
      }],
      ['touch columns the rollups ignore', async () => {
        await sql`UPDATE intel_items SET title = title || '.', updated_at = now() WHERE id = ANY(${someIds(30)}::uuid[])`.execute(db);
      }],
      ['delete a few', async () => {
        const ids = someIds(1 + Math.floor(g.r() * 8));
        await sql`DELETE FROM intel_items WHERE id = ANY(${ids}::uuid[])`.execute(db);
        items.splice(0, items.length, ...items.filter((i) => !ids.includes(i.id)));
      }],
      ['delete the newest sighting of many keys at once', async () => {
        // The newest item of every key goes: each key and day it held recomputes.
        const { rows } = await sql<{ id: string }>`
          SELECT DISTINCT ON (organization_id, t, n) id FROM intel_items, unnest(attack_parents) t, unnest(actor_names || malware_names || '{""}'::text[]) n
          WHERE duplicate_of IS NULL AND status <> 'retracted' ORDER BY organization_id, t, n, seen_at DESC`.execute(db);
        await sql`DELETE FROM intel_items WHERE id = ANY(${rows.map((r) => r.id)}::uuid[])`.execute(db);
        const gone = new Set(rows.map((r) => r.id));
        items.splice(0, items.length, ...items.filter((i) => !gone.has(i.id)));
      }],
      ['upsert on conflict (the ingest re-sync)', async () => {
        const batch = items.filter((i) => i.org === orgs[0]).slice(0, 30);
        await sql`
          INSERT INTO intel_items AS i (id, organization_id, source_id, external_id, title, language, content_text, content_hash, status, classification, created_at, updated_at)
          SELECT gen_random_uuid(), x.organization_id, x.source_id, x.external_id, 'Item', 'en', '', 'changed', 'active', ${JSON.stringify(g.classification())}::jsonb, now(), now()
          FROM intel_items x WHERE x.id = ANY(${batch.map((b) => b.id)}::uuid[])
          UNION ALL SELECT gen_random_uuid(), ${orgs[0]}, ${sources.get(orgs[0]!)![0]}, 'fresh-' || gen_random_uuid(), 'Item', 'en', '', 'new', 'active', ${JSON.stringify(g.classification())}::jsonb, now(), now()
          ON CONFLICT (organization_id, source_id, external_id) DO UPDATE SET classification = excluded.classification, status = 'corrected'`.execute(db);
      }],
    ];
    await steps.find(([name]) => name.startsWith('delete the newest'))![1]();
    expect(await drift(db)).toEqual([]);
    for (let step = 0; step < 40; step++) {
      const [name, run] = g.pick(steps);
      await run();
      expect(await drift(db), `after step ${step}: ${name}`).toEqual([]);
      if (step % 4 === 0) await expectSameReport(db, g.pick(orgs));
    }

    // A whole source, then a whole organization.
    const source = sources.get(orgs[1]!)![0]!;
    await sql`DELETE FROM intel_items WHERE source_id = ${source}`.execute(db);
    expect(await drift(db)).toEqual([]);
    await expectSameReport(db, orgs[1]!);
    await sql`DELETE FROM organizations WHERE id = ${orgs[1]}`.execute(db);
    expect(await drift(db)).toEqual([]);
    const left = await sql<{ n: number }>`SELECT count(*)::int AS n FROM intel_attack_sightings WHERE organization_id = ${orgs[1]}`.execute(db);
    expect(left.rows[0]!.n).toBe(0);
    await expectSameReport(db, orgs[0]!);
  });
});
