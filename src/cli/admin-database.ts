import fs from 'node:fs';
import path from 'node:path';
import { CliError } from './config-commands.js';

/**
 * Admin commands (`rampart admin …`) act on an installation that exists. Without `DATABASE_URL`
 * they open the embedded database in `RAMPART_DATA_DIR`; run from another directory or without
 * the server's environment, that would silently create a new, empty database there and answer
 * "no such user" (issue 47 §19). So when no database exists in the data directory, refuse before
 * anything is created, naming the variables to set (exit 1).
 */
export function assertInstalledDatabase(config: { databaseUrl?: string | null | undefined; dataDir: string }): void {
  if (config.databaseUrl) return;
  // The embedded cluster's marker (platform/db/embedded.ts creates `<dataDir>/pg` with initdb).
  if (fs.existsSync(path.join(config.dataDir, 'pg', 'PG_VERSION'))) return;
  throw new CliError(
    `no Rampart database in ${config.dataDir} (RAMPART_DATA_DIR), and DATABASE_URL is not set. ` +
      "Run admin commands with the server's environment: the same RAMPART_DATA_DIR (the embedded database), or its DATABASE_URL. " +
      'To install a new one, run `rampart migrate` first. Nothing was created.',
  );
}
