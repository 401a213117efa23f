import type { Migration } from 'kysely';
import * as m0021 from './0021_run_trigger_context.js';
import * as m0060 from './0060_run_agent_snapshot.js';

/**
 * The runs module's migrations, given to the migrator by its manifest (`migrations`). The
 * four-digit prefix is the global order across every module and platform (src/migrations.ts);
 * the name is what installed databases recorded, so it never changes. A static list (rather
 * than reading the folder) works the same under tsx, compiled output and bundlers. Never edit a
 * migration that has shipped: add a new one.
 *
 * Beyond this module's tables (a change that spans them stays with the module it is about): 0021 also adds agent_triggers' input_mapping and delivery_id_pointer.
 */
export const migrations: Record<string, Migration> = {
  '0021_run_trigger_context': m0021,
  '0060_run_agent_snapshot': m0060,
};
