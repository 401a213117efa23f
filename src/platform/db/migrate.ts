import { Migrator, sql, type Migration } from 'kysely';
import { Logger, runMigrations as runWorkerMigrations } from 'graphile-worker';
import type pg from 'pg';
import type { Database } from './database.js';

// Any constant works; it only has to be the same for every Rampart instance on this database.
const MIGRATION_LOCK_ID = 7_241_305_001;

/** Where a migration comes from: platform's own folder or a module's (its manifest's `migrations`). */
export interface MigrationSource {
  owner: string;
  migrations?: Readonly<Record<string, Migration>>;
}

const MIGRATION_NAME = /^(\d{4})_[a-z0-9_]+$/;

/**
 * Every module's and platform's migrations as one list in global order: the four-digit prefix,
 * then the name (what installed databases recorded, so names never change; only a file's
 * folder may). Throws, naming both owners, when one number is used twice (parallel work landed
 * two migrations on one number: the later one takes the next free number before it ships), and
 * when a name has no four-digit prefix.
 */
export function collectMigrations(sources: readonly MigrationSource[]): Record<string, Migration> {
  const byNumber = new Map<string, { name: string; owner: string }>();
  const all: Array<[string, Migration]> = [];
  for (const { owner, migrations } of sources) {
    for (const [name, migration] of Object.entries(migrations ?? {})) {
      const number = MIGRATION_NAME.exec(name)?.[1];
      if (!number) throw new Error(`Migration "${name}" of ${owner} is not named NNNN_what (a four-digit number, then lower-case words joined by _)`);
      const other = byNumber.get(number);
      if (other) throw new Error(`Migration number ${number} is used twice: ${other.name} (${other.owner}) and ${name} (${owner}); give the one not yet shipped the next free number`);
      byNumber.set(number, { name, owner });
      all.push([name, migration]);
    }
  }
  return Object.fromEntries(all.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

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
export async function applyMigrations(
  db: Database,
  pool: pg.Pool,
  opts: { migrations: Readonly<Record<string, Migration>>; seed?: (db: Database) => Promise<void> },
): Promise<{ applied: string[] }> {
  const { migrations } = opts;
  const lockClient = await pool.connect();
  try {
    await lockClient.query('BEGIN');
    // Migrations can take a while: a server-wide idle-in-transaction timeout must not end the lock early.
    await lockClient.query("SET LOCAL idle_in_transaction_session_timeout = 0");
    await lockClient.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_ID]);
    await refuseMissing(db, migrations);
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

/**
 * A migration this database recorded as applied that no module (nor platform) gives any more
 * means the code is not the code that built the schema: a module left out of
 * src/composition.ts, a manifest without its `migrations`, a file dropped from its folder's
 * index.ts. Refused at start, naming them, before anything runs.
 */
async function refuseMissing(db: Database, migrations: Readonly<Record<string, Migration>>): Promise<void> {
  const { rows: table } = await sql<{ present: boolean }>`SELECT to_regclass('kysely_migration') IS NOT NULL AS present`.execute(db);
  if (!table[0]?.present) return;
  const { rows } = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(db);
  const missing = rows.map((r) => r.name).filter((name) => !(name in migrations));
  if (missing.length) {
    throw new Error(
      `This database has applied migration${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which no module or platform provides: ` +
        `is a module missing from src/composition.ts, or its manifest's \`migrations\`, or a file from its migrations/index.ts?`,
    );
  }
}

function silentLogger(): Logger {
  return new Logger(() => () => {});
}
