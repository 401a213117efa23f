import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { AppDeps } from '../app.js';
import { registerOperationsRoutes } from './operations/operations.routes.js';
import { registerUsersModule } from './users/index.js';
import { registerRolesModule } from './roles/index.js';
import { registerApiKeysModule } from './api-keys/index.js';
import { registerAuditLogsModule } from './audit-logs/audit-logs.routes.js';
import { registerDestinationsModule } from './destinations/index.js';
import { registerIntelModule } from './intel/index.js';
import { registerAgentsModule } from './agents/index.js';
import { registerTriggersModule } from './triggers/index.js';
import { registerModelsModule } from './models/index.js';
import { registerToolsModule } from './tools/index.js';
import { registerRunsModule } from './runs/index.js';

export interface ModuleDeps extends AppDeps {
  metrics: Registry;
}

/** Each module wires its own routes and services; this list is the whole composition. */
export function registerModules(app: FastifyInstance, deps: ModuleDeps): void {
  registerOperationsRoutes(app, deps);
  registerUsersModule(app, deps);
  registerRolesModule(app, deps);
  registerApiKeysModule(app, deps);
  registerAuditLogsModule(app, deps);
  registerDestinationsModule(app, deps);
  registerIntelModule(app, deps);
  registerAgentsModule(app, deps);
  registerTriggersModule(app, deps);
  registerModelsModule(app, deps);
  registerToolsModule(app, deps);
  registerRunsModule(app, deps);
}
