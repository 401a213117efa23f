import { Migrator } from 'kysely';
import { Logger, runMigrations as runWorkerMigrations } from 'graphile-worker';
import type pg from 'pg';
import type { Database } from './database.js';
import { migrations } from './migrations/index.js';

// Any constant works; it only has to be the same for every Rampart instance on this database.
const MIGRATION_LOCK_ID = 7_241_305_001;

/**
 * Brings the schema (ours and graphile-worker's) up to date. Safe when several instances start
 * at once: a session-level advisory lock serialises them, and the second finds nothing to do.
 */
export async function migrateToLatest(
  db: Database,
  pool: pg.Pool,
  opts: { seed?: (db: Database) => Promise<void> } = {},
): Promise<{ applied: string[] }> {
  const lockClient = await pool.connect();
  try {
    await lockClient.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
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
    await lockClient.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => {});
    lockClient.release();
  }
}

function silentLogger(): Logger {
  return new Logger(() => () => {});
}
