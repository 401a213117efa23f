import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { createInvalidationBus } from '../../platform/cache/invalidation-bus.js';
import { registerDestinationsRoutes } from './destinations.routes.js';
import { createDestinationsCache, createDestinationsService } from './destinations.service.js';

export { findDestinationRow } from './destinations.repo.js';

export function registerDestinationsModule(app: FastifyInstance, deps: ModuleDeps): void {
  // buildApp always passes the process's bus; the fallback only satisfies the optional type.
  const cache = createDestinationsCache(deps.invalidation ?? createInvalidationBus());
  app.addHook('onClose', async () => cache.close());
  registerDestinationsRoutes(app, createDestinationsService({ db: deps.database.db, secrets: deps.secrets, cache }));
}
