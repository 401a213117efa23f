/**
 * PostgreSQL's CPU that no statement reports: autovacuum. A bench that counts every PostgreSQL
 * process's CPU (cpuSeconds with children) pays for the background vacuum and analyze its own
 * writes trigger, in whichever phase they happen to run; pg_stat_statements does not see them.
 * These two say how much of a phase's PostgreSQL CPU was background work:
 * - tableActivity: autovacuum and autoanalyze runs per table (pg_stat_user_tables), read at each
 *   phase's end and subtracted;
 * - autovacuumLog: each run's CPU as PostgreSQL logs it (log_autovacuum_min_duration = 0), by table.
 */
import { sql } from 'kysely';
import type { Database } from '../../src/platform/db/database.js';

export type TableActivity = Map<string, { vacuums: number; analyzes: number }>;

/** Autovacuum and autoanalyze runs so far on the tables a phase writes (`names`, and those starting with `prefixes`). */
export async function tableActivity(db: Database, names: string[], prefixes: string[]): Promise<TableActivity> {
  await sql`SELECT pg_stat_clear_snapshot()`.execute(db); // a fresh read, not the transaction's cached one
  const { rows } = await sql<{ relname: string; vacuums: number; analyzes: number }>`
    SELECT relname, autovacuum_count::int AS vacuums, autoanalyze_count::int AS analyzes FROM pg_stat_user_tables
    WHERE relname = ANY(${names}::text[]) OR relname LIKE ANY(${prefixes.map((p) => `${p.replace(/_/g, '\\_')}%`)}::text[])
    ORDER BY relname`.execute(db);
  return new Map(rows.map((r) => [r.relname, { vacuums: r.vacuums, analyzes: r.analyzes }]));
}

/** The runs between two reads, per table that had any: "intel_items 1 vacuum + 2 analyze, …", and the totals. */
export function activityBetween(before: TableActivity, after: TableActivity): { text: string; vacuums: number; analyzes: number } {
  const parts: string[] = [];
  let vacuums = 0;
  let analyzes = 0;
  for (const [name, a] of after) {
    const b = before.get(name) ?? { vacuums: 0, analyzes: 0 };
    const v = a.vacuums - b.vacuums;
    const n = a.analyzes - b.analyzes;
    if (v || n) parts.push(`${name} ${v} vacuum + ${n} analyze`);
    vacuums += v;
    analyzes += n;
  }
  return { text: parts.length ? parts.join(', ') : 'none', vacuums, analyzes };
}

/**
 * Every autovacuum and autoanalyze run in the server's log, each with the CPU it used ("system
 * usage: CPU: user: … s, system: … s"): the exact per-table figure. Pass `flags` to
 * startBenchDatabase as postgresFlags and `onServerLog` as its onServerLog; `take()` returns the
 * runs logged since the last call (tables without database and schema).
 */
export function autovacuumLog(): { flags: string[]; onServerLog: (text: string) => void; take: () => AutovacuumRun[] } {
  let pending = '';
  return {
    flags: ['-c', 'log_autovacuum_min_duration=0'],
    onServerLog: (text) => {
      if (text.includes('automatic ') || pending) pending += text;
    },
    take: () => {
      // Only whole runs: up to the last "system usage" line (a run being written is read next time).
      const end = pending.lastIndexOf('system usage: CPU');
      if (end < 0) return [];
      const eol = pending.indexOf('\n', end);
      const upTo = eol < 0 ? pending.length : eol + 1;
      const text = pending.slice(0, upTo);
      pending = pending.slice(upTo);
      const runs: AutovacuumRun[] = [];
      let current: { kind: 'vacuum' | 'analyze'; table: string } | null = null;
      for (const line of text.split('\n')) {
        const start = /automatic (vacuum|analyze) of table "([^"]+)"/.exec(line);
        if (start) current = { kind: start[1] as 'vacuum' | 'analyze', table: start[2]!.split('.').pop()! };
        const usage = /system usage: CPU: user: ([\d.]+) s, system: ([\d.]+) s/.exec(line);
        if (usage && current) {
          runs.push({ ...current, cpu: Number(usage[1]) + Number(usage[2]) });
          current = null;
        }
      }
      return runs;
    },
  };
}

export interface AutovacuumRun {
  kind: 'vacuum' | 'analyze';
  table: string;
  cpu: number;
}

/** "intel_items vacuum 0.12 s + analyze 0.30 s, …" by table, heaviest first, and the total. */
export function describeRuns(runs: AutovacuumRun[]): { text: string; cpu: number } {
  const byTable = new Map<string, { vacuum: number; analyze: number; n: number }>();
  for (const r of runs) {
    const t = byTable.get(r.table) ?? { vacuum: 0, analyze: 0, n: 0 };
    t[r.kind] += r.cpu;
    t.n++;
    byTable.set(r.table, t);
  }
  const rows = [...byTable].sort((a, b) => b[1].vacuum + b[1].analyze - (a[1].vacuum + a[1].analyze));
  const cpu = runs.reduce((s, r) => s + r.cpu, 0);
  return { text: rows.length ? rows.map(([t, v]) => `${t} vacuum ${v.vacuum.toFixed(2)} s + analyze ${v.analyze.toFixed(2)} s`).join(', ') : 'none', cpu };
}
