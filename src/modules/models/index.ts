import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule } from '../../platform/module.js';
import { registerModelsRoutes } from './models.routes.js';
import { createModelsService } from './models.service.js';

export { resolveModel } from './model-resolver.js';

function registerModelsModule(app: FastifyInstance, deps: ModuleDeps): void {
  registerModelsRoutes(app, createModelsService({ db: deps.database.db, secrets: deps.secrets }));
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['model_providers', 'model_aliases'] as const;

export const modelsModule = defineModule({ name: 'models', owns: ownedTables, routes: registerModelsModule });
