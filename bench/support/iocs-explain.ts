/**
 * `npm run bench -- iocs --explain`: why GET /iocs is slow, and what would fix it, on the
 * bench's own 1,000,000 indicators. Nothing in src/ changes: the SQL is captured from the real
 * IocsService (through a logging Kysely on the same pool), then
 *   1. EXPLAIN (ANALYZE, BUFFERS) of the three statements of the slowest requests;
 *   2. each statement timed alone over the same 200 queries, next to candidate rewrites:
 *      - types-loose: availableTypes as a loose index scan (recursive CTE) over the EXISTING
 *        (organization_id, status, type) index, one skip-scan per status (no migration);
 *      - types-idx: the same with a hand-made (organization_id, type) index (dropped after);
 *      - counts-cap10k / counts-cap1k: statusCounts over at most 10,001 / 1,001 matches;
 *      - rows with a finer normalized_value histogram (statistics 1000), then also with
 *        (org, status, created_at, id) and (org, type, created_at, id) indexes (all reverted);
 *   3. the request's SQL as the service runs it (the three in parallel), as is and with the
 *      candidates, to estimate the endpoint's latency after each change.
 * Variants run back to back per query, so load on the machine affects them alike.
 */
import { performance } from 'node:perf_hooks';
import { CamelCasePlugin, Kysely, PostgresDialect, sql, type CompiledQuery } from 'kysely';
import type { DB } from '../../src/platform/db/schema.js';
import type { RequestContext } from '../../src/platform/context.js';
import { createIocsService } from '../../src/modules/intel/iocs/iocs.service.js';
import { IOC_STATUSES, IocListQuery } from '../../src/modules/intel/iocs/iocs.schemas.js';
import type { BenchDatabase } from './db.js';
import { percentile } from './stats.js';
import { buildQueries, urlFor, type IocQuery } from './iocs-queries.js';

/** What the /iocs bench hands over: its run's figures and slowest requests. */
export interface IocsRun {
  rows: number;
  queries: number;
  p50Ms: number;
  p95Ms: number;
  byShape: Array<{ shape: string; n: number; p50Ms: number; p95Ms: number; maxMs: number; meanTotal: number }>;
  slowest: Array<{ ms: number; query: IocQuery; total: number }>;
  loadSeconds: number;
}

type Kind = 'rows' | 'counts' | 'types';
type Stmt = { kind: Kind; sql: string; params: readonly unknown[] };

const STATUS_ARRAY = `ARRAY[${IOC_STATUSES.map((s) => `'${s}'`).join(',')}]`;

/** availableTypes without reading 1M index entries: ≤ 4 × (types + 1) index probes. */
export const TYPES_LOOSE_SQL = `SELECT DISTINCT x.type FROM unnest(${STATUS_ARRAY}) AS s(status)
CROSS JOIN LATERAL (
  WITH RECURSIVE t(type) AS (
    (SELECT type FROM intel_indicators WHERE organization_id = $1 AND status = s.status ORDER BY type LIMIT 1)
    UNION ALL
    SELECT (SELECT i.type FROM intel_indicators i WHERE i.organization_id = $1 AND i.status = s.status AND i.type > t.type ORDER BY i.type LIMIT 1)
    FROM t WHERE t.type IS NOT NULL
  ) SELECT type FROM t WHERE type IS NOT NULL
) x ORDER BY x.type`;

/** The same over a (organization_id, type) index: one skip-scan. */
export const TYPES_INDEXED_SQL = `WITH RECURSIVE t(type) AS (
  (SELECT type FROM intel_indicators WHERE organization_id = $1 ORDER BY type LIMIT 1)
  UNION ALL
  SELECT (SELECT i.type FROM intel_indicators i WHERE i.organization_id = $1 AND i.type > t.type ORDER BY i.type LIMIT 1)
  FROM t WHERE t.type IS NOT NULL
) SELECT type FROM t WHERE type IS NOT NULL`;
const TYPE_INDEX = 'bench_intel_indicators_org_type_idx';
const ORDER_INDEXES = [
  ['bench_intel_indicators_org_status_order_idx', '(organization_id, status, created_at DESC, id DESC)'],
  ['bench_intel_indicators_org_type_order_idx', '(organization_id, type, created_at DESC, id DESC)'],
] as const;

/** statusCounts over at most `cap` matching rows (the API would then say "cap or more"). */
function cappedCounts(countSql: string, cap: number): string {
  const m = /^select "status", count\(\*\) as "n" from "intel_indicators" where (.*) group by "status"$/s.exec(countSql);
  if (!m) throw new Error(`unexpected counts SQL: ${countSql}`);
  return `SELECT status, count(*) AS n FROM (SELECT status FROM intel_indicators WHERE ${m[1]} LIMIT ${cap}) s GROUP BY status`;
}

async function capture(database: BenchDatabase, organizationId: string, q: IocQuery): Promise<Stmt[]> {
  const captured: CompiledQuery[] = [];
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: database.pool }), plugins: [new CamelCasePlugin()], log: (e) => void (e.level === 'query' && captured.push(e.query)) });
  const ctx: RequestContext = { actor: { type: 'user', userId: 'bench', organizationId, apiKeyId: 'bench', roleId: 'bench', permissions: new Set() }, requestId: 'bench' };
  await createIocsService({ db }).list(ctx, IocListQuery.parse({ ...q }));
  return captured.map((c) => ({ kind: / count\(\*\) /.test(c.sql) ? 'counts' : /^select distinct/.test(c.sql) ? 'types' : 'rows', sql: c.sql, params: c.parameters }));
}

async function timed(database: BenchDatabase, text: string, params: readonly unknown[]): Promise<number> {
  const t0 = performance.now();
  await database.pool.query(text, params as unknown[]);
  return performance.now() - t0;
}

const PLAN_NOISE = /^\s*(Worker \d|Sort Method|Batches|Planning:|Buffers: shared hit=\d+$)/;

async function explain(database: BenchDatabase, s: Stmt): Promise<string[]> {
  const res = await database.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${s.sql}`, s.params as unknown[]);
  return res.rows.map((r) => r['QUERY PLAN']).filter((l) => !PLAN_NOISE.test(l));
}

function summary(name: string, xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  return `  ${name.padEnd(34)} p50 ${percentile(s, 50).toFixed(1).padStart(6)}  p95 ${percentile(s, 95).toFixed(1).padStart(6)}  max ${s.at(-1)!.toFixed(1).padStart(6)} ms`;
}

export async function diagnose(database: BenchDatabase, organizationId: string, run: IocsRun): Promise<void> {
  const out = (l = '') => console.log(l);
  out('\n=== --explain: EXPLAIN (ANALYZE, BUFFERS) of the slowest requests ===');
  for (const slow of run.slowest.slice(0, 3)) {
    out(`\n${urlFor(slow.query)}  (${slow.ms.toFixed(1)} ms in the run)`);
    for (const s of await capture(database, organizationId, slow.query)) {
      out(`-- ${s.kind}: ${s.sql}`);
      for (const line of await explain(database, s)) out(`   ${line}`);
    }
  }

  const queries = buildQueries(run.queries);
  const t: Record<string, number[]> = {};
  const add = (k: string, ms: number) => (t[k] ??= []).push(ms);
  const par = async (texts: Array<[string, readonly unknown[]]>) => {
    const t0 = performance.now();
    await Promise.all(texts.map(([q, p]) => database.pool.query(q, p as unknown[])));
    return performance.now() - t0;
  };
  await sql`CREATE INDEX ${sql.raw(TYPE_INDEX)} ON intel_indicators (organization_id, type)`.execute(database.db);
  await sql`ANALYZE intel_indicators`.execute(database.db);
  try {
    for (const q of queries) {
      const stmts = await capture(database, organizationId, q);
      const by = (k: Kind) => stmts.find((s) => s.kind === k)!;
      const rows = by('rows');
      const counts = by('counts');
      const types = by('types');
      add('rows (as is)', await timed(database, rows.sql, rows.params));
      add('counts (as is)', await timed(database, counts.sql, counts.params));
      add('counts-cap10k', await timed(database, cappedCounts(counts.sql, 10_001), counts.params));
      add('counts-cap1k', await timed(database, cappedCounts(counts.sql, 1_001), counts.params));
      add('types (as is: SELECT DISTINCT)', await timed(database, types.sql, types.params));
      add('types-loose (existing index)', await timed(database, TYPES_LOOSE_SQL, [organizationId]));
      add('types-idx (+ (org, type) index)', await timed(database, TYPES_INDEXED_SQL, [organizationId]));
      const loose: [string, readonly unknown[]] = [TYPES_LOOSE_SQL, [organizationId]];
      add('A. as is', await par([[rows.sql, rows.params], [counts.sql, counts.params], [types.sql, types.params]]));
      add('B. types-loose', await par([[rows.sql, rows.params], [counts.sql, counts.params], loose]));
      add('C. types-loose + counts-cap10k', await par([[rows.sql, rows.params], [cappedCounts(counts.sql, 10_001), counts.params], loose]));
      add('D. types-loose + counts-cap1k', await par([[rows.sql, rows.params], [cappedCounts(counts.sql, 1_001), counts.params], loose]));
      add(`shape: ${q.shape} (B)`, t['B. types-loose']!.at(-1)!);
    }
    const check = await database.pool.query<{ type: string }>(TYPES_LOOSE_SQL, [organizationId]);
    const check2 = await database.pool.query<{ type: string }>(TYPES_INDEXED_SQL, [organizationId]);
    out(`\ntypes-loose → ${check.rows.map((r) => r.type).join(', ')}; types-idx → ${check2.rows.map((r) => r.type).join(', ')}`);
  } finally {
    await sql`DROP INDEX IF EXISTS ${sql.raw(TYPE_INDEX)}`.execute(database.db);
  }
  // The rows statement's plan choice (walk the (org, created_at) index and filter, or bitmap + sort)
  // hinges on the ILIKE selectivity estimate; try a finer histogram, then per-status/type order indexes.
  const rowsPhase = async (label: string, setup: string[]) => {
    for (const s of setup) await sql`${sql.raw(s)}`.execute(database.db);
    for (const q of queries) {
      const rows = (await capture(database, organizationId, q)).find((s) => s.kind === 'rows')!;
      add(label, await timed(database, rows.sql, rows.params));
    }
  };
  try {
    await rowsPhase('rows (as is, again)', []);
    await rowsPhase('rows + statistics 1000', ['ALTER TABLE intel_indicators ALTER COLUMN normalized_value SET STATISTICS 1000', 'ANALYZE intel_indicators']);
    await rowsPhase('rows + stats + status/type order idx', [...ORDER_INDEXES.map(([n, cols]) => `CREATE INDEX ${n} ON intel_indicators ${cols}`), 'ANALYZE intel_indicators']);
  } finally {
    for (const [n] of ORDER_INDEXES) await sql`DROP INDEX IF EXISTS ${sql.raw(n)}`.execute(database.db);
    await sql`ALTER TABLE intel_indicators ALTER COLUMN normalized_value SET STATISTICS -1`.execute(database.db);
    await sql`ANALYZE intel_indicators`.execute(database.db);
  }
  out(`\n=== each statement alone, over the ${queries.length} queries (SQL only, no HTTP) ===`);
  for (const k of Object.keys(t).filter((k) => !/^[A-D]\.|^shape/.test(k))) out(summary(k, t[k]!));
  out('\n=== the 3 statements in parallel as IocsService.list runs them (≈ request latency minus HTTP) ===');
  for (const k of Object.keys(t).filter((k) => /^[A-D]\./.test(k))) out(summary(k, t[k]!));
  out('\n=== B (types-loose only) by query shape ===');
  for (const k of Object.keys(t).filter((k) => k.startsWith('shape'))) out(summary(k.slice(7), t[k]!));
  out(`\nrun (HTTP, as is): p50 ${run.p50Ms.toFixed(1)} ms, p95 ${run.p95Ms.toFixed(1)} ms`);
  out(`\ntypes-loose SQL:\n${TYPES_LOOSE_SQL}\n`);
}
