import type { Migration } from 'kysely';
import * as m0151 from './0151_intel_sync_shards.js';

/**
 * The intel-ingest module's migrations, given to the migrator by its manifest (`migrations`). The
 * four-digit prefix is the global order across every module and platform (src/migrations.ts);
 * the name is what installed databases recorded, so it never changes. Never edit a migration
 * that has shipped: add a new one.
 */
export const migrations: Record<string, Migration> = {
  '0151_intel_sync_shards': m0151,
};
