import type { Migration } from 'kysely';
import * as m0140 from './0140_detect_event_matching.js';
import * as m0157 from './0157_detect_batches_json_text.js';

/**
 * The detect module's migrations, given to the migrator by its manifest (`migrations`). The
 * four-digit prefix is the global order across every module and platform (src/migrations.ts);
 * the name is what installed databases recorded, so it never changes. A static list (rather
 * than reading the folder) works the same under tsx, compiled output and bundlers. Never edit a
 * migration that has shipped: add a new one.
 */
export const migrations: Record<string, Migration> = {
  '0140_detect_event_matching': m0140,
  '0157_detect_batches_json_text': m0157,
};
