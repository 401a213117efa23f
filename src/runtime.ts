import type { Logger } from 'pino';
import type { Config } from './config.js';
import { openDatabase, type DatabaseHandle } from './platform/db/database.js';
import type { EmbeddedDatabase } from './platform/db/embedded.js';
import { startConfiguredEmbeddedDatabase } from './platform/db/start-embedded.js';
import { migrateToLatest } from './migrations.js';
import { assertSessionKept } from './platform/db/session-check.js';
import { startStep } from './platform/start-steps.js';
import { seedReferenceData } from './seed.js';
import { createAuthenticator, type Authenticator } from './platform/auth/authenticator.js';
import { createInvalidationBus, type InvalidationBus } from './platform/cache/invalidation-bus.js';
import { createSecretBox, loadSecretKey, type SecretBox } from './platform/secrets.js';
import { createGuardedClient, type GuardedClient } from './platform/outbound/index.js';

/**
 * The shared runtime of every role: the database (embedded or external), migrations, the
 * secret box and the authenticator. Roles (serve, worker, admin) build on it.
 */
export interface Runtime {
  config: Readonly<Config>;
  logger: Logger;
  database: DatabaseHandle;
  secrets: SecretBox;
  authenticator: Authenticator;
  /** Invalidations of in-process caches (auth, destinations): `invalidation.listen(pool)` in API roles. */
  invalidation: InvalidationBus;
  /** The SSRF-guarded client every outbound call goes through. */
  http: GuardedClient;
  close(): Promise<void>;
}

export async function openRuntime(
  config: Readonly<Config>,
  logger: Logger,
  opts: {
    attachIfRunning?: boolean;
    migrate?: boolean;
    poolSize?: number;
    /** The embedded database's start, already begun by the caller (startConfiguredEmbeddedDatabase); ignored with DATABASE_URL. */
    embedded?: Promise<EmbeddedDatabase> | null;
  } = {},
): Promise<Runtime> {
  let embedded: EmbeddedDatabase | null = null;
  let connectionString = config.databaseUrl;
  if (!connectionString) {
    // Begun by the caller already (src/main.ts starts it before loading this module), or now.
    embedded = await (opts.embedded ?? startConfiguredEmbeddedDatabase(config, logger, { attachIfRunning: opts.attachIfRunning ?? false }));
    connectionString = embedded.connectionString;
    startStep(logger, 'embedded PostgreSQL ready', { dataDir: config.dataDir, owner: embedded.owner });
  }
  const database = openDatabase(connectionString, { max: opts.poolSize ?? 20 });
  try {
    // An external database may sit behind a pooler: refuse one that does not keep sessions now,
    // in seconds and saying why, rather than hang on a lock or fail requests later (issue 46).
    if (config.databaseUrl) await assertSessionKept(database.pool);
    if (opts.migrate !== false) {
      const { applied } = await migrateToLatest(database.db, database.pool, { seed: seedReferenceData });
      if (applied.length) logger.info({ applied }, 'migrations applied');
    }
  } catch (err) {
    await database.close();
    await embedded?.stop();
    throw err;
  }
  const secrets = createSecretBox(loadSecretKey(config.secretKey, config.dataDir));
  if (!config.secretKey && config.databaseUrl) {
    logger.warn({ file: `${config.dataDir}/secret-key` }, 'RAMPART_SECRET_KEY is not set: using a key generated in the data dir; every instance on this database must use the same key');
  }
  const invalidation = createInvalidationBus({
    onError: (err) => logger.warn({ err }, 'cache invalidation listener error (on a lost connection: caches dropped and bypassed until it is back, reconnecting)'),
    onReconnected: () => logger.info('cache invalidation listener reconnected; caches in use again'),
    heartbeatMs: config.invalidationHeartbeatMs,
    onHeartbeatLost: () =>
      logger.error(
        { channel: 'rampart_invalidation_heartbeat', afterMs: config.invalidationHeartbeatMs },
        'cache invalidation: this process no longer hears its own NOTIFY heartbeat; caches bypassed until it is heard again (a pooler not in session mode, or a stuck server backend); /readyz says "deaf"',
      ),
    onHeartbeatBack: () => logger.info('cache invalidation heartbeat heard again; caches in use again'),
  });
  return {
    config,
    logger,
    database,
    secrets,
    authenticator: createAuthenticator(database.db, { bus: invalidation }),
    invalidation,
    http: createGuardedClient({ allowPrivateNetworks: config.allowPrivateNetworks }),
    async close() {
      await database.close();
      await embedded?.stop();
    },
  };
}
