import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { registerTaxiiRoutes } from './taxii.routes.js';
import { createTaxiiService } from './taxii.service.js';

// The front door: intel going out (TAXII 2.1 server, exports, MISP feed) and the refresh of
// the materialized STIX objects (the scheduler runs it so pulls rarely wait for a backlog).
export { refreshAllObjects } from './objects.store.js';

export function registerIntelOutModule(app: FastifyInstance, deps: ModuleDeps): void {
  const db = deps.database.db;
  registerTaxiiRoutes(app, { taxii: createTaxiiService({ db }), baseUrl: deps.config.baseUrl, bodyLimit: deps.config.bodyLimitBytes });
}
