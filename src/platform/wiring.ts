import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from '../config.js';
import type { DatabaseHandle } from './db/database.js';
import type { Authenticator } from './auth/authenticator.js';
import type { SecretBox } from './secrets.js';
import type { InvalidationBus } from './cache/invalidation-bus.js';
import type { EventBus } from './events.js';

/**
 * The wiring types shared by the app and every module. They live below the modules so the
 * import graph points one way: main → app → modules/index → modules/* → platform.
 */
export interface AppDeps {
  config: Readonly<Config>;
  database: DatabaseHandle;
  logger: Logger;
  authenticator: Authenticator;
  secrets: SecretBox;
  /** Where in-process caches hear other processes' invalidations; without one, only local invalidation. */
  invalidation?: InvalidationBus;
}

/** What each module's `register…Module` receives. */
export interface ModuleDeps extends AppDeps {
  metrics: Registry;
  /** The service's domain events (platform/events.ts), assembled from every module's subscriptions. */
  events: EventBus;
}
