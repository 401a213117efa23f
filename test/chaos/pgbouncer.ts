import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

/**
 * Debian's PgBouncer (`apt-get install pgbouncer`: /usr/sbin/pgbouncer) in front of a test
 * PostgreSQL, in the pool mode a test names, the way an operator would put it in front of an
 * external database. `PgBouncer.find()` is null when it is not installed; tests skip, saying so.
 * Like PostgreSQL it refuses to run as root: under root it runs as the `postgres` user.
 */
export class PgBouncer {
  private constructor(
    readonly dir: string,
    readonly port: number,
    readonly database: string,
    private readonly child: ChildProcess,
  ) {}

  static find(): string | null {
    const bin = process.env.RAMPART_CHAOS_PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';
    return fs.existsSync(bin) ? bin : null;
  }

  /** A PgBouncer on `port` exposing `database` of the PostgreSQL on `pgPort` (user rampart, trust) in `mode`. */
  static async start(bin: string, opts: { port: number; pgPort: number; database: string; mode: 'session' | 'transaction' | 'statement' }): Promise<PgBouncer> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-pgbouncer-'));
    const ini = [
      '[databases]',
      `${opts.database} = host=127.0.0.1 port=${opts.pgPort} dbname=${opts.database} user=rampart`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${opts.port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${dir}/userlist.txt`,
      `pool_mode = ${opts.mode}`,
      'max_client_conn = 500',
      'default_pool_size = 40',
      `logfile = ${dir}/pgbouncer.log`,
      'ignore_startup_parameters = extra_float_digits,options',
    ].join('\n');
    fs.writeFileSync(path.join(dir, 'pgbouncer.ini'), `${ini}\n`);
    fs.writeFileSync(path.join(dir, 'userlist.txt'), '"rampart" ""\n');
    let ids: { uid?: number; gid?: number } = {};
    if (process.getuid?.() === 0) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      for (const f of ['', 'pgbouncer.ini', 'userlist.txt']) fs.chownSync(path.join(dir, f), uid, gid);
      ids = { uid, gid };
    }
    const child = spawn(bin, [path.join(dir, 'pgbouncer.ini')], { ...ids, stdio: 'ignore', cwd: dir });
    const bouncer = new PgBouncer(dir, opts.port, opts.database, child);
    const deadline = Date.now() + 10_000;
    while (!(await canConnect(opts.port))) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`pgbouncer did not start: ${bouncer.log()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return bouncer;
  }

  get url(): string {
    return `postgres://rampart@127.0.0.1:${this.port}/${this.database}`;
  }

  log(): string {
    try {
      return fs.readFileSync(path.join(this.dir, 'pgbouncer.log'), 'utf8');
    } catch {
      return '';
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((r) => this.child.once('exit', r));
      this.child.kill('SIGKILL');
      await exited;
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
