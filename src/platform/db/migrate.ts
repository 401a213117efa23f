import { Migrator } from 'kysely';
import { Logger, runMigrations as runWorkerMigrations } from 'graphile-worker';
import type pg from 'pg';
import type { Database } from './database.js';
import { migrations } from './migrations/index.js';

// Any constant works; it only has to be the same for every Rampart instance on this database.
const MIGRATION_LOCK_ID = 7_241_305_001;

/**
 * Brings the schema (ours and graphile-worker's) up to date. Safe when several instances start
 * at once: an advisory lock serialises them, and the second finds nothing to do.
 *
 * The lock is transaction-scoped (`pg_advisory_xact_lock`), held by a transaction left open on
 * one dedicated connection while the migrations run on others, and committed at the end. It
 * cannot leak: whatever happens (a crash, a lost connection, a pooler handing out server
 * connections per transaction), PostgreSQL releases it with the transaction. A session lock
 * taken and released by two statements could end up held by a pooled server connection forever
 * (issue 46: an API hung at start for minutes behind PgBouncer in transaction mode).
 */
export async function migrateToLatest(
  db: Database,
  pool: pg.Pool,
  opts: { seed?: (db: Database) => Promise<void> } = {},
): Promise<{ applied: string[] }> {
  const lockClient = await pool.connect();
  try {
    await lockClient.query('BEGIN');
    // Migrations can take a while: a server-wide idle-in-transaction timeout must not end the lock early.
    await lockClient.query("SET LOCAL idle_in_transaction_session_timeout = 0");
    await lockClient.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_ID]);
    // Unordered allowed: work merged from parallel branches can land a lower number after a
    // higher one was applied; every migration stands on its own, so each applies once, in name order.
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, allowUnorderedMigrations: true });
    const { error, results } = await migrator.migrateToLatest();
    if (error) {
      const failed = results?.find((r) => r.status === 'Error');
      throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? String(error)}`);
    }
    await runWorkerMigrations({ pgPool: pool, logger: silentLogger() });
    // Reference data (e.g. built-in intel sources) is upserted under the same lock.
    await opts.seed?.(db);
    return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
  } finally {
    // The lock transaction wrote nothing: ending it (either way) releases the lock.
    const ended = await lockClient.query('COMMIT').then(
      () => true,
      () => false,
    );
    // A connection whose transaction could not be ended is not reused.
    lockClient.release(ended ? undefined : new Error('migration lock transaction could not be ended'));
  }
}

function silentLogger(): Logger {
  return new Logger(() => () => {});
}
