/**
 * intel_items' stored ATT&CK columns (migration 0096) are computed by intel_attack_parents and
 * intel_classification_names. Migration 0106 rewrote both in PL/pgSQL for the cost of
 * ingestion; the values must stay exactly those of the SQL definitions they replaced (0096),
 * which this test keeps as temporary functions and compares on edge cases and random documents.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../../test/support/db.js';
import type { DatabaseHandle } from '../../../platform/db/database.js';

let h: DatabaseHandle;

beforeAll(async () => {
  h = await createTestDatabase();
});
afterAll(() => h.close());

// The definitions of migration 0096, verbatim, under other names.
const ORIGINAL = [
  sql`
    CREATE FUNCTION pg_temp.orig_attack_parents(c jsonb) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT coalesce(array_agg(DISTINCT p ORDER BY p), '{}') FROM (
        SELECT split_part(upper(coalesce(nullif(x->>'technique', ''), x->>'subTechnique')), '.', 1) AS p
        FROM jsonb_array_elements(CASE WHEN jsonb_typeof(c->'attack') = 'array' THEN c->'attack' ELSE '[]'::jsonb END) x
      ) s WHERE p ~ '^T[0-9]{4}$'
    $$`,
  sql`
    CREATE FUNCTION pg_temp.orig_classification_names(c jsonb, key text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT coalesce(array_agg(DISTINCT n ORDER BY n), '{}') FROM (
        SELECT lower(btrim(x->>'name')) AS n
        FROM jsonb_array_elements(CASE WHEN jsonb_typeof(c->key) = 'array' THEN c->key ELSE '[]'::jsonb END) x
        WHERE jsonb_typeof(x) = 'object'
      ) s WHERE coalesce(n, '') <> ''
    $$`,
];

/** A deterministic pseudo-random classification document, odd shapes included. */
function randomClassification(seed: number): unknown {
  let s = seed * 2654435761;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const ids = ['T1059', 't1059.001', 'T1566.002', 'T1059.003', 'T1003', 'T1003.001', 'T105', 'TA0001', 'T10590', '', ' T1059', 'T1059.', 'x1059', 'T1021.002.9', null, 7];
  const names = ['APT29', ' apt29 ', 'Lazarus Group', 'lazarus group', 'Ça va', 'ÉLAN', 'élan', 'zeta', 'Alpha', '', '   ', null, 5, 'b', 'B', 'a-b', 'a b', 'ü'];
  const element = (kind: 'attack' | 'named') => {
    const r = rand();
    if (r < 0.08) return pick(['T1059', 'x', 3, null, true, []]);
    if (kind === 'attack') {
      const o: Record<string, unknown> = {};
      if (rand() < 0.7) o.technique = pick(ids);
      if (rand() < 0.5) o.subTechnique = pick(ids);
      return o;
    }
    return rand() < 0.9 ? { name: pick(names) } : { other: 'x' };
  };
  const list = (kind: 'attack' | 'named') => {
    const r = rand();
    if (r < 0.1) return pick([{ name: 'APT29' }, 'T1059', 1, null]);
    return Array.from({ length: Math.floor(rand() * 7) }, () => element(kind));
  };
  const c: Record<string, unknown> = {};
  if (rand() < 0.9) c.attack = list('attack');
  if (rand() < 0.8) c.actor = list('named');
  if (rand() < 0.8) c.malware = list('named');
  return c;
}

describe('intel_items ATT&CK columns', () => {
  it('give the values of the SQL definitions they replaced, on edge cases and 2,000 random documents', async () => {
    await h.db.connection().execute(async (conn) => {
      for (const f of ORIGINAL) await f.execute(conn);
      const docs: unknown[] = [
        {},
        { attack: null },
        { attack: {} },
        { attack: [] },
        { attack: [{ technique: 'T1059.001' }, { technique: '', subTechnique: 't1003.001' }, { technique: 'T1059' }, 'T1566', { technique: 'TA0001' }] },
        { actor: [{ name: ' APT29 ' }, { name: 'apt29' }, { name: '' }, { name: null }, 'Lazarus', { name: 'Zed' }, { name: 'alpha' }], malware: [{ name: 5 }] },
        ...Array.from({ length: 2_000 }, (_, i) => randomClassification(i + 1)),
      ];
      const { rows } = await sql<{ c: unknown; now: unknown; before: unknown }>`
        SELECT c, now, before FROM jsonb_array_elements(${JSON.stringify(docs)}::jsonb) AS c,
          LATERAL (VALUES
            (intel_attack_parents(c), pg_temp.orig_attack_parents(c)),
            (intel_classification_names(c, 'actor'), pg_temp.orig_classification_names(c, 'actor')),
            (intel_classification_names(c, 'malware'), pg_temp.orig_classification_names(c, 'malware'))
          ) AS v(now, before)
        WHERE now IS DISTINCT FROM before`.execute(conn);
      expect(rows).toEqual([]);

      const one = async (c: unknown) =>
        (await sql<{ p: string[]; a: string[]; m: string[] }>`
          SELECT intel_attack_parents(${JSON.stringify(c)}::jsonb) AS p, intel_classification_names(${JSON.stringify(c)}::jsonb, 'actor') AS a,
                 intel_classification_names(${JSON.stringify(c)}::jsonb, 'malware') AS m`.execute(conn)).rows[0];
      expect(await one(docs[4])).toEqual({ p: ['T1003', 'T1059'], a: [], m: [] });
      expect(await one(docs[5])).toEqual({ p: [], a: ['alpha', 'apt29', 'zed'], m: ['5'] });
      expect(await one({})).toEqual({ p: [], a: [], m: [] });
    });
  });
});
