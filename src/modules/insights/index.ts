import { defineModule } from '../../platform/module.js';
import { registerInsightsRoutes } from './insights.routes.js';
import { createInsightsService } from './insights.service.js';

/** This module owns no table (scripts/table-owners.ts). */
export const ownedTables = [] as const;

/** Insights reads other modules' tables through its own repository (read only); it exports nothing to them. */
export const insightsModule = defineModule({
  name: 'insights',
  owns: ownedTables,
  services: ({ db }) => createInsightsService({ db }),
  routes: (app, _deps, services) => registerInsightsRoutes(app, services.own),
});
