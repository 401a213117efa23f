/**
 * Issue 42: one source for the ATT&CK rules. intel_items' stored ATT&CK columns are computed in
 * PostgreSQL by the PL/pgSQL functions of migration 0106; intel's attack-columns.fns.ts states the
 * same rules in TypeScript. Both run here on the same documents (every pairing of odd technique
 * and sub-technique values, every odd name, and 3,000 generated documents) and must agree on each.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { techniqueIdsOf } from '../../src/modules/intel/index.js';
import { attackParentsOf, classificationNamesOf } from '../../src/modules/intel/items/attack-columns.fns.js';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { createTestDatabase } from '../support/db.js';

let h: DatabaseHandle;
beforeAll(async () => {
  h = await createTestDatabase();
});
afterAll(() => h.close());

const IDS: unknown[] = ['T1059', 't1059.001', 'T1566.002', 'T1003.001', '001', 'T105', 'TA0001', 'T10590', '', ' T1059', 'T1059.', 'x1059', 'T1021.002.9', 'Ｔ1059', null, 7, true, undefined];
const NAMES: unknown[] = ['APT29', ' apt29 ', 'Lazarus Group', 'lazarus group', 'Ça va', 'ÉLAN', 'élan', 'zeta', 'Alpha', '', '   ', '\tTab', null, 5, 2.5, false, 'b', 'B', 'a-b', 'a b', 'ü', 'İstanbul', '😀 emoji', 'ﬀ', undefined];

/** Every (technique, subTechnique) pairing, one mapping each, in documents of 7 mappings. */
function pairings(): unknown[] {
  const mappings: unknown[] = [];
  for (const technique of IDS) for (const subTechnique of IDS) mappings.push(Object.fromEntries(Object.entries({ technique, subTechnique }).filter(([, v]) => v !== undefined)));
  const docs: unknown[] = [];
  for (let i = 0; i < mappings.length; i += 7) docs.push({ attack: mappings.slice(i, i + 7) });
  return docs;
}

/** Every name alone and all together, under both keys, with elements that are no object. */
function namings(): unknown[] {
  const named = NAMES.map((name) => (name === undefined ? {} : { name }));
  return [...named.map((x) => ({ actor: [x], malware: [x, x] })), { actor: [...named, 'APT29', 3, null, [], [{ name: 'x' }]], malware: named.slice().reverse() }];
}

/** Documents of any shape, deterministic. */
function generated(count: number): unknown[] {
  let s = 0x2545f491;
  const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const element = (kind: 'attack' | 'named') => {
    if (rand() < 0.08) return pick(['T1059', 'x', 3, null, true, []]);
    if (kind === 'named') return rand() < 0.9 ? { name: pick(NAMES) } : { other: 'x' };
    const o: Record<string, unknown> = {};
    if (rand() < 0.7) o.technique = pick(IDS);
    if (rand() < 0.5) o.subTechnique = pick(IDS);
    return o;
  };
  const list = (kind: 'attack' | 'named') => (rand() < 0.1 ? pick([{ name: 'APT29' }, 'T1059', 1, null]) : Array.from({ length: Math.floor(rand() * 7) }, () => element(kind)));
  return Array.from({ length: count }, () => {
    if (rand() < 0.03) return pick([[], 'T1059', 5, null]);
    const c: Record<string, unknown> = {};
    if (rand() < 0.9) c.attack = list('attack');
    if (rand() < 0.8) c.actor = list('named');
    if (rand() < 0.8) c.malware = list('named');
    return c;
  });
}

describe('intel_items ATT&CK columns: PL/pgSQL and TypeScript', () => {
  it('agree on every document', async () => {
    const docs = [{}, { attack: null }, { attack: {} }, { attack: [] }, ...pairings(), ...namings(), ...generated(3_000)];
    // JSON round trip: what PostgreSQL stores is what the TypeScript reads back from a row.
    const stored = JSON.parse(JSON.stringify(docs)) as unknown[];
    const { rows } = await sql<{ n: number; parents: string[]; actors: string[]; malware: string[] }>`
      SELECT n::int AS n, intel_attack_parents(c) AS parents, intel_classification_names(c, 'actor') AS actors, intel_classification_names(c, 'malware') AS malware
      FROM jsonb_array_elements(${JSON.stringify(stored)}::jsonb) WITH ORDINALITY AS d(c, n) ORDER BY n`.execute(h.db);
    expect(rows).toHaveLength(stored.length);
    const differing = rows.flatMap((r) => {
      const c = stored[r.n - 1];
      const ts = { parents: attackParentsOf(c), actors: classificationNamesOf(c, 'actor'), malware: classificationNamesOf(c, 'malware') };
      const pg = { parents: r.parents, actors: r.actors, malware: r.malware };
      return JSON.stringify(ts) === JSON.stringify(pg) ? [] : [{ c, ts, pg }];
    });
    expect(differing.slice(0, 5)).toEqual([]);
    // The cases are not all empty: the comparison saw parents and names.
    expect(rows.filter((r) => r.parents.length > 0).length).toBeGreaterThan(300);
    expect(rows.filter((r) => r.actors.length > 0).length).toBeGreaterThan(300);
  });

  it('give the parents of techniqueIdsOf on the mappings the classifier writes', () => {
    const written = [
      { technique: 'T1059', subTechnique: 'T1059.001' },
      { technique: 'T1059', subTechnique: '001' },
      { technique: 'T1003', subTechnique: '' },
      { technique: '', subTechnique: 'T1566.002' },
      { technique: 'T1021', subTechnique: null },
    ];
    const parents = [...new Set(techniqueIdsOf(written).map((id) => id.split('.')[0]!))].sort();
    expect(attackParentsOf({ attack: written })).toEqual(parents);
    expect(parents).toEqual(['T1003', 'T1021', 'T1059', 'T1566']);
  });
});
