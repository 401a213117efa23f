/**
 * One measured load slice against one server, with the CPU time each party used meanwhile
 * (Linux /proc; n/a elsewhere). On a shared 2-core machine throughput depends on whatever else
 * runs; CPU time per request depends on it much less, so it is the steadier overhead figure.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ChildServer } from './http-children.js';
import { runLoad, summarize, type LoadResult } from './load.js';

const CLK_TCK = 100; // USER_HZ on Linux

function statFields(pid: string | number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null; // not Linux, or the process exited meanwhile
  }
}

/** utime + stime of one process, in seconds. */
function procCpuSeconds(pid: number | undefined): number | null {
  const f = pid ? statFields(pid) : null;
  return f ? (Number(f[11]) + Number(f[12])) / CLK_TCK : null;
}

/** CPU seconds of the postmaster and its children (backends, walwriter, …), by pid. */
function postgresCpu(postmasterPid: number | null): Map<number, number> {
  const out = new Map<number, number>();
  if (!postmasterPid) return out;
  let pids: string[] = [];
  try {
    pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return out;
  }
  for (const d of pids) {
    const f = statFields(d);
    const pid = Number(d);
    if (f && (pid === postmasterPid || Number(f[1]) === postmasterPid)) out.set(pid, (Number(f[11]) + Number(f[12])) / CLK_TCK);
  }
  return out;
}

/** Busy CPU seconds of the whole machine (all but idle and iowait). */
function machineCpu(): number | null {
  try {
    const v = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    return (v.reduce((a, b) => a + b, 0) - (v[3] ?? 0) - (v[4] ?? 0)) / CLK_TCK;
  } catch {
    return null;
  }
}

export function postmasterPid(clusterDir: string): number | null {
  try {
    const pid = Number.parseInt(fs.readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0] ?? '', 10);
    return Number.isFinite(pid) ? pid : null;
  } catch {
    return null;
  }
}

export interface CpuShare {
  /** Average cores busy over the run (warm-up included); 1.0 = one core all the time. */
  serverCores: number | null;
  postgresCores: number | null;
  loadGeneratorCores: number;
  /** Everything else on the machine: other people's builds and tests, the OS. */
  otherCores: number | null;
  machineBusyCores: number | null;
  /** Server process CPU time per response (warm-up included). */
  serverCpuUsPerRequest: number | null;
  postgresCpuUsPerRequest: number | null;
}

export type RunResult = LoadResult & { cpu: CpuShare };

interface CpuSeconds {
  wall: number;
  server: number | null;
  postgres: number | null;
  loadGenerator: number;
  machine: number | null;
}

export type Slice = Awaited<ReturnType<typeof drive>>;

export interface DriveOptions {
  path: string;
  headers: Record<string, string>;
  connections: number;
  warmupMs: number;
  durationMs: number;
  pgPid: number | null;
}

export async function drive(server: ChildServer, o: DriveOptions) {
  const wall0 = performance.now();
  const s0 = procCpuSeconds(server.child.pid);
  const pg0 = postgresCpu(o.pgPid);
  const m0 = machineCpu();
  const p0 = process.cpuUsage();
  const load = await runLoad({ origin: server.origin, path: o.path, headers: o.headers, connections: o.connections, warmupMs: o.warmupMs, durationMs: o.durationMs });
  const wall = (performance.now() - wall0) / 1000;
  const s1 = procCpuSeconds(server.child.pid);
  const pg1 = postgresCpu(o.pgPid);
  const m1 = machineCpu();
  const p1 = process.cpuUsage(p0);
  let pgS: number | null = pg1.size ? 0 : null;
  for (const [pid, v] of pg1) pgS! += v - (pg0.get(pid) ?? 0);
  const cpu: CpuSeconds = {
    wall,
    server: s0 !== null && s1 !== null ? s1 - s0 : null,
    postgres: pgS,
    loadGenerator: (p1.user + p1.system) / 1e6,
    machine: m0 !== null && m1 !== null ? m1 - m0 : null,
  };
  return { load, cpu };
}

/** One result from several slices of the same server (latency percentiles over all samples). */
export function combine(parts: Slice[]): RunResult {
  const load = summarize(parts.flatMap((p) => p.load.slices));
  const sum = (k: keyof CpuSeconds) => {
    let t = 0;
    for (const p of parts) {
      const v = p.cpu[k];
      if (v === null) return null;
      t += v;
    }
    return t;
  };
  const wall = sum('wall')!;
  const [serverS, pgS, loadS, machineS] = [sum('server'), sum('postgres'), sum('loadGenerator')!, sum('machine')];
  const otherS = machineS !== null && serverS !== null && pgS !== null ? Math.max(0, machineS - serverS - pgS - loadS) : null;
  const per = (v: number | null) => (v === null || !load.totalResponses ? null : (v * 1e6) / load.totalResponses);
  const cores = (v: number | null) => (v === null ? null : v / wall);
  const { slices: _slices, ...result } = load;
  return {
    ...result,
    cpu: {
      serverCores: cores(serverS),
      postgresCores: cores(pgS),
      loadGeneratorCores: loadS / wall,
      otherCores: cores(otherS),
      machineBusyCores: cores(machineS),
      serverCpuUsPerRequest: per(serverS),
      postgresCpuUsPerRequest: per(pgS),
    },
  };
}
