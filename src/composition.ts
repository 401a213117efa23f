import type { FastifyInstance } from 'fastify';
import { createEventBus, type EventBus, type Subscriptions } from './platform/events.js';
import { JobCatalog, type JobDefinition } from './platform/jobs/catalog.js';
import { maintenanceJobs } from './platform/jobs/maintenance.jobs.js';
import type { ModuleApis, ModuleManifest, ModuleStates, SchedulerPass, WorkerDeps } from './platform/module.js';
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

/**
 * The composition root: every module of the service, each declared by its manifest
 * (platform/module.ts), in this order. The order is the order routes are registered in (and so of
 * the OpenAPI document), of the built-in tools in the tool catalog, and of an event's
 * subscribers (an event's subscribers run in it: `run.ended` reaches triggers, then alerts). A
 * module not listed here does not exist.
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
  coverageModule,
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
  const view: ModuleStates = { of: <S>(m: ModuleManifest<S>) => states.get(m) as S | undefined };
  return createEventBus(
    MODULES.flatMap((m): Subscriptions[] => {
      if (!m.subscribes) return [];
      return [typeof m.subscribes === 'function' ? m.subscribes(states.get(m), view) : m.subscribes];
    }),
  );
}

/** The API role: each module's state, then the bus over its subscriptions, then every module's routes. */
export function registerModules(app: FastifyInstance, moduleDeps: Omit<ModuleDeps, 'events' | 'tools' | 'readers'>): void {
  const base = { ...moduleDeps, tools: TOOLS, readers: READERS };
  const states = new Map<ModuleManifest<any, any>, unknown>();
  for (const m of MODULES) if (m.state) states.set(m, m.state(base));
  const deps: ModuleDeps = { ...base, events: serviceEvents(states) };
  const apis = new Map<ModuleManifest<any, any>, unknown>();
  const modules: ModuleApis = {
    of: <A>(m: ModuleManifest<any, A>) => {
      if (!apis.has(m)) throw new Error(`module "${m.name}" is asked for before its routes are registered (src/composition.ts lists it later, or not at all)`);
      return apis.get(m) as A;
    },
  };
  for (const m of MODULES) apis.set(m, m.routes?.(app, deps, states.get(m), modules));
}

export type JobDeps = Omit<WorkerDeps, 'events' | 'tools' | 'readers' | 'baseUrl'> & { baseUrl?: string };

/** Every job type of the service: the platform's maintenance jobs and every module's. */
export function buildJobCatalog(deps: JobDeps): JobCatalog {
  const worker: WorkerDeps = { ...deps, baseUrl: deps.baseUrl ?? 'http://127.0.0.1:8080', events: serviceEvents(), tools: TOOLS, readers: READERS };
  const jobs: Array<JobDefinition<any>> = [...maintenanceJobs(deps.db), ...MODULES.flatMap((m) => m.jobs?.(worker) ?? [])];
  return new JobCatalog().register(...jobs);
}
