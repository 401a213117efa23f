/**
 * The HTTP bench's servers run as child processes (bench/servers/*.ts) so that the load
 * generator, the app under test and the baseline never share an event loop. This file spawns
 * them, talks to them over IPC (bench/servers/ipc.ts), waits for readiness and stops them; every
 * child is also registered with the bench cleanup, so a failure or Ctrl-C kills it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { buildServer, SERVER_DIST } from '../../scripts/build-server.js';
import type { FromChild, ToChild } from '../servers/ipc.js';
import { onCleanup } from './harness.js';

const BENCH_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPO = path.resolve(BENCH_DIR, '..');

export interface ChildServer {
  name: string;
  child: ChildProcess;
  origin: string;
  spawnedAt: number;
  /** In-process, from the first line of the child's script to listening. */
  startupMs: number;
  exited: Promise<number | null>;
  ask(msg: ToChild, reply: FromChild['type'], timeoutMs?: number): Promise<FromChild>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * How a child runs: the compiled build, as `bin/rampart.js` runs the service (built here first
 * when the sources changed, so start-up and memory are measured on what users run), or the
 * TypeScript through tsx with RAMPART_RUN_FROM_SOURCE=1.
 */
async function childArgs(script: string): Promise<string[]> {
  if (process.env.RAMPART_RUN_FROM_SOURCE === '1') return ['--import', 'tsx', path.join(BENCH_DIR, 'servers', script)];
  await buildServer({ ifStale: true });
  return [path.join(SERVER_DIST, 'bench/servers', script.replace(/\.ts$/, '.js'))];
}

/** Spawns bench/servers/<script> with a minimal environment plus `env`; stdout goes to `stdoutFile` or nowhere. */
export async function startChildServer(name: string, script: string, env: Record<string, string>, stdoutFile: string | null): Promise<ChildServer> {
  const port = await freePort();
  const args = await childArgs(script);
  const stdoutFd = stdoutFile ? fs.openSync(stdoutFile, 'a') : 'ignore';
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.homedir(), TMPDIR: os.tmpdir(), NODE_ENV: 'production', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', stdoutFd, 'pipe', 'ipc'],
  });
  if (typeof stdoutFd === 'number') fs.closeSync(stdoutFd);
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (d: string) => {
    stderr = (stderr + d).slice(-16_384);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const stop = onCleanup(async () => {
    if (!alive()) return;
    try {
      child.send({ type: 'stop' } satisfies ToChild); // a clean stop lets a CPU profile be written
    } catch {
      /* channel already closed */
    }
    const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 8_000))]);
    if (code === 'timeout' && alive()) child.kill('SIGKILL');
  });

  const waiters = new Map<string, (m: FromChild) => void>();
  child.on('message', (m: FromChild) => {
    const w = waiters.get(m.type);
    if (w) {
      waiters.delete(m.type);
      w(m);
    }
  });
  const ask = (msg: ToChild | null, reply: FromChild['type'], timeoutMs = 60_000) =>
    new Promise<FromChild>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name}: no "${reply}" message within ${timeoutMs} ms\n${stderr}`)), timeoutMs);
      waiters.set(reply, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited (code ${code}) while waiting for "${reply}"\n${stderr}`));
      });
      if (msg) child.send(msg);
    });
  try {
    const listening = (await ask(null, 'listening')) as Extract<FromChild, { type: 'listening' }>;
    return { name, child, origin: `http://127.0.0.1:${port}`, spawnedAt, startupMs: listening.startupMs, exited, ask, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Polls /readyz from the moment of spawning; returns ms from spawn to the first 200. */
export async function waitReady(server: ChildServer, timeoutMs = 60_000): Promise<number> {
  let dead = false;
  void server.exited.then(() => (dead = true));
  const deadline = server.spawnedAt + timeoutMs;
  while (performance.now() < deadline && !dead) {
    try {
      const res = await request(`${server.origin}/readyz`, { headersTimeout: 2_000, bodyTimeout: 2_000 });
      await res.body.dump();
      if (res.statusCode === 200) return performance.now() - server.spawnedAt;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${server.origin}/readyz did not answer 200 ${dead ? '(server exited)' : `within ${timeoutMs} ms`}`);
}

export async function memoryOf(server: ChildServer): Promise<Extract<FromChild, { type: 'memory' }>> {
  return (await server.ask({ type: 'memory' }, 'memory', 5_000)) as Extract<FromChild, { type: 'memory' }>;
}

/** V8 CPU profile of the child's main thread over exactly [start, stop] (BENCH_CPU_PROF). */
export async function profileStart(server: ChildServer): Promise<void> {
  await server.ask({ type: 'profile-start' }, 'profile-started', 10_000);
}

export async function profileStop(server: ChildServer, file: string): Promise<void> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await server.ask({ type: 'profile-stop', file }, 'profile-saved', 30_000);
}

/**
 * The real service (`rampart serve`, as rampart.ts runs it) as `server-a` on a bench's
 * PostgreSQL, its log in the database's folder, with no rate limit (a bench is one client
 * address). `env` adds to or overrides the defaults (LOG_LEVEL from BENCH_LOG_LEVEL, else info).
 */
export function startRampartServer(database: { connectionString: string; dataDir: string }, env: Record<string, string> = {}): Promise<ChildServer> {
  return startChildServer(
    'server-a',
    'rampart.ts',
    {
      DATABASE_URL: database.connectionString,
      RAMPART_SECRET_KEY: randomBytes(32).toString('base64url'),
      RAMPART_DATA_DIR: path.join(database.dataDir, 'rampart-a'),
      RAMPART_RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'info',
      ...env,
    },
    path.join(database.dataDir, 'server-a.log'),
  );
}
