import type { Queryable } from './db/database.js';

/**
 * An event another part of the service may send to the outside (output destinations). The
 * module that records the state change calls an `EventSink` inside its own transaction, so the
 * event and the change commit together; the delivery module implements the sink (fan-out to
 * the destinations subscribed to `type`, one delivery job each). Modules that emit events take
 * the sink as a dependency, wired at the composition root, so they never import delivery.
 */
export interface OutboundEvent<T = Record<string, unknown>> {
  /** Stable id (uuid v7): the idempotency key receivers see on every retry. */
  id: string;
  /** e.g. `alert.created`, `alert.status_changed`, `agent_run.completed`. */
  type: string;
  occurredAt: string;
  organizationId: string;
  data: T;
}

export type EventSink = (tx: Queryable, event: OutboundEvent) => Promise<void>;

/** The sink of a module wired without delivery (unit tests of the module alone). */
export const discardEvents: EventSink = async () => {};
