import { randomBytes } from 'node:crypto';
import type pg from 'pg';

/**
 * Rampart needs every pooled connection to be one PostgreSQL session from checkout to release:
 * webhook intake's statements and graphile-worker's are named prepared statements, cache
 * invalidation LISTENs, and the job runner holds session state. A pooler that hands a client a
 * different server connection per transaction (PgBouncer's `pool_mode = transaction`) or per
 * statement (`statement`) breaks all of them late and confusingly (issue 46): this check, run
 * before anything else at start, refuses such a connection within a few seconds instead.
 *
 * It holds two clients at once. Between two statements of client A, client B opens a
 * transaction: a pooler without sessions must then give A's second statement another server
 * connection (the first one is busy with B's transaction). With sessions, A keeps its own
 * server throughout. Three things are checked on A across that gap: the backend pid, a named
 * prepared statement, and a LISTEN that must receive its own NOTIFY.
 */
export class SessionCheckError extends Error {
  constructor(readonly reason: string) {
    super(
      `the database connection does not keep sessions (${reason}). Rampart needs one PostgreSQL session per pooled connection: ` +
        'named prepared statements (webhook intake, graphile-worker), LISTEN/NOTIFY (cache invalidation) and session state. ' +
        'This is what PgBouncer does in pool_mode = transaction or statement. Fix: set pool_mode = session for Rampart\'s database in pgbouncer.ini ' +
        '(e.g. `rampart = host=… dbname=… pool_mode=session` under [databases]), or point DATABASE_URL at PostgreSQL directly (docs/operations.md, "Connection poolers").',
    );
    this.name = 'SessionCheckError';
  }
}

/**
 * The server never answered the check's first connection (a blackholed address, a firewall that
 * drops, a server that accepts and says nothing). Not a pooler's doing: `ETIMEDOUT` lets the
 * start say where it tried (cli/setup-hints.ts) instead of suggesting a pooler.
 */
export class DatabaseNoAnswerError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(seconds: number) {
    super(`no answer within ${seconds} s (nothing accepted the connection, or it was accepted and the server said nothing)`);
    this.name = 'DatabaseNoAnswerError';
  }
}

export interface SessionCheckOptions {
  /** The whole check gives up (and refuses) after this long: a pooler that queues us forever is no better. */
  timeoutMs?: number;
  /** How long client A waits for its own NOTIFY. */
  notifyWaitMs?: number;
}

const CHANNEL = 'rampart_session_check';

export async function assertSessionKept(pool: pg.Pool, opts: SessionCheckOptions = {}): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? 8_000;
  let timer: NodeJS.Timeout | undefined;
  const clients: pg.PoolClient[] = [];
  const seconds = Math.round(timeoutMs / 1000);
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(clients.length ? new SessionCheckError(`the check did not finish within ${seconds} s; a pooler may be queueing the second connection`) : new DatabaseNoAnswerError(seconds)),
      timeoutMs,
    );
  });
  let failed = false;
  try {
    await Promise.race([runChecks(pool, clients, opts.notifyWaitMs ?? 2_000), timeout]);
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    clearTimeout(timer);
    // A client whose session is in doubt is not given back to the pool for reuse.
    for (const c of clients) c.release(failed ? new Error('session check failed') : undefined);
  }
}

async function runChecks(pool: pg.Pool, clients: pg.PoolClient[], notifyWaitMs: number): Promise<void> {
  const a = await pool.connect();
  clients.push(a);
  const b = await pool.connect();
  clients.push(b);
  const token = randomBytes(8).toString('hex');
  const statement = `rampart_session_check_${token}`;

  const firstPid = await backendPid(a);
  await a.query(`LISTEN ${CHANNEL}`);
  await a.query({ name: statement, text: 'SELECT $1::text AS v', values: ['prepared'] });
  const heard = new Promise<boolean>((resolve) => {
    const t = setTimeout(() => resolve(false), notifyWaitMs);
    a.on('notification', (msg) => {
      if (msg.channel === CHANNEL && msg.payload === token) {
        clearTimeout(t);
        resolve(true);
      }
    });
  });

  // B holds a server connection in an open transaction while A goes on.
  try {
    await b.query('BEGIN');
    await b.query('SELECT 1');
  } catch (err) {
    throw new SessionCheckError(`a transaction of two statements was refused (${(err as Error).message}): statement pooling`);
  }
  try {
    const secondPid = await backendPid(a);
    if (secondPid !== firstPid) throw new SessionCheckError(`two statements of one connection ran on two server sessions, backend ${firstPid} then ${secondPid}: transaction pooling`);
    try {
      // pg sends only Bind/Execute for a name it already prepared on this connection.
      await a.query({ name: statement, text: 'SELECT $1::text AS v', values: ['prepared'] });
    } catch (err) {
      throw new SessionCheckError(`a named prepared statement did not survive to the next statement (${(err as Error).message})`);
    }
    await a.query('SELECT pg_notify($1, $2)', [CHANNEL, token]);
    if (!(await heard)) throw new SessionCheckError('a LISTEN did not receive its own NOTIFY');
  } finally {
    await b.query('ROLLBACK').catch(() => {});
  }
  await a.query(`UNLISTEN ${CHANNEL}`);
  await a.query(`DEALLOCATE ${statement}`);
}

async function backendPid(client: pg.PoolClient): Promise<number> {
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return rows[0]!.pid;
}
