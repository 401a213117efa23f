import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule } from '../../platform/module.js';
import { registerInsightsRoutes } from './insights.routes.js';
import { createInsightsService } from './insights.service.js';

/** Insights reads other modules' tables through its own repository (read only); it exports nothing to them. */
function registerInsightsModule(app: FastifyInstance, deps: ModuleDeps): void {
  registerInsightsRoutes(app, createInsightsService({ db: deps.database.db }));
}

/** This module owns no table (scripts/table-owners.ts). */
export const ownedTables = [] as const;

export const insightsModule = defineModule({ name: 'insights', owns: ownedTables, routes: registerInsightsModule });
