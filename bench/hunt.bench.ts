/**
 * Hunt (issue 13): a full reassessment of 5,000 threats against 10,000 assets with 200,000
 * software entries (target < 60 s), then GET /api/threats/{id} latency (p95 < 50 ms) over the
 * result. Data is bulk-loaded in SQL: 2,000 products, 20 software entries per asset with random
 * versions, one intel item per threat naming 2 products with version ranges and 2 indicators,
 * 1,000 sightings. The reassessment is the job handler's code (runReassess): set-based reads per
 * batch of 500 threats, pure scoring, bulk writes.
 *
 * Knobs: BENCH_HUNT_THREATS (5,000; quick 500), BENCH_HUNT_ASSETS (10,000; quick 1,000),
 * BENCH_HUNT_QUERIES (200; quick 50). BENCH_PG_STATEMENTS=1: the reassessment's statements per
 * threat. BENCH_HUNT_STATS=stale: the reassessment plans on statistics of before the load, as
 * right after a large import before autoanalyze (the tables analyzed empty, their autovacuum off
 * for the run, no ANALYZE after the load; the load's own links join is then slower too).
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createAuthenticator } from '../src/platform/auth/authenticator.js';
import { createSecretBox } from '../src/platform/secrets.js';
import { createOrganization } from '../src/modules/organizations/organizations.service.js';
import { runReassess } from '../src/modules/hunt/hunt.jobs.js';
import { startBenchDatabase } from './support/db.js';
import { envNumber, type BenchContext, type BenchDefinition, type BenchOutcome } from './support/harness.js';
import { percentile } from './support/stats.js';
import { resetStatements, statementReport } from './support/pg-statements.js';

const PRODUCTS = 2_000;
const SOFTWARE_PER_ASSET = 20;

const STALE_TABLES = ['intel_items', 'intel_indicators', 'hunt_threats', 'hunt_threat_items', 'hunt_assets', 'hunt_asset_software', 'hunt_sightings'] as const;

async function load(db: import('../src/platform/db/database.js').Database, org: string, threats: number, assets: number, staleStats: boolean): Promise<void> {
  if (staleStats) {
    for (const table of STALE_TABLES) await sql`ALTER TABLE ${sql.table(table)} SET (autovacuum_enabled = false)`.execute(db);
    await sql`ANALYZE`.execute(db);
  }
  const source = '01900000-0000-7000-8000-00000000b001';
  await sql`INSERT INTO intel_sources (id, organization_id, name, display_name, kind, feed_url, schedule_cron, max_entries, created_at, updated_at)
    VALUES (${source}, ${org}, 'bench', 'Bench advisories', 'rss', 'https://bench.example/feed', '0 * * * *', 100, now(), now())`.execute(db);
  await sql`INSERT INTO hunt_assets (id, organization_id, identifier, kind, platform, internet_facing, criticality, source, created_at, updated_at)
    SELECT gen_random_uuid(), ${org}, 'host-' || g, 'host', 'linux', g % 10 = 0, (ARRAY['low','medium','high','critical'])[1 + g % 4], 'csv', now(), now()
    FROM generate_series(1, ${assets}) g`.execute(db);
  await sql`INSERT INTO hunt_asset_software (id, organization_id, asset_id, position, vendor, product, version, product_key)
    SELECT gen_random_uuid(), ${org}, a.id, s, 'vendor', 'benchprod' || p, (1 + (h % 5)) || '.' || (h / 5 % 10) || '.' || (h / 50 % 20), 'benchprod' || p
    FROM hunt_assets a CROSS JOIN generate_series(1, ${SOFTWARE_PER_ASSET}) s
    CROSS JOIN LATERAL (SELECT abs(hashtext(a.id::text || s)) AS h) x
    CROSS JOIN LATERAL (SELECT 1 + (x.h % ${PRODUCTS}) AS p) y
    WHERE a.organization_id = ${org}`.execute(db);
  await sql`INSERT INTO intel_items (id, organization_id, source_id, external_id, title, content_text, structured_indicators, reference_urls, tags, content_hash,
      created_at, updated_at, processed_at, published_at, summary, classification, affected_products)
    SELECT gen_random_uuid(), ${org}, ${source}, 'ext-' || g, 'Flaw in benchprod' || (1 + g % ${PRODUCTS}) || ' (CVE-2026-' || (10000 + g) || ')',
      'A vulnerability in benchprod' || (1 + g % ${PRODUCTS}) || ' before 3.5.0 allows remote code execution.', '[]', '[]', '{}', md5(g::text),
      now(), now(), now() - interval '1 hour', now() - (g % 60) * interval '1 day', 'Summary ' || g,
      jsonb_build_object('attack', '[]'::jsonb, 'mappings', jsonb_build_array(jsonb_build_object('framework', 'cve', 'id', 'CVE-2026-' || (10000 + g), 'confidence', 1))),
      jsonb_build_array(
        jsonb_build_object('vendor', 'vendor', 'product', 'benchprod' || (1 + g % ${PRODUCTS}), 'versions', jsonb_build_array('<3.5.0'), 'confidence', 0.9),
        jsonb_build_object('vendor', 'vendor', 'product', 'benchprod' || (1 + (g * 7) % ${PRODUCTS}), 'versions', jsonb_build_array('>=2.0 <=2.9.9'), 'confidence', 0.9))
    FROM generate_series(1, ${threats}) g`.execute(db);
  await sql`INSERT INTO intel_indicators (id, organization_id, item_id, type, value, normalized_value, confidence, first_seen, last_seen, ttl_days, intel_title, source_label, created_at)
    SELECT gen_random_uuid(), ${org}, i.id, 'ipv4', v, v, 0.8, now(), now(), 30, i.title, 'bench', now()
    FROM intel_items i CROSS JOIN generate_series(1, 2) k
    CROSS JOIN LATERAL (SELECT '10.' || (abs(hashtext(i.id::text || k)) % 250) || '.' || (abs(hashtext(k || i.id::text)) % 250) || '.' || k AS v) x
    WHERE i.organization_id = ${org}`.execute(db);
  await sql`INSERT INTO hunt_sightings (id, organization_id, type, value, normalized_value, source, observed_at, created_at)
    SELECT gen_random_uuid(), ${org}, 'ipv4', normalized_value, normalized_value, 'bench-zeek', now(), now()
    FROM (SELECT normalized_value FROM intel_indicators WHERE organization_id = ${org} ORDER BY id LIMIT 1000) s`.execute(db);
  await sql`INSERT INTO hunt_threats (id, organization_id, canonical_key, title, created_at, updated_at)
    SELECT gen_random_uuid(), ${org}, m->>'id', i.title, now(), now() FROM intel_items i, jsonb_array_elements(i.classification->'mappings') m WHERE i.organization_id = ${org}`.execute(db);
  await sql`INSERT INTO hunt_threat_items (organization_id, threat_id, item_id, linked_at)
    SELECT ${org}, t.id, i.id, now() FROM hunt_threats t JOIN intel_items i ON i.organization_id = t.organization_id AND i.canonical_key IS NULL AND i.title LIKE '%(' || t.canonical_key || ')'
    WHERE t.organization_id = ${org}`.execute(db);
  if (!staleStats) await sql`ANALYZE`.execute(db);
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const threats = Math.round(envNumber('BENCH_HUNT_THREATS', ctx.quick ? 500 : 5_000));
  const assets = Math.round(envNumber('BENCH_HUNT_ASSETS', ctx.quick ? 1_000 : 10_000));
  const queries = Math.round(envNumber('BENCH_HUNT_QUERIES', ctx.quick ? 50 : 200));
  const staleStats = process.env.BENCH_HUNT_STATS === 'stale';
  const database = await startBenchDatabase('hunt');
  let app: FastifyInstance | null = null;
  try {
    const org = await createOrganization(database.db, { name: 'Bench Org', adminEmail: 'bench@hunt.test' });
    const organizationId = org.organization.id;
    const t0 = performance.now();
    await load(database.db, organizationId, threats, assets, staleStats);
    ctx.log(`loaded ${threats} threats, ${assets} assets, ${assets * SOFTWARE_PER_ASSET} software entries in ${((performance.now() - t0) / 1000).toFixed(1)} s${staleStats ? '; statistics of before the load (BENCH_HUNT_STATS=stale)' : ''}`);

    await resetStatements(database.db);
    const t1 = performance.now();
    const runIds = await runReassess(database.db, { organizationId, trigger: 'schedule' });
    const reassessS = (performance.now() - t1) / 1000;
    const statements = await statementReport(database.db, threats, 'threat', 15);
    if (statements) console.log(statements.text);
    if (runIds.length !== threats) throw new Error(`expected ${threats} runs, got ${runIds.length}`);
    const { rows: states } = await sql<{ exposureState: string; n: number }>`SELECT exposure_state AS "exposureState", count(*)::int AS n FROM hunt_threats WHERE organization_id = ${organizationId} GROUP BY 1 ORDER BY 1`.execute(database.db);
    ctx.log(`full reassessment: ${reassessS.toFixed(1)} s; exposure states ${states.map((s) => `${s.exposureState}=${s.n}`).join(', ')}`);

    const config = loadConfig({ RAMPART_DATA_DIR: database.dataDir, LOG_LEVEL: 'silent', DATABASE_URL: database.connectionString, RAMPART_RATE_LIMIT_PER_MINUTE: '0' });
    app = await buildApp({ config, database, logger: pino({ level: 'silent' }), authenticator: createAuthenticator(database.db), secrets: createSecretBox(randomBytes(32)) });
    const ids = (await sql<{ id: string }>`SELECT id FROM hunt_threats WHERE organization_id = ${organizationId} ORDER BY random() LIMIT ${queries + 20}`.execute(database.db)).rows.map((r) => r.id);
    const headers = { authorization: `Bearer ${org.apiKey.key}` };
    const ms: number[] = [];
    for (const [n, id] of ids.entries()) {
      const s = performance.now();
      const res = await app.inject({ method: 'GET', url: `/api/threats/${id}`, headers });
      const took = performance.now() - s;
      if (res.statusCode !== 200 || res.json().threat.id !== id) throw new Error(`GET /api/threats/${id}: ${res.statusCode}`);
      if (n >= 20) ms.push(took);
    }
    ms.sort((a, b) => a - b);
    return {
      figures: [
        { name: `full reassessment (${threats.toLocaleString('en')} threats × ${(assets * SOFTWARE_PER_ASSET).toLocaleString('en')} software)`, value: reassessS, unit: 's', digits: 1, target: { value: 60, kind: 'max' } },
        { name: 'GET /api/threats/{id} p95', value: percentile(ms, 95), unit: 'ms', digits: 1, target: { value: 50, kind: 'max' } },
        { name: 'GET /api/threats/{id} p50', value: percentile(ms, 50), unit: 'ms', digits: 1 },
      ],
      notes: [...(staleStats ? ['planned on statistics of before the load (BENCH_HUNT_STATS=stale)'] : []), `exposure states after the run: ${states.map((s) => `${s.exposureState} ${s.n}`).join(', ')}`, `${ms.length} sequential GETs after 20 warm-up, app.inject round trip`],
      details: { threats, assets, staleStats, software: assets * SOFTWARE_PER_ASSET, reassessSeconds: reassessS, p95Ms: percentile(ms, 95) },
    };
  } finally {
    await app?.close().catch(() => {});
    await database.close();
  }
}

export const huntBench: BenchDefinition = { name: 'hunt', title: 'Hunt: full reassessment and threat view latency', run };
