import { Migrator, type MigrationResult } from 'kysely';
import { migrations } from '../../src/migrations.js';
import type { Database } from '../../src/platform/db/database.js';

/**
 * For migration tests: a database brought to one migration, checked there, then taken up (the
 * app's `migrateToLatest`) or down. Names are checked against the code's list, so a typo or a
 * renamed migration fails here instead of migrating to some other point.
 */

function migratorUpTo(db: Database, name: string): Migrator {
  if (!(name in migrations)) throw new Error(`no migration named ${name}`);
  // Unordered: a database migrated further by an earlier step of the test is not refused.
  return new Migrator({ db, provider: { getMigrations: async () => Object.fromEntries(Object.entries(migrations).filter(([n]) => n <= name)) }, allowUnorderedMigrations: true });
}

function check(what: string, { error, results }: { error?: unknown; results?: MigrationResult[] }): MigrationResult[] {
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`${what} failed${failed ? ` at ${failed}` : ''}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return results ?? [];
}

/** Applies every migration up to and including `name` (a full name, e.g. `0155_intel_vulnerability_store_json`); the names applied. */
export async function migrateTo(db: Database, name: string): Promise<string[]> {
  return check(`migrating to ${name}`, await migratorUpTo(db, name).migrateToLatest()).map((r) => r.migrationName);
}

/** The name of the last migration before the one numbered `number` (e.g. `'0080'`): what a database had just before it. */
export function migrationBefore(number: string): string {
  const before = Object.keys(migrations).filter((n) => n < number).sort();
  if (before.length === 0 || !Object.keys(migrations).some((n) => n.startsWith(`${number}_`))) throw new Error(`no migration numbered ${number}, or none before it`);
  return before[before.length - 1]!;
}

/** Undoes the latest applied migration, which must be `name`; its result. */
export async function migrateDown(db: Database, name: string): Promise<MigrationResult[]> {
  const results = check(`migrating down from ${name}`, await migratorUpTo(db, name).migrateDown());
  if (results[0]?.migrationName !== name) throw new Error(`migrating down undid ${results[0]?.migrationName ?? 'nothing'}, not ${name}`);
  return results;
}
