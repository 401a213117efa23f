import pg from 'pg';
import { CamelCasePlugin, Kysely, PostgresDialect, type Transaction } from 'kysely';
import type { DB } from './schema.js';
import { preparedName } from './prepared.js';
import { isSessionStateLost } from './errors.js';

// int8 (count(*), bigserial) arrives as a string by default; our counts fit in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));

export type Database = Kysely<DB>;
export type Tx = Transaction<DB>;
/** Either the root handle or a transaction: repos accept both so callers choose the boundary. */
export type Queryable = Kysely<DB>;

export interface DatabaseHandle {
  db: Database;
  pool: pg.Pool;
  connectionString: string;
  close(): Promise<void>;
}

export function openDatabase(connectionString: string, opts: { max?: number } = {}): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString,
    max: opts.max ?? 10,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
    application_name: 'rampart',
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  // Column names map snake_case ↔ camelCase; keys inside jsonb values are data (webhook bodies,
  // STIX objects, tool results) and stay exactly as stored.
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: namingPool(pool) }), plugins: [new CamelCasePlugin({ maintainNestedObjectKeys: true })] });
  let closed = false;
  return {
    db,
    pool,
    connectionString,
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}

/**
 * The pool as Kysely sees it: a statement of prepared.ts goes out under its name (pg prepares it
 * once per connection, then sends only Bind/Execute), anything else as it is.
 */
function namingPool(pool: pg.Pool) {
  const named = (client: pg.PoolClient) => {
    // pg remembers which names it prepared on a connection and then sends only Bind/Execute:
    // once the server says a name is missing (or already there), that memory is wrong for good,
    // so the connection is destroyed at release instead of failing every later use.
    let broken = false;
    return {
      async query(text: unknown, values?: unknown[]) {
        const name = typeof text === 'string' ? preparedName(text) : undefined;
        try {
          return await (name ? client.query({ name, text: text as string, values }) : client.query(text as string, values));
        } catch (err) {
          if (isSessionStateLost(err)) broken = true;
          throw err;
        }
      },
      release: (err?: Error | boolean) => {
        const destroy = broken;
        broken = false;
        client.release(destroy || err);
      },
    };
  };
  // One wrapper per connection: Kysely keys its connection objects by the client it is given.
  const wrappers = new WeakMap<pg.PoolClient, ReturnType<typeof named>>();
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) wrappers.set(client, (wrapper = named(client)));
      return wrapper;
    },
    end: () => pool.end(),
  } as unknown as pg.Pool;
}
