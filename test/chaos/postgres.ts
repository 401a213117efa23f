import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A PostgreSQL server of the system (Debian's `postgresql` package: /usr/lib/postgresql/<v>/bin),
 * run on a throw-away cluster the way an operator's external database is: its own process, a
 * TCP port, stopped and started by the test. `PostgresServer.find()` is null when no server is
 * installed (`apt-get install postgresql`); tests that need it skip, saying so.
 *
 * PostgreSQL refuses to run as root: under root the cluster belongs to the `postgres` user the
 * package creates, and its commands run as that user.
 */
export class PostgresServer {
  private constructor(
    readonly binDir: string,
    readonly dir: string,
    readonly port: number,
    private readonly uid: number | undefined,
    private readonly gid: number | undefined,
  ) {}

  static find(): string | null {
    const explicit = process.env.RAMPART_CHAOS_PG_BIN;
    const candidates = explicit
      ? [explicit]
      : fs.existsSync('/usr/lib/postgresql')
        ? fs.readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)).map((v) => `/usr/lib/postgresql/${v}/bin`)
        : [];
    return candidates.find((d) => fs.existsSync(path.join(d, 'initdb')) && fs.existsSync(path.join(d, 'pg_ctl'))) ?? null;
  }

  /** initdb a new cluster (superuser `rampart`, trusted on 127.0.0.1 only) with a `rampart` database, and start it. */
  static async create(binDir: string, port: number): Promise<PostgresServer> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-extpg-'));
    let uid: number | undefined;
    let gid: number | undefined;
    if (process.getuid?.() === 0) {
      uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      fs.chownSync(dir, uid, gid);
    }
    const server = new PostgresServer(binDir, dir, port, uid, gid);
    server.run('initdb', ['-D', server.dataDir, '-U', 'rampart', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    server.start();
    server.run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'rampart', 'rampart']);
    return server;
  }

  get dataDir(): string {
    return path.join(this.dir, 'data');
  }

  get url(): string {
    return `postgres://rampart@127.0.0.1:${this.port}/rampart`;
  }

  start(): void {
    // fsync off: a test cluster; the socket directory in the cluster's own folder.
    const opts = `-p ${this.port} -c listen_addresses=127.0.0.1 -k ${this.dir} -c fsync=off -c max_connections=200`;
    this.run('pg_ctl', ['-D', this.dataDir, '-o', opts, '-l', path.join(this.dir, 'server.log'), '-w', 'start']);
  }

  /** `fast`: clients are disconnected, as in a restart or a failover. */
  stop(mode: 'fast' | 'immediate' = 'fast'): void {
    this.run('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', 'stop']);
  }

  destroy(): void {
    spawnSync(path.join(this.binDir, 'pg_ctl'), ['-D', this.dataDir, '-m', 'immediate', 'stop'], { uid: this.uid, gid: this.gid, stdio: 'ignore' });
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private run(cmd: string, args: string[]): void {
    const r = spawnSync(path.join(this.binDir, cmd), args, { uid: this.uid, gid: this.gid, encoding: 'utf8', cwd: this.dir });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
  }
}
