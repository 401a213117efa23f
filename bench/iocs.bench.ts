/**
 * GET /iocs latency over 1,000,000 indicators (issue 27 §5: p95 < 25 ms; DESIGN.md §7 said 50): the real app
 * (buildApp, real auth with an API key from createOrganization) over an embedded PostgreSQL
 * bulk-loaded in SQL (bench/support/iocs-data.ts), 200 sequential searches after 20 warm-up ones
 * (app.inject: no network, so the figure is the app and its SQL) with varied substrings,
 * statuses, types and pages. Every answer is checked (200, shape, filters honoured). The service
 * keeps a search's counts until the organization's indicators change (migration 0130): 31 of the
 * 200 requests ask a search for the first time and compute them, reported apart.
 *
 * Knobs: BENCH_IOCS_ITEMS (20,000 items × 50 indicators; quick 2,000 → 100,000 indicators),
 * BENCH_IOCS_QUERIES (200; quick 50). `npm run bench -- iocs --explain` then EXPLAIN ANALYZEs
 * the statements of the slowest requests and times them by query shape (bench/support/iocs-explain.ts).
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createAuthenticator } from '../src/platform/auth/authenticator.js';
import { createSecretBox } from '../src/platform/secrets.js';
import { createOrganization } from '../src/modules/organizations/organizations.service.js';
import { startBenchDatabase } from './support/db.js';
import { envNumber, type BenchContext, type BenchDefinition, type BenchOutcome } from './support/harness.js';
import { INDICATOR_TYPES, PER_ITEM, loadIndicators } from './support/iocs-data.js';
import type { IocsRun } from './support/iocs-explain.js';
import { buildQueries, checkAnswer, urlFor, type IocQuery } from './support/iocs-queries.js';
import { table } from './support/report.js';
import { percentile } from './support/stats.js';

export const TARGET_P95_MS = 25;
const WARMUP_QUERIES = 20;

async function measure(app: FastifyInstance, apiKey: string, queries: IocQuery[]): Promise<Array<{ q: IocQuery; ms: number; total: number }>> {
  const headers = { authorization: `Bearer ${apiKey}` };
  const out: Array<{ q: IocQuery; ms: number; total: number }> = [];
  for (const q of queries) {
    const t0 = performance.now();
    const res = await app.inject({ method: 'GET', url: urlFor(q), headers });
    const ms = performance.now() - t0;
    const body = checkAnswer(q, res.statusCode, res.json(), INDICATOR_TYPES);
    out.push({ q, ms, total: body.total });
  }
  return out;
}

/** The (search, type) of a query: what IocsService keeps counts for (any status, page or size). */
const searchKey = (q: IocQuery) => `${q.search}\u0000${q.type ?? ''}`;

function summarizeRun(results: Array<{ q: IocQuery; ms: number; total: number }>, rows: number, loadSeconds: number, warmup: IocQuery[]): IocsRun {
  const sorted = results.map((r) => r.ms).sort((a, b) => a - b);
  // Requests whose search had not been asked before (in the warm-up or earlier in the run): they
  // compute the counts; the others find them kept (until an indicator is written).
  const seen = new Set(warmup.map(searchKey));
  const first = results.filter((r) => !seen.has(searchKey(r.q)) && seen.add(searchKey(r.q))).map((r) => r.ms).sort((a, b) => a - b);
  const shapes = [...new Set(results.map((r) => r.q.shape))];
  return {
    rows,
    queries: results.length,
    p50Ms: percentile(sorted, 50),
    p95Ms: percentile(sorted, 95),
    loadSeconds,
    byShape: shapes.map((shape) => {
      const mine = results.filter((r) => r.q.shape === shape);
      const ms = mine.map((r) => r.ms).sort((a, b) => a - b);
      return { shape, n: mine.length, p50Ms: percentile(ms, 50), p95Ms: percentile(ms, 95), maxMs: ms.at(-1)!, meanTotal: Math.round(mine.reduce((a, r) => a + r.total, 0) / mine.length) };
    }),
    firstSearch: { n: first.length, p50Ms: percentile(first, 50), p95Ms: percentile(first, 95) },
    slowest: [...results].sort((a, b) => b.ms - a.ms).slice(0, 8).map((r) => ({ ms: r.ms, query: r.q, total: r.total })),
  };
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const items = Math.round(envNumber('BENCH_IOCS_ITEMS', ctx.quick ? 2_000 : 20_000));
  const queries = Math.round(envNumber('BENCH_IOCS_QUERIES', ctx.quick ? 50 : 200));
  const explain = ctx.args.includes('--explain');
  const database = await startBenchDatabase('iocs');
  let app: FastifyInstance | null = null;
  try {
    const org = await createOrganization(database.db, { name: 'Bench Org', adminEmail: 'bench@iocs.test' });
    const organizationId = org.organization.id;
    const loaded = await loadIndicators(database.db, organizationId, items, ctx.log);
    if (loaded.rows !== items * PER_ITEM) throw new Error(`expected ${items * PER_ITEM} indicators, loaded ${loaded.rows}`);
    ctx.log(`${loaded.rows.toLocaleString('en')} indicators ready in ${loaded.seconds.toFixed(1)} s`);

    const config = loadConfig({ RAMPART_DATA_DIR: database.dataDir, LOG_LEVEL: 'silent', DATABASE_URL: database.connectionString, RAMPART_RATE_LIMIT_PER_MINUTE: '0' });
    app = await buildApp({ config, database, logger: pino({ level: 'silent' }), authenticator: createAuthenticator(database.db), secrets: createSecretBox(randomBytes(32)) });

    // Warm-up (not counted): JIT, the pool's connections, the first reads of each index.
    const warmup = buildQueries(WARMUP_QUERIES, 99);
    await measure(app, org.apiKey.key, warmup);
    const r = summarizeRun(await measure(app, org.apiKey.key, buildQueries(queries)), loaded.rows, loaded.seconds, warmup);

    console.log(
      `\nper query shape (ms):\n${table(
        ['shape', 'n', 'p50', 'p95', 'max', 'mean matches'],
        r.byShape.map((s) => [s.shape, String(s.n), s.p50Ms.toFixed(1), s.p95Ms.toFixed(1), s.maxMs.toFixed(1), s.meanTotal.toLocaleString('en')]),
        [1, 2, 3, 4, 5],
      )}\nslowest requests:\n${r.slowest.map((s) => `  ${s.ms.toFixed(1).padStart(7)} ms  ${urlFor(s.query)}  (total ${s.total.toLocaleString('en')})`).join('\n')}`,
    );
    if (explain) await (await import('./support/iocs-explain.js')).diagnose(database, organizationId, r);

    return {
      figures: [
        { name: `p95 latency (${r.rows.toLocaleString('en')} indicators)`, value: r.p95Ms, unit: 'ms', digits: 1, target: { value: TARGET_P95_MS, kind: 'max' } },
        { name: 'p50 latency', value: r.p50Ms, unit: 'ms', digits: 1 },
        { name: 'max latency', value: r.slowest[0]?.ms ?? NaN, unit: 'ms', digits: 1 },
        { name: `p95 latency, a search's first request (${r.firstSearch.n} of ${r.queries})`, value: r.firstSearch.p95Ms, unit: 'ms', digits: 1 },
      ],
      notes: [
        `${r.queries} sequential requests after ${WARMUP_QUERIES} warm-up, app.inject round trip: auth, validation, the SQL of IocsService.list, serialization`,
        `bulk load (SQL) + indexes + VACUUM ANALYZE took ${r.loadSeconds.toFixed(1)} s; slowest shape by p95: ${[...r.byShape].sort((a, b) => b.p95Ms - a.p95Ms)[0]?.shape ?? 'n/a'}`,
        ...(explain ? [] : ['`npm run bench -- iocs --explain` shows the query plans of the slowest requests and candidate fixes']),
      ],
      details: r,
    };
  } finally {
    await app?.close().catch(() => {});
    await database.close();
  }
}

export const iocsBench: BenchDefinition = { name: 'iocs', title: 'IOC list: GET /iocs search latency', run };
