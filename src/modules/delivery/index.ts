import type { FastifyInstance } from 'fastify';
import { Gauge } from 'prom-client';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule } from '../../platform/module.js';
import { destinationsModule } from '../destinations/index.js';
import { createGuardedClient } from '../../platform/outbound/guarded-client.js';
import { registerDeliveryRoutes } from './delivery.routes.js';
import { createDeliveryService, destinationHealth } from './delivery.service.js';
import { countByStatus } from './delivery.repo.js';
import { deliverySubscriptions } from './delivery.queue.js';
import { createDeliveryJob } from './delivery.jobs.js';
import { migrations } from './migrations/index.js';

export { queueDeliveries, recordOutboundEvent, newEvent, type QueuedDelivery } from './delivery.queue.js';
export { createDeliveryJob, type DeliveryDeps } from './delivery.jobs.js';
export { deliveriesOfRun } from './delivery.repo.js';
export { missingAlertCreatedEvents, type MissingAlertEvent } from './alert-events.readers.js';

function registerDeliveryModule(app: FastifyInstance, deps: ModuleDeps): void {
  // Test-sends leave from the API process: its own client, under the same address policy.
  const http = createGuardedClient({ allowPrivateNetworks: deps.config.allowPrivateNetworks, retries: 0 });
  app.addHook('onClose', async () => {
    await http.close();
  });
  registerDeliveryRoutes(app, createDeliveryService({ db: deps.database.db, secrets: deps.secrets, http, baseUrl: deps.config.baseUrl }));
  const db = deps.database.db;
  new Gauge({
    name: 'rampart_deliveries',
    help: 'Deliveries to output destinations by status (pending, sending, succeeded, retrying, failed, skipped)',
    labelNames: ['status'] as const,
    registers: [deps.metrics],
    async collect() {
      this.reset();
      for (const r of await countByStatus(db).catch(() => [])) this.set({ status: r.status }, r.n);
    },
  });
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['destination_deliveries', 'destination_delivery_attempts'] as const;

/**
 * Delivery: the jobs that send, and the subscriber that queues them for the alert events and a
 * run's output. In the API process its subscriber asks destinations' cache (their state) first,
 * so an alert event nobody subscribes to costs no query; it answers destinations'
 * `destinationHealth` question from its attempts.
 */
export const deliveryModule = defineModule({
  name: 'delivery',
  owns: ownedTables,
  migrations,
  // Its subscriber asks destinations' API-role state (their cache).
  needs: [destinationsModule],
  routes: registerDeliveryModule,
  jobs: (deps) => [createDeliveryJob(deps)],
  subscribes: (_own, states) => deliverySubscriptions(states.of(destinationsModule)?.hasSubscribers),
  readers: { destinationHealth },
});
