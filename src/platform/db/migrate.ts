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

/** What applyMigrations did: the migrations it applied, and whether Kysely's Migrator ran at all. */
export interface MigrationOutcome {
  applied: string[];
  /** 'skipped': every migration was already recorded (one query), the warm start's case. */
  migrator: 'ran' | 'skipped';
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
  opts: { migrations: Readonly<Record<string, Migration>>; seed?: (db: Database) => Promise<unknown> },
): Promise<MigrationOutcome> {
  const { migrations } = opts;
  const lockClient = await pool.connect();
  try {
    await lockClient.query('BEGIN');
    // Migrations can take a while: a server-wide idle-in-transaction timeout must not end the lock early.
    await lockClient.query("SET LOCAL idle_in_transaction_session_timeout = 0");
    await lockClient.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_ID]);
    const recorded = await appliedMigrationNames(db);
    refuseMissing(recorded, migrations);
    // A warm start (every migration recorded) skips Kysely's Migrator, whose own lock table,
    // lock row and listing cost several round trips for nothing to do (issue 50: `npm start`).
    const upToDate = Object.keys(migrations).every((name) => recorded.has(name));
    let applied: string[] = [];
    if (!upToDate) {
      // Unordered allowed: work merged from parallel branches can land a lower number after a
      // higher one was applied; every migration stands on its own, so each applies once, in name order.
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, allowUnorderedMigrations: true });
      const { error, results } = await migrator.migrateToLatest();
      if (error) {
        const failed = results?.find((r) => r.status === 'Error');
        throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? String(error)}`);
      }
      applied = (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    }
    // graphile-worker's own check is one query when its schema is current.
    await runWorkerMigrations({ pgPool: pool, logger: silentLogger() });
    // Reference data (e.g. built-in intel sources) is applied under the same lock, when it changed.
    await opts.seed?.(db);
    return { applied, migrator: upToDate ? 'skipped' : 'ran' };
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

/** The migrations this database recorded as applied (none before the first: no table yet). */
async function appliedMigrationNames(db: Database): Promise<Set<string>> {
  try {
    const { rows } = await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(db);
    return new Set(rows.map((r) => r.name));
  } catch (err) {
    // undefined_table: a database never migrated.
    if ((err as { code?: string }).code === '42P01') return new Set();
    throw err;
  }
}

/**
 * A migration this database recorded as applied that no module (nor platform) gives any more
 * means the code is not the code that built the schema: a module left out of
 * src/composition.ts, a manifest without its `migrations`, a file dropped from its folder's
 * index.ts. Refused at start, naming them, before anything runs.
 */
function refuseMissing(recorded: ReadonlySet<string>, migrations: Readonly<Record<string, Migration>>): void {
  const missing = [...recorded].filter((name) => !(name in migrations)).sort();
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
