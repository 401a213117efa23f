import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../platform/db/database.js';
import type { OutboundEvent } from '../../platform/events.js';
import { enqueue } from '../../platform/jobs/enqueue.js';
import { destinationsSubscribedTo } from '../destinations/index.js';
import { deliveryJob, deliveryJobKey } from './delivery.job-def.js';
import { insertDelivery } from './delivery.repo.js';

/**
 * The front door of delivery: record a delivery row per (event, destination) and enqueue its
 * job, in the caller's transaction. Rolled back with it, nothing is sent; committed, the send
 * is the worker's, with retries. Runs (agent output), the `send_to_destination` tool and
 * alert events (delivery's subscriptions, `deliverySubscriptions`) all come through here.
 */
export interface QueuedDelivery {
  deliveryId: string;
  destinationId: string;
}

interface DestinationRef {
  id: string;
  name: string;
  type: string;
}

async function queueOne(tx: Queryable, event: OutboundEvent, d: DestinationRef, runId: string | null): Promise<QueuedDelivery | null> {
  const id = uuidv7();
  const inserted = await insertDelivery(tx, {
    id,
    organizationId: event.organizationId,
    destinationId: d.id,
    destinationName: d.name,
    destinationType: d.type,
    eventKind: event.type,
    eventId: event.id,
    payload: { occurredAt: event.occurredAt, data: event.data },
    runId,
    createdAt: new Date(),
  });
  if (!inserted) return null;
  await enqueue(tx, deliveryJob, { deliveryId: id }, { jobKey: deliveryJobKey(id) });
  return { deliveryId: id, destinationId: d.id };
}

/**
 * Queues `event` for each of `destinationIds` that exists in the event's organization (ids of
 * deleted destinations are passed over). With `runId`, at most one delivery per (destination,
 * run): a retried run completion never queues twice.
 */
export async function queueDeliveries(tx: Queryable, event: OutboundEvent, destinationIds: readonly string[], runId: string | null = null): Promise<QueuedDelivery[]> {
  if (destinationIds.length === 0) return [];
  const destinations = await tx
    .selectFrom('outputDestinations')
    .select(['id', 'name', 'type'])
    .where('organizationId', '=', event.organizationId)
    .where('id', 'in', [...new Set(destinationIds)])
    .orderBy('id')
    .execute();
  const out: QueuedDelivery[] = [];
  for (const d of destinations) {
    const q = await queueOne(tx, event, d, runId);
    if (q) out.push(q);
  }
  return out;
}

/**
 * Fans an outbound event out to the organization's destinations whose `eventSubscriptions`
 * include its type (default: none), one delivery each.
 */
export async function recordOutboundEvent(tx: Queryable, event: OutboundEvent): Promise<void> {
  const destinations = await destinationsSubscribedTo(tx, event.organizationId, event.type);
  for (const d of destinations) await queueOne(tx, event, d, null);
}

/** A new event with a fresh id (uuid v7) and the current time. */
export function newEvent<T extends Record<string, unknown>>(organizationId: string, type: string, data: T, id: string = uuidv7()): OutboundEvent<T> {
  return { id, type, occurredAt: new Date().toISOString(), organizationId, data };
}
