import type { Migration } from 'kysely';
import * as m0023 from './0023_console_sessions.js';
import * as m0050 from './0050_console_address.js';
import * as m0141 from './0141_console_sign_in_settings.js';

/**
 * The sessions module's migrations, given to the migrator by its manifest (`migrations`). The
 * four-digit prefix is the global order across every module and platform (src/migrations.ts);
 * the name is what installed databases recorded, so it never changes. A static list (rather
 * than reading the folder) works the same under tsx, compiled output and bundlers. Never edit a
 * migration that has shipped: add a new one.
 */
export const migrations: Record<string, Migration> = {
  '0023_console_sessions': m0023,
  '0050_console_address': m0050,
  '0141_console_sign_in_settings': m0141,
};
