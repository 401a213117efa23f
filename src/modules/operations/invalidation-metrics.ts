import { Counter, Gauge, type Registry } from 'prom-client';
import type { InvalidationBus } from '../../platform/cache/invalidation-bus.js';

/**
 * Whether this process hears cross-process cache invalidations (its own heartbeat NOTIFY comes
 * back on its LISTEN connection), for alerting: while it does not, caches are bypassed (right
 * answers, more database reads) and /readyz says `degraded`.
 */
export function registerInvalidationMetrics(registry: Registry, bus: InvalidationBus | undefined): void {
  new Gauge({
    name: 'rampart_cache_invalidation_heard',
    help: 'This process hears cache invalidations: 1 ok (or it needs none: a single process, a worker), 0 lost (connection lost or heartbeat not heard; caches bypassed)',
    registers: [registry],
    collect() {
      const state = bus?.health().state ?? 'off';
      this.set(state === 'ok' || state === 'off' ? 1 : 0);
    },
  });
  new Counter({
    name: 'rampart_cache_invalidation_heartbeat_losses_total',
    help: 'Times this process stopped hearing its own cache-invalidation heartbeat NOTIFY while connected',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(bus?.health().heartbeatLosses ?? 0);
    },
  });
}
