import type { FastifyInstance } from 'fastify';
import { Gauge } from 'prom-client';
import type { ModuleDeps } from '../../platform/wiring.js';
import { createGuardedClient } from '../../platform/outbound/guarded-client.js';
import { registerDeliveryRoutes } from './delivery.routes.js';
import { createDeliveryService } from './delivery.service.js';
import { countByStatus } from './delivery.repo.js';

export { deliverySubscriptions, queueDeliveries, recordOutboundEvent, newEvent, type QueuedDelivery } from './delivery.queue.js';
export { createDeliveryJob, type DeliveryDeps } from './delivery.jobs.js';
export { destinationHealth } from './delivery.service.js';
export { deliveriesOfRun } from './delivery.repo.js';

export function registerDeliveryModule(app: FastifyInstance, deps: ModuleDeps): void {
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
