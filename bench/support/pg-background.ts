/**
 * PostgreSQL's CPU that no statement reports: autovacuum. A bench that counts every PostgreSQL
 * process's CPU (cpuSeconds with children) pays for the background vacuum and analyze its own
 * writes trigger, in whichever phase they happen to run; pg_stat_statements does not see them.
 * These two say how much of a phase's PostgreSQL CPU was background work:
 * - tableActivity: autovacuum and autoanalyze runs per table (pg_stat_user_tables), read at each
 *   phase's end and subtracted;
 * - sampleAutovacuumCpu: the CPU of the postmaster's autovacuum workers, sampled from /proc every
 *   50 ms (a worker's last < 50 ms before it exits is missed: a lower bound; Linux only, 0 elsewhere).
 */
import fs from 'node:fs';
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

const CLK_TCK = 100;

function childrenOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function cpuOf(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / CLK_TCK;
  } catch {
    return null;
  }
}

/** Samples the autovacuum workers' CPU until stopped; `seconds()` is the total seen so far. */
export function sampleAutovacuumCpu(postmasterPid: number | null): { seconds: () => number; stop: () => void } {
  const seen = new Map<number, number>(); // worker pid → its CPU at the last sample
  const isWorker = new Map<number, boolean>(); // pid → whether its title is an autovacuum worker's
  const sample = () => {
    if (!postmasterPid) return;
    const children = childrenOf(postmasterPid);
    for (const pid of isWorker.keys()) if (!children.includes(pid)) isWorker.delete(pid); // exited: its pid may come back as another process
    for (const pid of children) {
      let worker = isWorker.get(pid);
      if (worker === undefined) {
        try {
          worker = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('autovacuum worker');
        } catch {
          continue;
        }
        isWorker.set(pid, worker);
      }
      if (!worker) continue;
      const cpu = cpuOf(pid);
      if (cpu !== null) seen.set(pid, cpu);
    }
  };
  sample();
  const timer = setInterval(sample, 50);
  timer.unref();
  return {
    seconds: () => {
      sample();
      let total = 0;
      for (const s of seen.values()) total += s;
      return total;
    },
    stop: () => clearInterval(timer),
  };
}
