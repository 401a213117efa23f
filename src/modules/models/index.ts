import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule } from '../../platform/module.js';
import { registerModelsRoutes } from './models.routes.js';
import { createModelsService, type ModelsService } from './models.service.js';

export { resolveModel } from './model-resolver.js';
export { ProviderInput, type ProviderInputT } from './models.schemas.js';
export type { ModelsService } from './models.service.js';

/** Returns its service: config apply writes models through its commands. */
function registerModelsModule(app: FastifyInstance, deps: ModuleDeps): ModelsService {
  const service = createModelsService({ db: deps.database.db, secrets: deps.secrets });
  registerModelsRoutes(app, service);
  return service;
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['model_providers', 'model_aliases'] as const;

export const modelsModule = defineModule({ name: 'models', owns: ownedTables, routes: registerModelsModule });
