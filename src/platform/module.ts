import type { FastifyInstance } from 'fastify';
import type { Migration } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from './db/database.js';
import type { EventBus, Subscriptions } from './events.js';
import type { GuardedClient } from './outbound/guarded-client.js';
import type { JobDefinition } from './jobs/catalog.js';
import type { SecretBox } from './secrets.js';
import type { ToolCatalog } from './agent-tools.js';
import type { Authenticator } from './auth/authenticator.js';
import type { ModuleDeps, ModuleReaders } from './wiring.js';

/**
 * A module's manifest: what it owns and what it offers the service, declared in its `index.ts`
 * (`export const xModule = defineModule({...})`) and assembled by the one composition root
 * (src/composition.ts) for each process role: the API (routes, `state`, subscriptions), the
 * worker (jobs, tools, subscriptions) and the scheduler (passes, subscriptions); `services` in
 * the API and worker roles. Nothing is discovered: a module the composition root does not list
 * does not exist.
 */
export interface ModuleManifest<State = undefined, Services = void> {
  /** The module's folder name. */
  name: string;
  /** The tables only this module's SQL names (scripts/table-owners.ts reads the literal array). */
  owns: readonly string[];
  /**
   * The module's migrations (its `migrations/index.ts`), by name: `NNNN_what`, the four-digit
   * prefix their order among every module's and platform's (src/migrations.ts collects them; a
   * number used twice fails at start).
   */
  migrations?: Readonly<Record<string, Migration>>;
  /**
   * The modules whose services (or API-role state) this one uses: their services are built
   * before this module's, and `services.of(m)` answers only for a module listed here. The order
   * of src/composition.ts plays no part; a circle or a module missing from the composition root
   * fails at start (`serviceOrder` there).
   */
  needs?: ReadonlyArray<ModuleManifest<any, any>>;
  /**
   * API role only: process-local state made once, before the event bus (an in-process cache),
   * shared by this module's services, routes and subscriptions. Absent in the worker and scheduler.
   */
  state?: (deps: Omit<ModuleDeps, 'events'>) => State;
  /**
   * The module's commands, built once per process (API and worker roles), after those of the
   * modules it `needs` (`needed.of(m)`), and shared by its routes, its jobs and other modules'
   * (config apply writes agents, destinations… through their owners' services, in its own
   * transaction; a worker job calls another module's command without the HTTP layer). Each
   * takes only what it uses of `deps` (a `Pick`). `state` is undefined outside the API role:
   * services that need it say so when asked for there.
   */
  services?: (deps: ServiceDeps, needed: NeededServices, state: State | undefined) => Services;
  /** Registers the module's HTTP routes (API role), over its services (`services.own`) and those it `needs`. */
  routes?: (app: FastifyInstance, deps: ModuleDeps, services: ModuleServices<Services>, state: State) => void;
  /** The module's job types (worker role); `services` as `routes` get them. */
  jobs?: (deps: WorkerDeps, services: ModuleServices<Services>) => ReadonlyArray<JobDefinition<any>>;
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
  of<S>(module: ModuleManifest<S, any>): S | undefined;
}

/** The services of the modules a module `needs`; asking for one it does not list throws. */
export interface NeededServices {
  of<S>(module: ModuleManifest<any, S>): S;
}

/** What a module's routes and jobs get: its own services (built on first use) and those it `needs`. */
export interface ModuleServices<Own> extends NeededServices {
  readonly own: Own;
}

/**
 * What services are built from, in every role that builds them (API, worker). Each module's
 * `services` takes a `Pick` of it: only what it uses.
 */
export interface ServiceDeps {
  db: Database;
  secrets: SecretBox;
  logger: Logger;
  events: EventBus;
  /** The process's outbound client (SSRF-guarded; in the API role without retries, as every API-side call). */
  http: GuardedClient;
  /** RAMPART_BASE_URL, for links. */
  baseUrl: string;
  tools: ToolCatalog;
  readers: Partial<ModuleReaders>;
  /**
   * The process's authenticator, for commands that take a key's power away (revoke a key,
   * deactivate a user, change a role): `invalidate()` drops this process's cached identities and
   * NOTIFYs every other process, so it works from any role.
   */
  authenticator: Pick<Authenticator, 'invalidate'>;
  /** RAMPART_ALLOW_PRIVATE_NETWORKS, for checks that refuse up front what the outbound client would (config plan); false when not given. */
  allowPrivateNetworks: boolean;
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
  /** RAMPART_OSV_SHARD_RECORDS: records per shard of a sharded OSV sync; 0: never sharded (default in intel-ingest). */
  osvShardRecords?: number;
  /** Every module's services in this process (built on first use); a module's jobs get theirs as `services`. */
  services: NeededServices;
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

/** A module's manifest, typed (its `state` flows to its `services`, `routes` and `subscribes`, its services to its routes, jobs and the modules that need it); nothing more. */
export function defineModule<State = undefined, Services = void>(manifest: ModuleManifest<State, Services>): ModuleManifest<State, Services> {
  return manifest;
}
