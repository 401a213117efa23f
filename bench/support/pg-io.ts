/**
 * BENCH_PG_IO=1: what the client backends wrote themselves over a timed run, from PostgreSQL's
 * own counters (pg_stat_io, pg_stat_wal; PostgreSQL 16+). Why: a `perf` profile of the ingest's
 * backends (docs/performance-history.md, 2026-11-29) spent ~16% of their CPU in pwrite and ~10%
 * extending relations, and the embedded server has no frame pointers to say which writes those
 * are (relation extension, dirty buffers evicted by the backend, or WAL written when the WAL
 * buffers are full). These counters say it.
 */
import { sql } from 'kysely';
import type { Database } from '../../src/platform/db/database.js';

export const PG_IO = /^(1|true|yes)$/i.test(process.env.BENCH_PG_IO ?? '');

interface IoRow {
  key: string;
  value: number;
}

/** Cumulative counters, one row each: `io <object>/<context> <op>` and `wal <counter>`. */
export async function ioSnapshot(db: Database): Promise<Map<string, number>> {
  await sql`SELECT pg_stat_force_next_flush()`.execute(db);
  const { rows } = await sql<IoRow>`
    SELECT 'io ' || object || '/' || context || ' ' || op AS key, n::float8 AS value
    FROM pg_stat_io, LATERAL (VALUES ('writes', writes), ('extends', extends), ('evictions', evictions), ('fsyncs', fsyncs)) AS v(op, n)
    WHERE backend_type = 'client backend' AND n IS NOT NULL
    UNION ALL
    SELECT 'wal ' || k, v::float8 FROM pg_stat_wal,
      LATERAL (VALUES ('records', wal_records), ('fpi', wal_fpi), ('bytes', wal_bytes), ('buffers_full', wal_buffers_full), ('write', wal_write), ('sync', wal_sync)) AS w(k, v)`.execute(db);
  return new Map(rows.map((r) => [r.key, Number(r.value)]));
}

/** The counters that moved between two snapshots, per operation (e.g. per entry). */
export function ioReport(before: Map<string, number>, after: Map<string, number>, ops: number, unit: string): string {
  const lines: string[] = [];
  for (const [key, value] of after) {
    const delta = value - (before.get(key) ?? 0);
    if (delta > 0) lines.push(`  ${key.padEnd(40)} ${(delta / ops).toFixed(3).padStart(12)} per ${unit}  (${delta})`);
  }
  return `pg_stat_io (client backends) and pg_stat_wal over the run:\n${lines.join('\n')}`;
}
