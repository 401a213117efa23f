import { defineModule } from '../../platform/module.js';
import { registerCoverageRoutes } from './coverage.routes.js';
import { createCoverageService } from './coverage.service.js';
import { migrations } from './migrations/index.js';

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['coverage_layers'] as const;

/** ATT&CK coverage: code detections against the techniques the intel names, Navigator layers out and in (docs/coverage.md). */
export const coverageModule = defineModule({
  name: 'coverage',
  owns: ownedTables,
  migrations,
  services: ({ db, baseUrl }) => createCoverageService({ db, baseUrl }),
  routes: (app, _deps, services) => registerCoverageRoutes(app, services.own),
});
