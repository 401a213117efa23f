import type { FastifyInstance } from 'fastify';
import { Gauge } from 'prom-client';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule, type ModuleServices } from '../../platform/module.js';
import { destinationsModule } from '../destinations/index.js';
import { registerDeliveryRoutes } from './delivery.routes.js';
import { createDeliveryService, destinationHealth, type DeliveryService } from './delivery.service.js';
import { countByStatus } from './delivery.repo.js';
import { deliverySubscriptions } from './delivery.subscriptions.js';
import { createDeliveryJob } from './delivery.jobs.js';
import { migrations } from './migrations/index.js';

export { queueDeliveries, recordOutboundEvent, newEvent, type QueuedDelivery } from './delivery.queue.js';
export { createDeliveryJob, type DeliveryDeps } from './delivery.jobs.js';
export { deliveriesOfRun } from './delivery.repo.js';
export { missingAlertCreatedEvents, type MissingAlertEvent } from './alert-events.readers.js';

function registerDeliveryModule(app: FastifyInstance, deps: ModuleDeps, services: ModuleServices<DeliveryService>): void {
  registerDeliveryRoutes(app, services.own);
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
  // Test-sends leave through the process's client: in the API role, the one without retries, under the same address policy.
  services: ({ db, secrets, http, baseUrl }) => createDeliveryService({ db, secrets, http, baseUrl }),
  routes: registerDeliveryModule,
  jobs: (deps) => [createDeliveryJob(deps)],
  subscribes: (_own, states) => deliverySubscriptions(states.of(destinationsModule)?.hasSubscribers),
  readers: { destinationHealth },
});
