import type { Migration } from 'kysely';
import * as m0009 from './0009_run_actors.js';
import * as m0080 from './0080_agent_versions.js';
import * as m0147 from './0147_agent_code_drift.js';

/**
 * The agents module's migrations, given to the migrator by its manifest (`migrations`). The
 * four-digit prefix is the global order across every module and platform (src/migrations.ts);
 * the name is what installed databases recorded, so it never changes. A static list (rather
 * than reading the folder) works the same under tsx, compiled output and bundlers. Never edit a
 * migration that has shipped: add a new one.
 *
 * Beyond this module's tables (a change that spans them stays with the module it is about): 0009 also adds agent_triggers.updated_by; 0080 gives agent_runs their agent_version.
 */
export const migrations: Record<string, Migration> = {
  '0009_run_actors': m0009,
  '0080_agent_versions': m0080,
  '0147_agent_code_drift': m0147,
};
