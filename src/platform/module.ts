import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Database } from './db/database.js';
import type { EventBus, Subscriptions } from './events.js';
import type { GuardedClient } from './outbound/guarded-client.js';
import type { JobDefinition } from './jobs/catalog.js';
import type { SecretBox } from './secrets.js';
import type { ToolCatalog } from './agent-tools.js';
import type { ModuleDeps, ModuleReaders } from './wiring.js';

/**
 * A module's manifest: what it owns and what it offers the service, declared in its `index.ts`
 * (`export const xModule = defineModule({...})`) and assembled by the one composition root
 * (src/composition.ts) for each process role: the API (routes, `state`, subscriptions), the
 * worker (jobs, tools, subscriptions) and the scheduler (passes, subscriptions). Nothing is
 * discovered: a module the composition root does not list does not exist.
 */
export interface ModuleManifest<State = undefined, Api = void> {
  /** The module's folder name. */
  name: string;
  /** The tables only this module's SQL names (scripts/table-owners.ts reads the literal array). */
  owns: readonly string[];
  /**
   * API role only: process-local state made once, before the event bus (an in-process cache),
   * shared by this module's routes and its subscriptions. Absent in the worker and scheduler.
   */
  state?: (deps: Omit<ModuleDeps, 'events'>) => State;
  /**
   * Registers the module's HTTP routes (API role). What it returns is the module's API-role
   * commands for modules listed after it (`modules.of(thatModule)`: config apply writes agents,
   * destinations… through their owners' services, in its own transaction).
   */
  routes?: (app: FastifyInstance, deps: ModuleDeps, state: State, modules: ModuleApis) => Api;
  /** The module's job types (worker role). */
  jobs?: (deps: WorkerDeps) => ReadonlyArray<JobDefinition<any>>;
  /** Work the scheduler runs each tick (every pass must be safe to run from several processes). */
  schedulerPasses?: readonly SchedulerPass[];
  /** The built-in agent tools this module implements, by the name agents list them under. */
  tools?: ToolCatalog;
  /**
   * The module's domain-event subscribers (platform/events.ts). The function form gets the
   * module's own `state` and the other modules' (both undefined outside the API role).
   */
  subscribes?: Subscriptions | ((own: State | undefined, states: ModuleStates) => Subscriptions);
  /** The answers this module gives to lower modules' questions (ModuleReaders, platform/wiring.ts). */
  readers?: Partial<ModuleReaders>;
}

/** Another module's API-role state (`undefined` in the other roles), for a subscription that needs it. */
export interface ModuleStates {
  of<S>(module: ModuleManifest<S>): S | undefined;
}

/** The commands an earlier module's `routes` returned (API role); asking for a later or absent module throws. */
export interface ModuleApis {
  of<A>(module: ModuleManifest<any, A>): A;
}

/** What the worker role's job factories get. */
export interface WorkerDeps {
  db: Database;
  secrets: SecretBox;
  http: GuardedClient;
  logger: Logger;
  /** RAMPART_BASE_URL, for links in delivered messages. */
  baseUrl: string;
  events: EventBus;
  /** Every module's tools (the run job builds a run's tool set from it). */
  tools: ToolCatalog;
  readers: Partial<ModuleReaders>;
  /** RAMPART_OSV_MAX_INFLATED_BYTES: inflated bytes one OSV sync reads of a zip (default in the connector). */
  osvMaxInflatedBytes?: number;
}

/** What a scheduler pass gets each tick. */
export interface SchedulerDeps {
  db: Database;
  logger: Logger;
  events: EventBus;
  /** How long a stuck run is given for its retry before the run sweep ends it. */
  runGraceMs: number;
}

export interface SchedulerPass {
  /** Says what failed in the log (`<name> failed`). */
  name: string;
  run(deps: SchedulerDeps): Promise<unknown>;
}

/** A module's manifest, typed (its `state` flows to its `routes` and `subscribes`, its routes' result to later modules); nothing more. */
export function defineModule<State = undefined, Api = void>(manifest: ModuleManifest<State, Api>): ModuleManifest<State, Api> {
  return manifest;
}
