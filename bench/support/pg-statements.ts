/**
 * BENCH_PG_STATEMENTS=1: the bench's PostgreSQL loads pg_stat_statements, and a bench that
 * supports it prints, for its measured window, every statement's calls and execution time per
 * operation (per request, per entry…), heaviest first: where PostgreSQL's CPU goes, and how many
 * round trips one operation costs. Off by default (the extension's bookkeeping costs a little).
 */
import { sql } from 'kysely';
import type { Database } from '../../src/platform/db/database.js';
import { table } from './report.js';

export const PG_STATEMENTS = /^(1|true|yes)$/i.test(process.env.BENCH_PG_STATEMENTS ?? '');

/** Server flags for startEmbeddedDatabase. */
export const pgStatementsFlags = (): string[] =>
  PG_STATEMENTS ? ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all', '-c', 'pg_stat_statements.max=2000'] : [];

export async function resetStatements(db: Database): Promise<void> {
  if (!PG_STATEMENTS) return;
  await sql`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`.execute(db);
  await sql`SELECT pg_stat_statements_reset()`.execute(db);
}

export interface StatementRow {
  query: string;
  calls: number;
  totalMs: number;
  rows: number;
}

/**
 * The statements run since resetStatements, per `ops` operations, as a printable table (top
 * `limit` by execution time) and rows for latest.json. Statements of the bench's own connection
 * (the parent's checks) are left out by excluding pg_stat_statements' own queries only, so run
 * this before the bench checks its results.
 */
export async function statementReport(db: Database, ops: number, unit: string, limit = 25): Promise<{ text: string; rows: StatementRow[] } | null> {
  if (!PG_STATEMENTS) return null;
  const { rows } = await sql<StatementRow>`
    SELECT query, calls::float8 AS calls, total_exec_time::float8 AS "totalMs", rows::float8 AS rows
    FROM pg_stat_statements
    WHERE query NOT ILIKE '%pg_stat_statements%'
    ORDER BY total_exec_time DESC`.execute(db);
  const totalCalls = rows.reduce((s, r) => s + r.calls, 0);
  const totalMs = rows.reduce((s, r) => s + r.totalMs, 0);
  const body = rows.slice(0, limit).map((r) => [
    (r.calls / ops).toFixed(2),
    ((r.totalMs * 1000) / ops).toFixed(1),
    ((r.totalMs * 1000) / Math.max(1, r.calls)).toFixed(1),
    r.query.replace(/\s+/g, ' ').slice(0, 140),
  ]);
  const text = [
    `\npg_stat_statements over ${ops} ${unit}s: ${(totalCalls / ops).toFixed(2)} statements and ${((totalMs * 1000) / ops).toFixed(0)} µs of execution per ${unit} (top ${Math.min(limit, rows.length)} of ${rows.length} by time)`,
    table([`calls/${unit}`, `µs/${unit}`, 'µs/call', 'statement'], body, [0, 1, 2]),
  ].join('\n');
  return { text, rows };
}
