import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { createInvalidationBus } from '../../platform/cache/invalidation-bus.js';
import { registerDestinationsRoutes } from './destinations.routes.js';
import { createDestinationsCache, createDestinationsService, type HealthOf } from './destinations.service.js';

export { findDestinationRow, destinationsSubscribedTo, type DestinationRow } from './destinations.repo.js';
export { blockSlackChannels, type DestinationHealth, type HealthOf } from './destinations.service.js';
export { DESTINATION_TYPES } from './destinations.schemas.js';

/** `healthOf` (the delivery module's) is injected by the composition root: delivery depends on destinations, not the reverse. */
export function registerDestinationsModule(app: FastifyInstance, deps: ModuleDeps, opts: { healthOf?: HealthOf } = {}): void {
  // buildApp always passes the process's bus; the fallback only satisfies the optional type.
  const cache = createDestinationsCache(deps.invalidation ?? createInvalidationBus());
  app.addHook('onClose', async () => cache.close());
  registerDestinationsRoutes(app, createDestinationsService({ db: deps.database.db, secrets: deps.secrets, cache, ...opts }));
}
