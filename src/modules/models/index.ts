import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule, type ModuleServices, type ServiceDeps } from '../../platform/module.js';
import { registerModelsRoutes } from './models.routes.js';
import { createModelsService, type ModelsService } from './models.service.js';

export { resolveModel } from './model-resolver.js';
export { ProviderInput, type ProviderInputT } from './models.schemas.js';
export type { ModelsService } from './models.service.js';

/** Its service: config apply writes models through its commands. */
function modelsServices({ db, secrets }: Pick<ServiceDeps, 'db' | 'secrets'>): ModelsService {
  return createModelsService({ db, secrets });
}

function registerModelsModule(app: FastifyInstance, _deps: ModuleDeps, services: ModuleServices<ModelsService>): void {
  registerModelsRoutes(app, services.own);
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['model_providers', 'model_aliases'] as const;

export const modelsModule = defineModule({ name: 'models', owns: ownedTables, services: modelsServices, routes: registerModelsModule });
