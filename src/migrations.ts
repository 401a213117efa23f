import type pg from 'pg';
import { MODULES } from './composition.js';
import type { Database } from './platform/db/database.js';
import { applyMigrations, collectMigrations, type MigrationOutcome } from './platform/db/migrate.js';
import { platformMigrations } from './platform/db/migrations/index.js';

/**
 * Every migration, in global order: platform's own (platform/db/migrations) and each module's,
 * given by its manifest (`migrations`, from its `migrations/` folder). Collected once at import:
 * a number used twice throws here, so `rampart migrate`, `rampart start` and every test fail at
 * start naming both files.
 */
export const migrations = collectMigrations([{ owner: 'platform', migrations: platformMigrations }, ...MODULES.map((m) => ({ owner: `module ${m.name}`, migrations: m.migrations }))]);

/**
 * Brings the schema (ours and graphile-worker's) up to date with every module's migrations
 * (platform/db/migrate.ts: one instance at a time under an advisory lock; a migration applied
 * here that no module gives any more is refused at start).
 */
export function migrateToLatest(db: Database, pool: pg.Pool, opts: { seed?: (db: Database) => Promise<unknown> } = {}): Promise<MigrationOutcome> {
  return applyMigrations(db, pool, { ...opts, migrations });
}
