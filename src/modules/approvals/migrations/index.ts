import type { Migration } from 'kysely';
import * as m0138 from './0138_tool_approvals.js';
import * as m0145 from './0145_tool_approval_args_as_given.js';

/**
 * The approvals module's migrations, given to the migrator by its manifest (`migrations`). The
 * four-digit prefix is the global order across every module and platform (src/migrations.ts);
 * the name is what installed databases recorded, so it never changes. A static list (rather
 * than reading the folder) works the same under tsx, compiled output and bundlers. Never edit a
 * migration that has shipped: add a new one.
 *
 * Beyond this module's tables (a change that spans them stays with the module it is about): 0138 also adds agent_runs' and agents' approval columns and grants the built-in roles its permissions.
 */
export const migrations: Record<string, Migration> = {
  '0138_tool_approvals': m0138,
  '0145_tool_approval_args_as_given': m0145,
};
