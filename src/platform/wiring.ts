import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from '../config.js';
import type { DatabaseHandle } from './db/database.js';
import type { Authenticator } from './auth/authenticator.js';
import type { SecretBox } from './secrets.js';
import type { InvalidationBus } from './cache/invalidation-bus.js';
import type { EventBus } from './events.js';
import type { ToolCatalog } from './agent-tools.js';

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
  /** Every module's agent tools (the tools module lists them; agents check the names an agent lists). */
  tools: ToolCatalog;
  /** The answers higher modules give to lower modules' questions (ModuleReaders). */
  readers: Partial<ModuleReaders>;
}

/**
 * Questions a lower module asks that only a higher one can answer (a destination's delivery
 * health: destinations ask, delivery answers). The asking module declares the question here by
 * declaration merging (`declare module '…/platform/wiring.js'`), with its own types; the
 * answering module's manifest gives it in `readers` (platform/module.ts); the composition root
 * hands the union to every module (`ModuleDeps.readers`, `WorkerDeps.readers`). Dependencies
 * keep pointing down: the answerer imports the asker's types, never the reverse. A reader only
 * reads, and an asker works without its answer (a module used alone).
 */
export interface ModuleReaders {}
