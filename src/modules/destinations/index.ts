import type { Queryable } from '../../platform/db/database.js';
import { defineModule } from '../../platform/module.js';
import { createInvalidationBus } from '../../platform/cache/invalidation-bus.js';
import { registerDestinationsRoutes } from './destinations.routes.js';
import { createDestinationsService } from './destinations.service.js';
import { createDestinationsCache } from './destinations.cache.js';
import { migrations } from './migrations/index.js';

export { findDestinationRow, destinationsSubscribedTo, listDestinationRows, unknownDestinationIds, type DestinationRow } from './destinations.repo.js';
export { blockSlackChannels, type DestinationHealth } from './destinations.service.js';
export { DESTINATION_TYPES, DestinationInput, type DestinationInputT } from './destinations.schemas.js';
export type { DestinationsService } from './destinations.service.js';

/** Whether an organization has a destination subscribed to an event type (cached). */
export type HasSubscribers = (q: Queryable, organizationId: string, eventType: string) => Promise<boolean>;

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['output_destinations'] as const;

/**
 * API role state: the service over the process's cache of each organization's destinations,
 * which also answers `hasSubscribers` for delivery's event subscriptions (delivery's manifest).
 * A destination's delivery health is asked of delivery through `deps.readers.destinationHealth`.
 */
export const destinationsModule = defineModule({
  name: 'destinations',
  owns: ownedTables,
  migrations,
  state: (deps) => {
    // buildApp always passes the process's bus; the fallback only satisfies the optional type.
    const cache = createDestinationsCache(deps.invalidation ?? createInvalidationBus());
    const service = createDestinationsService({ db: deps.database.db, secrets: deps.secrets, cache, readers: deps.readers });
    return { cache, service, hasSubscribers: service.hasSubscribers as HasSubscribers };
  },
  // The service: config apply writes destinations through it. It lives in the API role's state (its cache).
  services: (_deps, _needed, state) => {
    if (!state) throw new Error("destinations' commands are built over the API role's destinations cache; this role has none");
    return state.service;
  },
  routes: (app, _deps, services, { cache }) => {
    app.addHook('onClose', async () => cache.close());
    registerDestinationsRoutes(app, services.own);
  },
});
