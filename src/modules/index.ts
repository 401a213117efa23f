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
import { agentChangedInvalidator, createIntakeTriggerCache, registerTriggersModule } from './triggers/index.js';
import { createInvalidationBus } from '../platform/cache/invalidation-bus.js';
import { registerModelsModule } from './models/index.js';
import { registerToolsModule } from './tools/index.js';
import { registerRunsModule } from './runs/index.js';
import { registerAlertsModule } from './alerts/index.js';
import { cachedOutboundEventSink, destinationHealth, registerDeliveryModule } from './delivery/index.js';
import { createHuntAlertPort, registerHuntModule } from './hunt/index.js';
import { registerInsightsModule } from './insights/index.js';

/** Each module wires its own routes and services; this list is the whole composition. */
export function registerModules(app: FastifyInstance, deps: ModuleDeps): void {
  registerOperationsRoutes(app, deps);
  registerUsersModule(app, deps);
  registerRolesModule(app, deps);
  registerApiKeysModule(app, deps);
  registerSessionsModule(app, deps);
  registerAuditLogsModule(app, deps);
  // Delivery reads destinations; destinations get delivery's health reader injected here.
  const destinations = registerDestinationsModule(app, deps, { healthOf: destinationHealth(deps.database.db) });
  // Events of this process's requests skip the subscription query when the cache says nobody listens.
  const events = cachedOutboundEventSink(destinations.hasSubscribers);
  registerDeliveryModule(app, deps);
  registerIntelModule(app, deps);
  registerIntelOutModule(app, deps);
  // Intake's trigger cache: dropped by trigger writes (triggers) and agent changes (agents).
  const triggerCache = createIntakeTriggerCache(deps.invalidation ?? createInvalidationBus());
  registerAgentsModule(app, deps, { onAgentChanged: agentChangedInvalidator(triggerCache) });
  registerTriggersModule(app, deps, { events, cache: triggerCache });
  registerModelsModule(app, deps);
  registerToolsModule(app, deps);
  registerRunsModule(app, deps);
  // Alert events go out through delivery's sink (destinations subscribed to the event type).
  registerAlertsModule(app, { ...deps, events });
  // Hunt alerts go through the alerts module (created, deduped or reopened; routed to huntAlertRouting).
  registerHuntModule(app, deps, { alerts: createHuntAlertPort({ events }) });
  registerInsightsModule(app, deps);
}
