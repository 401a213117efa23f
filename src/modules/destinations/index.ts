import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import type { Queryable } from '../../platform/db/database.js';
import { createInvalidationBus } from '../../platform/cache/invalidation-bus.js';
import { registerDestinationsRoutes } from './destinations.routes.js';
import { createDestinationsCache, createDestinationsService, type DestinationsService, type HealthOf } from './destinations.service.js';

export { findDestinationRow, destinationsSubscribedTo, listDestinationRows, unknownDestinationIds, type DestinationRow } from './destinations.repo.js';
export { blockSlackChannels, type DestinationHealth, type HealthOf } from './destinations.service.js';
export { DESTINATION_TYPES, DestinationInput, type DestinationInputT } from './destinations.schemas.js';
export type { DestinationsService } from './destinations.service.js';

/** Whether an organization has a destination subscribed to an event type (cached). */
export type HasSubscribers = (q: Queryable, organizationId: string, eventType: string) => Promise<boolean>;

/**
 * `healthOf` (the delivery module's) is injected by the composition root: delivery depends on destinations, not the reverse.
 * Answers `hasSubscribers`, for delivery's event subscriptions in the API process (src/events.ts).
 */
export function registerDestinationsModule(app: FastifyInstance, deps: ModuleDeps, opts: { healthOf?: HealthOf } = {}): { hasSubscribers: HasSubscribers; service: DestinationsService } {
  // buildApp always passes the process's bus; the fallback only satisfies the optional type.
  const cache = createDestinationsCache(deps.invalidation ?? createInvalidationBus());
  app.addHook('onClose', async () => cache.close());
  const service = createDestinationsService({ db: deps.database.db, secrets: deps.secrets, cache, ...opts });
  registerDestinationsRoutes(app, service);
  return { hasSubscribers: service.hasSubscribers, service };
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['output_destinations'] as const;
