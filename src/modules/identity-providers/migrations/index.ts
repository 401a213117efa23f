import type { Migration } from 'kysely';
import * as m0135 from './0135_identity_providers_oidc_scim.js';

/**
 * The identity-providers module's migrations, given to the migrator by its manifest (`migrations`). The
 * four-digit prefix is the global order across every module and platform (src/migrations.ts);
 * the name is what installed databases recorded, so it never changes. A static list (rather
 * than reading the folder) works the same under tsx, compiled output and bundlers. Never edit a
 * migration that has shipped: add a new one.
 *
 * Beyond this module's tables (a change that spans them stays with the module it is about): 0135 also adds console_sessions' 'oidc' method and grants the built-in roles its permissions.
 */
export const migrations: Record<string, Migration> = {
  '0135_identity_providers_oidc_scim': m0135,
};
