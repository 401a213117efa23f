/**
 * Start-up as a user meets it (issue 50 item 4: `npm start` → `/readyz` 200 < 1 s on a warm
 * install): `npm start` spawned in this checkout against a data directory whose embedded
 * PostgreSQL is already initialised and migrated (one unmeasured first start), polled every
 * 5 ms until `/readyz` answers 200, then stopped with SIGTERM; N times, the median kept. Beside
 * it `node bin/rampart.js start` (the same without npm and the build checks): the difference is
 * what npm and the staleness checks cost. CPU is the whole process tree's (npm, Node, the
 * PostgreSQL processes; user + system, exited children included) at the moment /readyz answered
 * — the figure to trust on a shared machine; wall is reported with the load average.
 *
 * Knobs: BENCH_START_RUNS (7; quick 3).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { envNumber, onCleanup, type BenchContext, type BenchDefinition, type BenchOutcome } from './support/harness.js';
import { table } from './support/report.js';

export const TARGETS = { npmStartReadyMs: 1000 } as const;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** CPU seconds (user + system, reaped children included) of `root` and every live descendant (Linux /proc). */
function treeCpuSeconds(root: number): number {
  const procs = new Map<number, { ppid: number; cpu: number }>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime, stime, cutime, cstime in clock ticks (100 a second on Linux), as bench/support/cpu.ts reads them.
      procs.set(Number(d), { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100 });
    } catch {
      // Exited between the listing and the read: its CPU is in its parent's reaped figures.
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    total += procs.get(pid)?.cpu ?? 0;
    for (const [child, p] of procs) if (p.ppid === pid) stack.push(child);
  }
  return total;
}

/** The live processes of process group `pgid`, with their command names (Linux /proc). */
function groupMembers(pgid: number): Array<{ pid: number; comm: string }> {
  const members: Array<{ pid: number; comm: string }> = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      if (pgrp === pgid) members.push({ pid: Number(d), comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) });
    } catch {
      // Exited between the listing and the read.
    }
  }
  return members;
}

/** Resolves once no process of group `pgid` is left (signal 0 answers ESRCH); SIGKILLs what is left after 60 s. */
async function groupGone(pgid: number): Promise<void> {
  for (const deadline = Date.now() + 60_000; ; ) {
    try {
      process.kill(-pgid, Date.now() > deadline ? 'SIGKILL' : 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

interface StartSample {
  wallMs: number;
  cpuMs: number;
}

/** Spawns `command` (its own process group), waits for /readyz 200, reads the tree's CPU, stops it. */
async function startOnce(command: string[], dataDir: string): Promise<StartSample> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), RAMPART_DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_OPTIONS: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = onCleanup(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    // npm and the server, not the embedded PostgreSQL: npm does not pass SIGTERM on to the server
    // it runs, and a SIGTERM reaching PostgreSQL directly starts its smart shutdown, which
    // refuses the server's own orderly stop. The server stops PostgreSQL itself.
    for (const { pid, comm } of groupMembers(child.pid!)) {
      if (comm === 'postgres') continue;
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // Exited since the listing (npm's `sh -c` once its command ended).
      }
    }
    await exited;
    // npm may exit before the server it ran has stopped PostgreSQL: the next start must not meet
    // this one's data-directory lock, so wait for the whole group.
    await groupGone(child.pid!);
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${command.join(' ')} exited (${child.exitCode}) before it was ready: ${stderr.slice(-2000)}`);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ready) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const wallMs = performance.now() - t0;
    return { wallMs, cpuMs: treeCpuSeconds(child.pid!) * 1000 };
  } finally {
    await stop();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const runs = envNumber('BENCH_START_RUNS', ctx.quick ? 3 : 7);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-bench-start-'));
  const removeDir = onCleanup(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const commands = { 'npm start': [npm, 'start'], 'node bin/rampart.js start': [process.execPath, 'bin/rampart.js', 'start'] } as const;
  try {
    ctx.log('first start: initialises the embedded PostgreSQL and migrates (not measured)');
    await startOnce([...commands['npm start']], dataDir);
    const samples: Record<string, StartSample[]> = { 'npm start': [], 'node bin/rampart.js start': [] };
    const loads: number[] = [];
    // Interleaved, so that the machine's load weighs on both alike.
    for (let i = 0; i < runs; i++) {
      for (const [label, command] of Object.entries(commands)) samples[label]!.push(await startOnce([...command], dataDir));
      loads.push(os.loadavg()[0]!);
    }
    const summary = Object.fromEntries(Object.entries(samples).map(([label, s]) => [label, { wallMs: median(s.map((x) => x.wallMs)), cpuMs: median(s.map((x) => x.cpuMs)) }]));
    const rows = Object.entries(summary).map(([label, m]) => [label, m.wallMs.toFixed(0), m.cpuMs.toFixed(0)]);
    console.log(`\n${table(['command', 'median spawn → /readyz 200 (ms)', 'median CPU of the process tree (ms)'], rows, [1, 2])}`);
    const load = `load average during the runs ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)} (1 min) on ${os.cpus().length} cores`;
    return {
      figures: [
        { name: '`npm start` → /readyz 200, warm (median)', value: summary['npm start']!.wallMs, unit: 'ms', digits: 0, target: { value: TARGETS.npmStartReadyMs, kind: 'max' } },
        { name: '`npm start` → /readyz 200, CPU of the process tree (median)', value: summary['npm start']!.cpuMs, unit: 'ms', digits: 0 },
        { name: '`node bin/rampart.js start` → /readyz 200, warm (median)', value: summary['node bin/rampart.js start']!.wallMs, unit: 'ms', digits: 0 },
        { name: '`node bin/rampart.js start` → /readyz 200, CPU of the process tree (median)', value: summary['node bin/rampart.js start']!.cpuMs, unit: 'ms', digits: 0 },
      ],
      notes: [`${runs} warm starts of each, interleaved, after one unmeasured first start; ${load}`],
      details: { runs, loads, samples },
    };
  } finally {
    await removeDir();
  }
}

export const startBench: BenchDefinition = { name: 'start', title: '`npm start` → /readyz 200 on a warm install', run };
