import pg from 'pg';
import { CamelCasePlugin, Kysely, PostgresDialect, type Transaction } from 'kysely';
import type { DB } from './schema.js';

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
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), plugins: [new CamelCasePlugin({ maintainNestedObjectKeys: true })] });
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
