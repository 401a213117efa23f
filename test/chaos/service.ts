import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { waitForReadyz } from '../support/readyz.js';
import { freePort } from '../support/processes.js';
import { until as poll, type Truthy } from '../support/until.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/**
 * A real `rampart <role>` child process on a data dir, as an operator (or a supervisor) runs it:
 * `start` (the default, on its embedded database), or `serve` / `worker` with DATABASE_URL in
 * `env`. Ready: `/readyz` answers 200 (a worker, which has no HTTP: it logged `rampart ready`).
 */
export class Service {
  child: ChildProcess | null = null;
  log = '';
  constructor(
    readonly dataDir: string,
    readonly port: number,
    readonly env: Record<string, string>,
    readonly role: 'start' | 'serve' | 'worker' = 'start',
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(timeoutMs = 90_000): Promise<void> {
    const { DATABASE_URL: _ignored, ...rest } = process.env;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', this.role], {
      cwd: ROOT,
      env: { ...rest, RAMPART_DATA_DIR: this.dataDir, PORT: String(this.port), LOG_LEVEL: 'info', ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout!.on('data', (d) => (this.log += d));
    child.stderr!.on('data', (d) => (this.log += d));
    if (this.role !== 'worker') return waitForReadyz(this.url, { child, log: () => this.log, timeoutMs });
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`rampart exited with ${child.exitCode} during start-up:\n${this.log.slice(-3000)}`);
      if (/rampart ready/.test(this.log)) return;
      await sleep(100);
    }
    throw new Error(`rampart not ready in ${timeoutMs} ms:\n${this.log.slice(-3000)}`);
  }

  kill9(): Promise<void> {
    return this.signal('SIGKILL');
  }

  /** A clean stop (SIGTERM); resolves with the exit code. */
  async stop(): Promise<number | null> {
    await this.signal('SIGTERM');
    return this.child?.exitCode ?? null;
  }

  private async signal(sig: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(sig);
    await exited;
  }

  /** A direct connection to the embedded database (its port and password are in the data dir). */
  async query<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
    const state = JSON.parse(fs.readFileSync(path.join(this.dataDir, 'embedded-pg.json'), 'utf8')) as { port: number; password: string };
    const client = new pg.Client({ host: '127.0.0.1', port: state.port, user: 'rampart', password: state.password, database: 'rampart' });
    await client.connect();
    try {
      return (await client.query<T>(text, values)).rows;
    } finally {
      await client.end();
    }
  }

  postmasterPid(): number | null {
    try {
      const pid = Number.parseInt(fs.readFileSync(path.join(this.dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]!, 10);
      return Number.isFinite(pid) ? pid : null;
    } catch {
      return null;
    }
  }
}

/** PostgreSQL processes whose command line names this data dir (on Linux, through /proc). */
export function postgresProcessesFor(dataDir: string): number[] {
  if (!fs.existsSync('/proc/self')) return [];
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmd.includes('postgres') && cmd.includes(dataDir)) found.push(Number(entry));
    } catch {
      /* gone */
    }
  }
  return found;
}

/** Runs `rampart <args>` to its end (migrate, admin …); rejects on a non-zero exit. */
export function rampart(args: string[], env: Record<string, string>): Promise<{ stdout: string; stderr: string }> {
  const { DATABASE_URL: _ignored, ...rest } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { cwd: ROOT, env: { ...rest, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve({ stdout, stderr }) : reject(new Error(`rampart ${args.join(' ')} exited with ${code}:\n${stderr}`)))),
  );
}

/**
 * The shared poller (test/support/until.ts) with the chaos tests' positional bound and their
 * slower default pace: 250 ms between probes of a service that is being killed and restarted.
 */
export function until<T>(what: string, check: () => Promise<T>, timeoutMs = 60_000, everyMs = 250): Promise<Truthy<T>> {
  return poll(what, check, { timeoutMs, everyMs });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}


/** A small seeded PRNG (mulberry32): the same seed gives the same kill points. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export { freePort };
