import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../platform/wiring.js';
import { registerOperationsRoutes } from './operations/index.js';
import { registerUsersModule } from './users/index.js';
import { registerRolesModule } from './roles/index.js';
import { registerApiKeysModule } from './api-keys/index.js';
import { registerSessionsModule } from './sessions/index.js';
import { registerAuditLogsModule } from './audit-logs/index.js';
import { registerDestinationsModule } from './destinations/index.js';
import { registerIntelModule } from './intel/index.js';
import { registerIntelOutModule } from './intel-out/index.js';
import { registerAgentsModule } from './agents/index.js';
import { createIntakeTriggerCache, registerTriggersModule } from './triggers/index.js';
import { createInvalidationBus } from '../platform/cache/invalidation-bus.js';
import { registerModelsModule } from './models/index.js';
import { registerToolsModule } from './tools/index.js';
import { registerRunsModule } from './runs/index.js';
import { registerAlertsModule } from './alerts/index.js';
import { destinationHealth, registerDeliveryModule } from './delivery/index.js';
import { registerHuntModule } from './hunt/index.js';
import { serviceEvents } from '../events.js';
import type { HasSubscribers } from './destinations/index.js';
import { registerInsightsModule } from './insights/index.js';
import { registerCoverageModule } from './coverage/index.js';

/** Each module wires its own routes and services; this list is the whole composition. */
export function registerModules(app: FastifyInstance, moduleDeps: Omit<ModuleDeps, 'events'>): void {
  // The process's events; delivery's subscriber asks destinations' cache (set below) and skips the query when nobody listens.
  let hasSubscribers: HasSubscribers = async () => true;
  // Intake's trigger cache: dropped by trigger writes (triggers) and agent changes (`agent.changed`).
  const triggerCache = createIntakeTriggerCache(moduleDeps.invalidation ?? createInvalidationBus());
  const deps: ModuleDeps = { ...moduleDeps, events: serviceEvents({ hasSubscribers: (q, org, type) => hasSubscribers(q, org, type), intakeCache: triggerCache }) };
  registerOperationsRoutes(app, deps);
  registerUsersModule(app, deps);
  registerRolesModule(app, deps);
  registerApiKeysModule(app, deps);
  registerSessionsModule(app, deps);
  registerAuditLogsModule(app, deps);
  // Delivery reads destinations; destinations get delivery's health reader injected here.
  hasSubscribers = registerDestinationsModule(app, deps, { healthOf: destinationHealth(deps.database.db) }).hasSubscribers;
  registerDeliveryModule(app, deps);
  registerIntelModule(app, deps);
  registerIntelOutModule(app, deps);
  registerAgentsModule(app, deps);
  registerTriggersModule(app, deps, { cache: triggerCache });
  registerModelsModule(app, deps);
  registerToolsModule(app, deps);
  registerRunsModule(app, deps);
  registerAlertsModule(app, deps);
  registerHuntModule(app, deps);
  registerInsightsModule(app, deps);
  registerCoverageModule(app, deps);
}
