/**
 * ATT&CK coverage: `GET /api/coverage/attack?window=90d` (issue 32: p95 < 200 ms over 100,000
 * intel items and 5,000 detections) against the real app as `rampart serve` in a child process.
 * The organization holds 100,000 processed intel items published over the last 89 days (every
 * one in the window: the worst case), each naming 1–4 ATT&CK techniques or sub-techniques of the
 * shipped catalog, two thirds an actor and half a malware family, with a classification shaped as
 * the pipeline writes it; and 5,000 code detections naming 1–3 techniques, statuses mixed. Also
 * measured: the same with an actor filter, and the Navigator layer.
 *
 * Knobs: BENCH_COVERAGE_ITEMS (100000; quick 20000), BENCH_COVERAGE_DETECTIONS (5000; quick 1000),
 * BENCH_COVERAGE_REQUESTS (100 per query; quick 20).
 */
import { sql } from 'kysely';
import { request } from 'undici';
import type { Database } from '../src/platform/db/database.js';
import { createOrganization } from '../src/modules/organizations/index.js';
import { loadAttackCatalog } from '../src/modules/intel/index.js';
import { startBenchDatabase } from './support/db.js';
import { envNumber, type BenchContext, type BenchDefinition, type BenchOutcome } from './support/harness.js';
import { startRampartServer, waitReady } from './support/http-children.js';
import { table } from './support/report.js';
import { percentile } from './support/stats.js';

export const TARGETS = { coverageP95Ms: 200 } as const;
const f = (v: number, digits = 2) => (Number.isFinite(v) ? v.toFixed(digits) : 'n/a');

export async function seedCoverage(db: Database, organizationId: string, items: number, detections: number): Promise<void> {
  const catalog = await loadAttackCatalog(db);
  const techniques = [...catalog.techniques.keys()];
  const groups = catalog.groups.map((g) => g.name);
  const software = catalog.software.filter((s) => s.type === 'malware').map((s) => s.name);
  const sourceId = (await sql<{ id: string }>`
    INSERT INTO intel_sources (id, organization_id, name, display_name, kind, feed_url, schedule_cron, max_entries, created_at, updated_at)
    VALUES (gen_random_uuid(), ${organizationId}, 'bench', 'Bench feed', 'rss', 'https://bench.example/feed', '0 * * * *', 100, now(), now()) RETURNING id`.execute(db)).rows[0]!.id;
  const nt = techniques.length;
  await sql`
    INSERT INTO intel_items (id, organization_id, source_id, external_id, title, url, publisher, published_at, language, content_text, content_hash, status,
      severity, relevance, summary, tldr, classification, created_at, updated_at, processed_at)
    SELECT gen_random_uuid(), ${organizationId}, ${sourceId}, 'bench-' || g, 'Bench report ' || g, 'https://bench.example/r/' || g, 'Bench', now() - (g::float8 / ${items}) * interval '89 days', 'en',
      repeat('Threat actors abused living-off-the-land binaries. ', 20), md5(g::text), 'processed',
      (ARRAY['critical', 'high', 'medium', 'low'])[1 + g % 4], g % 100, 'Summary of report ' || g, 'TLDR ' || g,
      jsonb_build_object(
        'attack', (SELECT jsonb_agg(jsonb_build_object('technique', split_part(tid, '.', 1), 'subTechnique', CASE WHEN tid LIKE '%.%' THEN tid ELSE '' END,
                     'techniqueName', 'Bench technique', 'tactic', 'execution', 'evidenceRef', 'p' || k, 'confidence', 0.8))
                   FROM (SELECT k, (${techniques}::text[])[1 + ((g * 31 + k * 7919) % ${nt})] AS tid FROM generate_series(1, 1 + g % 4) k) s),
        'actor', CASE WHEN g % 3 = 0 THEN '[]'::jsonb ELSE jsonb_build_array(jsonb_build_object('name', (${groups}::text[])[1 + (g * 7) % ${groups.length}], 'confidence', 0.7, 'evidenceRef', 'p1')) END,
        'malware', CASE WHEN g % 2 = 0 THEN '[]'::jsonb ELSE jsonb_build_array(jsonb_build_object('name', (${software}::text[])[1 + (g * 13) % ${software.length}], 'confidence', 0.7, 'evidenceRef', 'p2')) END,
        'mappings', '[]'::jsonb, 'sectors', '["finance"]'::jsonb, 'regions', '["europe"]'::jsonb),
      now(), now(), now()
    FROM generate_series(1, ${items}) g`.execute(db);
  await sql`
    INSERT INTO code_detections (id, organization_id, name, rule_id, severity, status, attack_techniques, tags, created_at, updated_at)
    SELECT gen_random_uuid(), ${organizationId}, 'Bench rule ' || g, gen_random_uuid()::text, 'medium', (ARRAY['experimental', 'test', 'stable', 'deprecated'])[1 + g % 4],
      ARRAY(SELECT DISTINCT (${techniques}::text[])[1 + ((g * 17 + k * 104729) % ${nt})] FROM generate_series(1, 1 + g % 3) k), ARRAY['bench'], now(), now()
    FROM generate_series(1, ${detections}) g`.execute(db);
  await sql`VACUUM ANALYZE intel_items, intel_attack_daily, intel_attack_sightings, code_detections`.execute(db);
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const itemCount = envNumber('BENCH_COVERAGE_ITEMS', ctx.quick ? 20_000 : 100_000);
  const detectionCount = envNumber('BENCH_COVERAGE_DETECTIONS', ctx.quick ? 1_000 : 5_000);
  const requests = envNumber('BENCH_COVERAGE_REQUESTS', ctx.quick ? 20 : 100);
  const database = await startBenchDatabase('coverage');
  try {
    const org = await createOrganization(database.db, { name: 'Bench Org', adminEmail: 'bench@coverage.test' });
    ctx.log(`seeding ${itemCount} intel items and ${detectionCount} detections`);
    await seedCoverage(database.db, org.organization.id, itemCount, detectionCount);
    const server = await startRampartServer(database);
    try {
      await waitReady(server);
      const auth = { authorization: `Bearer ${org.apiKey.key}` };
      const rows: string[][] = [];
      const p95s: Record<string, number> = {};
      for (const [label, url] of [
        ['coverage 90d', '/api/coverage/attack?window=90d'],
        ['coverage 90d, actor APT28', '/api/coverage/attack?window=90d&actor=APT28'],
        ['navigator layer (coverage)', '/api/coverage/attack/navigator-layer?view=coverage&window=90d'],
      ] as const) {
        const lat: number[] = [];
        for (let i = 0; i < requests + 5; i++) {
          const t0 = performance.now();
          const res = await request(`${server.origin}${url}`, { headers: auth });
          const body = (await res.body.json()) as { techniques?: unknown[] };
          if (res.statusCode !== 200 || !Array.isArray(body.techniques)) throw new Error(`${url}: ${res.statusCode}`);
          if (i >= 5) lat.push(performance.now() - t0);
        }
        const sorted = Float64Array.from(lat).sort();
        p95s[label] = percentile(sorted, 95);
        rows.push([label, f(percentile(sorted, 50)), f(p95s[label]!), f(percentile(sorted, 99))]);
      }
      console.log(`\n${table(['query', 'p50 ms', 'p95 ms', 'p99 ms'], rows, [1, 2, 3])}`);
      return {
        figures: [
          { name: `GET /api/coverage/attack p95 at ${itemCount} items, ${detectionCount} detections`, value: p95s['coverage 90d']!, unit: 'ms', digits: 2, target: { value: TARGETS.coverageP95Ms, kind: 'max' } },
          { name: 'GET /api/coverage/attack?actor= p95', value: p95s['coverage 90d, actor APT28']!, unit: 'ms', digits: 2 },
          { name: 'GET /api/coverage/attack/navigator-layer p95', value: p95s['navigator layer (coverage)']!, unit: 'ms', digits: 2 },
        ],
        notes: [`${requests} sequential requests per query after 5 warm-up requests; every item inside the 90-day window`],
        details: { itemCount, detectionCount, requests, rows },
      };
    } finally {
      await server.stop();
    }
  } finally {
    await database.close();
  }
}

export const coverageBench: BenchDefinition = { name: 'coverage', title: 'GET /api/coverage/attack at 100k intel items, 5k detections', run };
