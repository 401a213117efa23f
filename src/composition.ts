import type { FastifyInstance } from 'fastify';
import { createEventBus, type EventBus, type Subscriptions } from './platform/events.js';
import { JobCatalog, type JobDefinition } from './platform/jobs/catalog.js';
import { maintenanceJobs } from './platform/jobs/maintenance.jobs.js';
import type { ModuleManifest, ModuleServices, ModuleStates, NeededServices, SchedulerPass, ServiceDeps, WorkerDeps } from './platform/module.js';
import { createGuardedClient } from './platform/outbound/guarded-client.js';
import { createAuthenticator, type Authenticator } from './platform/auth/authenticator.js';
import type { ToolCatalog, ToolDeclaration } from './platform/agent-tools.js';
import type { ModuleDeps, ModuleReaders } from './platform/wiring.js';
import { organizationsModule } from './modules/organizations/index.js';
import { operationsModule } from './modules/operations/index.js';
import { usersModule } from './modules/users/index.js';
import { rolesModule } from './modules/roles/index.js';
import { apiKeysModule } from './modules/api-keys/index.js';
import { sessionsModule } from './modules/sessions/index.js';
import { identityProvidersModule } from './modules/identity-providers/index.js';
import { auditLogsModule } from './modules/audit-logs/index.js';
import { destinationsModule } from './modules/destinations/index.js';
import { deliveryModule } from './modules/delivery/index.js';
import { intelModule } from './modules/intel/index.js';
import { intelIngestModule } from './modules/intel-ingest/index.js';
import { intelOutModule } from './modules/intel-out/index.js';
import { agentsModule } from './modules/agents/index.js';
import { triggersModule } from './modules/triggers/index.js';
import { modelsModule } from './modules/models/index.js';
import { toolsModule } from './modules/tools/index.js';
import { approvalsModule } from './modules/approvals/index.js';
import { runsModule } from './modules/runs/index.js';
import { alertsModule } from './modules/alerts/index.js';
import { huntModule } from './modules/hunt/index.js';
import { insightsModule } from './modules/insights/index.js';
import { configModule } from './modules/config/index.js';
import { evaluationsModule } from './modules/evaluations/index.js';
import { coverageModule } from './modules/coverage/index.js';
import { blocklistsModule } from './modules/blocklists/index.js';
import { detectModule } from './modules/detect/index.js';

/**
 * The composition root: every module of the service, each declared by its manifest
 * (platform/module.ts), in this order. The order is the order routes are registered in (and so of
 * the OpenAPI document), of the built-in tools in the tool catalog, and of an event's
 * subscribers (an event's subscribers run in it: `run.ended` reaches triggers, then alerts). It
 * is not the order services are built in: that follows each manifest's `needs` (serviceOrder).
 * A module not listed here does not exist.
 */
// `any`: each module's state type is its own, checked within its manifest by defineModule.
export const MODULES: ReadonlyArray<ModuleManifest<any, any>> = [
  organizationsModule,
  operationsModule,
  usersModule,
  rolesModule,
  apiKeysModule,
  sessionsModule,
  identityProvidersModule,
  auditLogsModule,
  destinationsModule,
  deliveryModule,
  intelModule,
  intelIngestModule,
  intelOutModule,
  agentsModule,
  triggersModule,
  modelsModule,
  toolsModule,
  approvalsModule,
  runsModule,
  alertsModule,
  huntModule,
  insightsModule,
  configModule,
  evaluationsModule,
  detectModule,
  coverageModule,
  blocklistsModule,
];

/** A name two modules both declare, as `kind "name" (a, b)`. */
function duplicates(kind: string, named: Array<{ module: string; names: readonly string[] }>): string[] {
  const first = new Map<string, string>();
  const found: string[] = [];
  for (const { module, names } of named) {
    for (const n of names) {
      const other = first.get(n);
      if (other !== undefined) found.push(`${kind} "${n}" (${other}, ${module})`);
      else first.set(n, module);
    }
  }
  return found;
}

/**
 * What the manifests declare twice: a module name, a table, a tool, a reader, a scheduler pass.
 * Jobs are checked when the catalog registers them, routes by Fastify; both at startup.
 */
export function manifestConflicts(modules: ReadonlyArray<ModuleManifest<any, any>> = MODULES): string[] {
  return [
    ...duplicates('module', modules.map((m) => ({ module: m.name, names: [m.name] }))),
    ...duplicates('table', modules.map((m) => ({ module: m.name, names: m.owns }))),
    ...duplicates('tool', modules.map((m) => ({ module: m.name, names: Object.keys(m.tools ?? {}) }))),
    ...duplicates('reader', modules.map((m) => ({ module: m.name, names: Object.keys(m.readers ?? {}) }))),
    ...duplicates('scheduler pass', modules.map((m) => ({ module: m.name, names: (m.schedulerPasses ?? []).map((p) => p.name) }))),
  ];
}

const conflicts = manifestConflicts();
if (conflicts.length) throw new Error(`The module manifests conflict: ${conflicts.join('; ')}`);

/**
 * The modules in the order their services are built: each after every module it `needs`
 * (depth first, in the listed order among modules that need nothing of each other). A module
 * that needs itself through others, or needs one this root does not list, fails here, at start.
 */
export function serviceOrder(modules: ReadonlyArray<ModuleManifest<any, any>> = MODULES): Array<ModuleManifest<any, any>> {
  const listed = new Set(modules);
  const order: Array<ModuleManifest<any, any>> = [];
  const visiting: Array<ModuleManifest<any, any>> = [];
  const done = new Set<ModuleManifest<any, any>>();
  const visit = (m: ModuleManifest<any, any>): void => {
    if (done.has(m)) return;
    if (visiting.includes(m)) {
      const circle = [...visiting.slice(visiting.indexOf(m)), m].map((x) => x.name).join(' → ');
      throw new Error(`The modules' needs form a circle: ${circle} (a module's services cannot be built before their own)`);
    }
    visiting.push(m);
    for (const n of m.needs ?? []) {
      // Undefined when the two index.ts files import each other: the import circle leaves one unset while the other loads.
      if (!n) throw new Error(`module "${m.name}" needs a module that is undefined when it loads (an import circle between their index.ts files)`);
      if (!listed.has(n)) throw new Error(`module "${m.name}" needs "${n.name}", which src/composition.ts does not list`);
      visit(n);
    }
    visiting.pop();
    done.add(m);
    order.push(m);
  };
  for (const m of modules) visit(m);
  return order;
}

/** The services build order of the service's modules; computed at load so a bad `needs` stops every role at start. */
export const SERVICE_ORDER = serviceOrder();

/** One process's services: each module's built once, on first use, after those it `needs`. */
export interface ServiceRegistry extends NeededServices {
  /** What `m`'s routes and jobs get: its own services and those of the modules it `needs` (asking for another throws). */
  forModule<S>(m: ModuleManifest<any, S>): ModuleServices<S>;
  /** Builds every module's services now, in serviceOrder (the API role, so a failing factory fails at start). */
  buildAll(): void;
}

/**
 * What a registry is built from: ServiceDeps, where a process without an API-key cache of its own
 * (a worker, a test) may leave out the authenticator (one that only NOTIFYs is made) and the
 * private-network policy (refused).
 */
export type ServiceInputs = Omit<ServiceDeps, 'authenticator' | 'allowPrivateNetworks'> & Partial<Pick<ServiceDeps, 'authenticator' | 'allowPrivateNetworks'>>;

export function createServiceRegistry(
  inputs: ServiceInputs,
  states: ReadonlyMap<ModuleManifest<any, any>, unknown> = new Map(),
  modules: ReadonlyArray<ModuleManifest<any, any>> = MODULES,
): ServiceRegistry {
  const order = modules === MODULES ? SERVICE_ORDER : serviceOrder(modules);
  const deps: ServiceDeps = { ...inputs, authenticator: inputs.authenticator ?? createAuthenticator(inputs.db), allowPrivateNetworks: inputs.allowPrivateNetworks ?? false };
  const listed = new Set(order);
  const built = new Map<ModuleManifest<any, any>, unknown>();
  const of = <S>(m: ModuleManifest<any, S>): S => {
    if (!listed.has(m)) throw new Error(`module "${m.name}" is not listed in src/composition.ts`);
    if (!built.has(m)) built.set(m, m.services?.(deps, neededBy(m), states.get(m)));
    return built.get(m) as S;
  };
  const neededBy = (m: ModuleManifest<any, any>): NeededServices => ({
    of: <S>(n: ModuleManifest<any, S>): S => {
      if (n !== m && !(m.needs ?? []).includes(n)) throw new Error(`module "${m.name}" uses the services of "${n.name}" without listing it in its manifest's needs`);
      return of(n);
    },
  });
  return {
    of,
    forModule: <S>(m: ModuleManifest<any, S>): ModuleServices<S> => {
      const needed = neededBy(m);
      return Object.defineProperty({ of: needed.of }, 'own', { get: () => of(m), enumerable: true }) as ModuleServices<S>;
    },
    buildAll: () => {
      for (const m of order) of(m);
    },
  };
}

/** Every module's built-in agent tools, by name (the tool catalog, a run's tool set, agents' `toolNames` check). */
export const TOOLS: ToolCatalog = Object.fromEntries(MODULES.flatMap((m) => Object.entries<ToolDeclaration>(m.tools ?? {})));

/** The answers of every module's `readers`. */
export const READERS: Partial<ModuleReaders> = Object.assign({}, ...MODULES.map((m) => m.readers ?? {}));

/** Every module's scheduler passes (src/scheduler.ts runs them each tick). */
export const SCHEDULER_PASSES: readonly SchedulerPass[] = MODULES.flatMap((m) => m.schedulerPasses ?? []);

/**
 * The service's domain-event bus, over every module's subscriptions in module order. Built once
 * per process role: the API passes its modules' states (destinations' cache lets delivery skip
 * an alert event nobody subscribes to; triggers drop intake's cache on `agent.changed`); the job
 * catalog and the scheduler have none.
 */
export function serviceEvents(states: ReadonlyMap<ModuleManifest<any, any>, unknown> = new Map()): EventBus {
  const view: ModuleStates = { of: <S>(m: ModuleManifest<S, any>) => states.get(m) as S | undefined };
  return createEventBus(
    MODULES.flatMap((m): Subscriptions[] => {
      if (!m.subscribes) return [];
      return [typeof m.subscribes === 'function' ? m.subscribes(states.get(m), view) : m.subscribes];
    }),
  );
}

/**
 * The API role: each module's state, then the bus over its subscriptions, then every module's
 * services (in `needs` order), then every module's routes (in MODULES order).
 */
export function registerModules(app: FastifyInstance, moduleDeps: Omit<ModuleDeps, 'events' | 'tools' | 'readers'>): void {
  const base = { ...moduleDeps, tools: TOOLS, readers: READERS };
  const states = new Map<ModuleManifest<any, any>, unknown>();
  for (const m of MODULES) if (m.state) states.set(m, m.state(base));
  const deps: ModuleDeps = { ...base, events: serviceEvents(states) };
  // Calls the API makes for a module's commands (a live MCP tool listing) leave through this client, without retries.
  const http = createGuardedClient({ allowPrivateNetworks: deps.config.allowPrivateNetworks, retries: 0 });
  app.addHook('onClose', async () => {
    await http.close();
  });
  const services = createServiceRegistry(
    { db: deps.database.db, secrets: deps.secrets, logger: deps.logger, events: deps.events, http, baseUrl: deps.config.baseUrl, tools: TOOLS, readers: READERS, authenticator: deps.authenticator, allowPrivateNetworks: deps.config.allowPrivateNetworks },
    states,
  );
  services.buildAll();
  for (const m of MODULES) m.routes?.(app, deps, services.forModule(m), states.get(m));
}

export type JobDeps = Omit<WorkerDeps, 'events' | 'tools' | 'readers' | 'baseUrl' | 'services'> & {
  baseUrl?: string;
  /** The process's authenticator (runtime.ts); without one, a command's invalidation only NOTIFYs. */
  authenticator?: Authenticator;
  /** RAMPART_ALLOW_PRIVATE_NETWORKS (false when not given). */
  allowPrivateNetworks?: boolean;
};

/**
 * Every job type of the service: the platform's maintenance jobs and every module's. The worker
 * role's services are built on first use (no API-role state here).
 */
export function buildJobCatalog(deps: JobDeps): JobCatalog {
  const baseUrl = deps.baseUrl ?? 'http://127.0.0.1:8080';
  const events = serviceEvents();
  const { authenticator, allowPrivateNetworks, ...jobDeps } = deps;
  const services = createServiceRegistry({
    db: deps.db,
    secrets: deps.secrets,
    logger: deps.logger,
    events,
    http: deps.http,
    baseUrl,
    tools: TOOLS,
    readers: READERS,
    ...(authenticator ? { authenticator } : {}),
    ...(allowPrivateNetworks !== undefined ? { allowPrivateNetworks } : {}),
  });
  const worker: WorkerDeps = { ...jobDeps, baseUrl, events, tools: TOOLS, readers: READERS, services };
  const jobs: Array<JobDefinition<any>> = [...maintenanceJobs(deps.db), ...MODULES.flatMap((m) => m.jobs?.(worker, services.forModule(m)) ?? [])];
  return new JobCatalog().register(...jobs);
}
