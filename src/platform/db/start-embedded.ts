import type { Logger } from 'pino';
import { startEmbeddedDatabase, type EmbeddedDatabase } from './embedded.js';
import { databaseHealth } from './health.js';

/**
 * The embedded PostgreSQL as every role starts it: in the data directory, on the configured
 * port, its restarts counted for /metrics, and an exit when it cannot be brought back. Its own
 * small module so that `rampart start|serve|worker` can call it before loading the rest of the
 * server (src/main.ts): the postmaster is spawned in this call (platform/db/postmaster.ts) and
 * starts while Node compiles the code (issue 50: `npm start` → ready < 1 s).
 */
export function startConfiguredEmbeddedDatabase(
  config: { dataDir: string; embeddedPgPort: number },
  logger: Logger,
  opts: { attachIfRunning?: boolean; ownProcessGroup?: boolean } = {},
): Promise<EmbeddedDatabase> {
  return startEmbeddedDatabase(config.dataDir, {
    preferredPort: config.embeddedPgPort,
    attachIfRunning: opts.attachIfRunning ?? false,
    ownProcessGroup: opts.ownProcessGroup ?? false,
    log: (m) => logger.warn(m),
    onRestart: ({ ok }) => {
      databaseHealth.embeddedRestarts[ok ? 'ok' : 'failed']++;
    },
    // A database that cannot be brought back: exit non-zero so a supervisor restarts us.
    onGiveUp: (err) => {
      logger.fatal({ err }, 'the embedded PostgreSQL could not be restarted; exiting so a supervisor can restart Rampart');
      process.exit(1);
    },
  });
}
