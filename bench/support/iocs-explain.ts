/**
 * `npm run bench -- iocs --explain`: where GET /iocs spends its time, on the bench's own
 * 1,000,000 indicators. Nothing in src/ changes: the SQL is captured from the real IocsService
 * (through a logging Kysely on the same pool), then
 *   1. EXPLAIN (ANALYZE, BUFFERS) of the statements of the 3 slowest requests;
 *   2. the captured statements of every request of the run, timed alone (SQL only, no HTTP),
 *      overall and by query shape, with the mean number of matches per shape.
 * The candidates this file used to time (availableTypes as a loose index scan, capped counts,
 * finer statistics, status/type order indexes) led to migration 0006 and the one-statement
 * search in IocsService.list; see README "Performance".
 */
import { performance } from 'node:perf_hooks';
import { CamelCasePlugin, Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import type { DB } from '../../src/platform/db/schema.js';
import type { RequestContext } from '../../src/platform/context.js';
import { createIocsService } from '../../src/modules/intel/iocs/iocs.service.js';
import { createSearchSampler } from '../../src/modules/intel/iocs/search-sample.repo.js';
import { IocListQuery } from '../../src/modules/intel/iocs/iocs.schemas.js';
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
  /** Requests whose (search, type) was new: they computed the counts the later ones found kept. */
  firstSearch: { n: number; p50Ms: number; p95Ms: number };
  slowest: Array<{ ms: number; query: IocQuery; total: number }>;
  loadSeconds: number;
}

type Stmt = { sql: string; params: readonly unknown[] };

/**
 * Each request is captured by a service of its own, so every statement a search needs is seen (as
 * on its first request: nothing kept). The sample that picks a new search's plan is shared and read
 * outside the capture (the app reads it in the background).
 */
let sampler: ReturnType<typeof createSearchSampler> | null = null;

async function capture(database: BenchDatabase, organizationId: string, q: IocQuery): Promise<{ stmts: Stmt[]; ms: number }> {
  sampler ??= createSearchSampler(database.db);
  const captured: CompiledQuery[] = [];
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: database.pool }), plugins: [new CamelCasePlugin()], log: (e) => void (e.level === 'query' && captured.push(e.query)) });
  const ctx: RequestContext = { actor: { type: 'user', userId: 'bench', organizationId, apiKeyId: 'bench', roleId: 'bench', permissions: new Set() }, requestId: 'bench' };
  const t0 = performance.now();
  const { shape: _shape, ...params } = q; // the bench's label, not a query parameter (the schema is strict)
  await createIocsService({ db, estimate: sampler.estimate }).list(ctx, IocListQuery.parse(params));
  const ms = performance.now() - t0;
  return { stmts: captured.map((c) => ({ sql: c.sql.replace(/\s+/g, ' ').trim(), params: c.parameters })), ms };
}

async function timed(database: BenchDatabase, s: Stmt): Promise<number> {
  const t0 = performance.now();
  await database.pool.query(s.sql, s.params as unknown[]);
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
    out(`\n${urlFor(slow.query)}  (${slow.ms.toFixed(1)} ms in the run, total ${slow.total.toLocaleString('en')})`);
    for (const s of (await capture(database, organizationId, slow.query)).stmts) {
      out(`-- ${s.sql.length > 400 ? `${s.sql.slice(0, 400)}…` : s.sql}`);
      for (const line of await explain(database, s)) out(`   ${line}`);
    }
  }

  const t: Record<string, number[]> = {};
  const add = (k: string, ms: number) => (t[k] ??= []).push(ms);
  for (const q of buildQueries(run.queries)) {
    const { stmts, ms } = await capture(database, organizationId, q);
    add('IocsService.list (no HTTP)', ms);
    let sum = 0;
    for (const s of stmts) sum += await timed(database, s);
    add('its statements, one after another', sum);
    add(`shape: ${q.shape}`, sum);
  }
  out(`\n=== over the ${run.queries} queries of the run ===`);
  for (const k of Object.keys(t).filter((k) => !k.startsWith('shape'))) out(summary(k, t[k]!));
  out('\n=== statements by query shape (mean matches from the run) ===');
  for (const k of Object.keys(t).filter((k) => k.startsWith('shape'))) {
    const shape = k.slice(7);
    out(`${summary(shape, t[k]!)}   ${(run.byShape.find((b) => b.shape === shape)?.meanTotal ?? 0).toLocaleString('en')} matches`);
  }
  out(`\nrun (HTTP): p50 ${run.p50Ms.toFixed(1)} ms, p95 ${run.p95Ms.toFixed(1)} ms\n`);
}
