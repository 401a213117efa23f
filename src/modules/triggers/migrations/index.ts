import type { Migration } from 'kysely';
import * as m0005 from './0005_triggers.js';
import * as m0148 from './0148_cron_trigger_timezone.js';

/**
 * The triggers module's migrations, given to the migrator by its manifest (`migrations`). The
 * four-digit prefix is the global order across every module and platform (src/migrations.ts);
 * the name is what installed databases recorded, so it never changes. A static list (rather
 * than reading the folder) works the same under tsx, compiled output and bundlers. Never edit a
 * migration that has shipped: add a new one.
 */
export const migrations: Record<string, Migration> = {
  '0005_triggers': m0005,
  '0148_cron_trigger_timezone': m0148,
};
