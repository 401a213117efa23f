import type { Config } from '../config.js';

/**
 * What the `rampart` command tells an operator setting up several processes on one database
 * (docs/operations.md, production layout).
 */

/**
 * On an external database, several processes usually share it: every one must hand out the
 * same public address (webhook URLs, sign-in links, links in delivered messages), so an unset
 * RAMPART_BASE_URL, which falls back to the process's own HOST:PORT, is worth a warning.
 */
export function baseUrlWarning(config: Pick<Config, 'databaseUrl' | 'baseUrlConfigured'>): string | null {
  if (!config.databaseUrl || config.baseUrlConfigured) return null;
  return "RAMPART_BASE_URL is not set: webhook URLs, sign-in links and links in delivered messages use this process's own address. Processes sharing a database (several APIs behind a proxy, workers) must all set it to the one public address";
}

/** After `migrate`, when no organization exists yet: how to get the first one and its admin key. */
export const FIRST_ORGANIZATION_HINT =
  'No organization exists yet. Create the first one and its admin API key (printed once) with:\n' +
  '  rampart admin org create --name "My organization" --admin-email admin@example.com\n' +
  'Otherwise the first process to start creates a default one and writes its key to <RAMPART_DATA_DIR>/bootstrap-api-key on its own host.\n';
