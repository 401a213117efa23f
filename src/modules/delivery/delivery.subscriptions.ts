import type { Queryable } from '../../platform/db/database.js';
import type { OutboundEvent, Subscriptions } from '../../platform/events.js';
import type { HasSubscribers } from '../destinations/index.js';
import { queueDeliveries, recordOutboundEvent } from './delivery.queue.js';

/**
 * Delivery's subscriptions: the alert events go to the destinations subscribed to their type, a
 * run's output to its agent's destinations. With `hasSubscribers` (the API process: destinations'
 * invalidated cache), an alert event is skipped without a query when the organization has no
 * destination subscribed to its type: on intake, where every webhook creates an alert, that is one
 * round trip fewer per request (and `acts` lets intake skip the transaction: events.ts).
 */
export function deliverySubscriptions(hasSubscribers?: HasSubscribers): Subscriptions {
  const outbound = hasSubscribers
    ? Object.assign(
        async (tx: Queryable, event: OutboundEvent) => {
          if (await hasSubscribers(tx, event.organizationId, event.type)) await recordOutboundEvent(tx, event);
        },
        { acts: (q: Queryable, organizationId: string, type: string) => hasSubscribers(q, organizationId, type) },
      )
    : recordOutboundEvent;
  return {
    'alert.created': outbound,
    'alert.status_changed': outbound,
    'alert.updated': outbound,
    'run.output': async (tx, { event, destinationIds, runId }) => void (await queueDeliveries(tx, event, destinationIds, runId)),
  };
}
