/**
 * Migration 0156 (intel/migrations/0156_items_search_inlined.ts): the items' search vector
 * (`intel_item_search`, migration 0110) is written so PostgreSQL inlines it, with the same value.
 * The vectors of OSV, CSAF and prose items (and the edge cases: NULL id, aliases or package names,
 * empty arrays, a quote in an alias) are the same under 0110's body and 0156's; a query of
 * `GET /items?search=`'s shape is planned with the expression itself (inlined) and still on the
 * search index; the down migration gives 0110's body back.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { createEmptyDatabase } from '../support/db.js';
import { migrateDown, migrateTo } from '../support/migrate.js';

let h: DatabaseHandle;
beforeAll(async () => {
  h = await createEmptyDatabase();
});
afterAll(() => h.close());


const inputs: Array<[string | null, string | null, unknown]> = [
  ['GHSA-jfh8-c2jp-5v3q: Remote code injection in Log4j', 'details that are not in the vector', { format: 'osv', id: 'GHSA-jfh8-c2jp-5v3q', aliases: ['CVE-2021-44228'], affected: [{ ecosystem: 'Maven', name: 'org.apache.logging.log4j:log4j-core', purl: null }, { name: 'pax-logging-log4j2' }] }],
  ['CSAF advisory', 'text', { format: 'csaf', id: 'RHSA-2024:0001', aliases: ['CVE-2024-1', 'CVE-2024-2'], affected: [] }],
  ['no id', 'text', { format: 'osv', aliases: ['CVE-2024-3'], affected: [{ name: 'left-pad' }] }],
  ['nulls', 'text', { format: 'csaf', id: null, aliases: null }],
  ['only a format', 'text', { format: 'osv' }],
  ['quoted', 'text', { format: 'osv', id: 'A-1', aliases: ['B "q" 2', '  '], affected: [{ name: null }, {}, { name: 'n1' }] }],
  ['A prose report on evil.com', 'The actor used evil[.]com and 203.0.113.7 in the campaign.', null],
  ['NVD record', 'CVE text', { format: 'nvd', id: 'CVE-2024-4' }],
  [null, null, null],
];

const vectors = async () =>
  (
    await sql<{ v: string | null }>`
      SELECT intel_item_search(t.title, t.content_text, t.vulnerability)::text AS v
      FROM ROWS FROM (jsonb_to_recordset(${JSON.stringify(inputs.map(([title, contentText, vulnerability]) => ({ title, content_text: contentText, vulnerability })))}::jsonb)
        AS (title text, content_text text, vulnerability jsonb)) WITH ORDINALITY AS t(title, content_text, vulnerability, n)
      ORDER BY t.n`.execute(h.db)
  ).rows.map((r) => r.v);

// With sequential scans off, as on a table of many items: the plan names the index it uses.
const plan = () =>
  h.db.transaction().execute(async (tx) => {
    await sql`SET LOCAL enable_seqscan = off`.execute(tx);
    const { rows } = await sql<{ 'QUERY PLAN': string }>`EXPLAIN VERBOSE SELECT id FROM intel_items i WHERE intel_item_search(i.title, i.content_text, i.vulnerability) @@ websearch_to_tsquery('simple', 'log4j')`.execute(tx);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  });

describe('migration 0156: the items search vector, inlined', () => {
  it('gives every item the vector 0110 gave it, is planned inlined on the search index, and goes back', async () => {
    await migrateTo(h.db, '0155_intel_vulnerability_store_json');
    const before = await vectors();
    expect(before.filter((v) => v !== null && v.length > 0).length).toBeGreaterThan(inputs.length - 3);
    expect(before[0]).toMatch(/'-44228':\d+B/); // the alias, weighted B (the simple parser splits it at its hyphens)
    expect(await plan()).toMatch(/intel_items_search_idx[\s\S]*intel_item_search\(/);

    await migrateTo(h.db, '0156_items_search_inlined');
    expect(await vectors()).toEqual(before);
    const inlined = await plan();
    expect(inlined).not.toContain('intel_item_search(');
    expect(inlined).toContain('intel_items_search_idx');

    await migrateDown(h.db, '0156_items_search_inlined');
    expect(await vectors()).toEqual(before);
    expect(await plan()).toContain('intel_item_search(');
  });
});
