import type { Queryable } from './db/database.js';

/**
 * Domain events: what a module tells the rest of the service about a change it made, inside the
 * transaction that made it. The writer calls `events.emit(tx, type, payload)`; the bus calls each
 * subscriber of `type` in turn, in subscription order, with the same transaction, so whatever a
 * subscriber does (queue a delivery and its job, note a triage outcome, raise a hunt alert)
 * commits or rolls back with the change: a rolled-back transaction has emitted nothing. Nothing
 * is written for the event itself, so an event nobody subscribes to costs no round trip. A
 * subscriber that needs slow work enqueues a job in that transaction.
 *
 * Event types are declared on `DomainEvents` by the module that emits them (TypeScript
 * declaration merging, `declare module '…/platform/events.js'`), so the bus is typed end to end
 * while platform imports no module. Subscriptions are declared by each module's manifest and
 * assembled once by the composition root (src/composition.ts), which hands the bus to modules
 * (`ModuleDeps.events`), jobs and scheduler passes: a lower module emits, a higher one
 * subscribes, and neither imports the other.
 *
 * A subscriber may answer (`Reply`): the bus merges the answers of an event's subscribers and
 * returns them to the writer (e.g. the alerts module adds the triaged alert and its verdict to a
 * run's output event; the hunt-alert subscriber answers which alert it raised).
 */
export interface DomainEvents {
  /** An alert came into existence (not a duplicate counted on an open one). */
  'alert.created': EventSpec<OutboundEvent>;
  /** An alert's status changed (by a person, an agent, or the system reopening it). */
  'alert.status_changed': EventSpec<OutboundEvent>;
  /** An open alert's severity (and with it title, description) changed by the system (a hunt threat's band moved). */
  'alert.updated': EventSpec<OutboundEvent>;
  /** A run ended `done` with output for its agent's destinations (`destinationIds`); one delivery per destination and run. */
  'run.output': EventSpec<{ event: OutboundEvent; destinationIds: readonly string[]; runId: string }>;
}

/** A domain event's payload and what its subscribers may answer. */
export interface EventSpec<Payload, Reply extends object = Record<never, never>> {
  payload: Payload;
  reply: Reply;
}

export type EventType = keyof DomainEvents;
export type PayloadOf<K extends EventType> = DomainEvents[K]['payload'];
export type ReplyOf<K extends EventType> = DomainEvents[K]['reply'];

/**
 * `events`: the bus itself, for a subscriber whose change emits events of its own (a hunt alert's
 * `alert.created`). `acts`, when the subscriber can tell cheaply (from a cache), answers whether it
 * would do anything for an event of the organization; without it, it is assumed to.
 */
export type Subscriber<K extends EventType> = ((tx: Queryable, payload: PayloadOf<K>, events: EventBus) => Promise<Partial<ReplyOf<K>> | void>) & {
  acts?: (q: Queryable, organizationId: string, type: K) => Promise<boolean>;
};

/** What a module subscribes to: one subscriber per event type (a module with two concerns declares them in one function). */
export type Subscriptions = { [K in EventType]?: Subscriber<K> };

export interface EventBus {
  /** Calls every subscriber of `type` in order in `tx`; answers their merged replies (`{}` when none answered). */
  emit<K extends EventType>(tx: Queryable, type: K, payload: PayloadOf<K>): Promise<Partial<ReplyOf<K>>>;
  /** Whether anything subscribes to `type` (a writer may skip building a costly payload). */
  has(type: EventType): boolean;
  /**
   * Whether any subscriber of `type` would act on an event of the organization (each answers
   * from its `acts`, else is assumed to). False lets a writer whose change is one statement run
   * it without a transaction: nothing would join it there (webhook intake: one round trip).
   */
  acts(q: Queryable, type: EventType, organizationId: string): Promise<boolean>;
}

/** The bus over the modules' subscriptions, in the order given (the composition root's module order). */
export function createEventBus(subscriptions: ReadonlyArray<Subscriptions>): EventBus {
  const byType = new Map<EventType, Array<Subscriber<EventType>>>();
  for (const s of subscriptions) {
    for (const [type, fn] of Object.entries(s) as Array<[EventType, Subscriber<EventType> | undefined]>) {
      if (!fn) continue;
      const list = byType.get(type) ?? [];
      list.push(fn);
      byType.set(type, list);
    }
  }
  const bus: EventBus = {
    async emit(tx, type, payload) {
      const subscribers = byType.get(type);
      if (!subscribers) return {};
      const reply = {};
      for (const fn of subscribers) Object.assign(reply, await fn(tx, payload as never, bus));
      return reply;
    },
    has: (type) => byType.has(type),
    async acts(q, type, organizationId) {
      for (const fn of byType.get(type) ?? []) if (!fn.acts || (await fn.acts(q, organizationId, type))) return true;
      return false;
    },
  };
  return bus;
}

/** A bus without subscribers: a module used alone (unit tests, a scheduler pass nobody listens to). */
export const noEvents: EventBus = createEventBus([]);

/**
 * An event another part of the service may send to the outside (output destinations): the
 * payload of the alert events, and of a run's output. Delivery subscribes and fans it out to the
 * destinations subscribed to `type`, one delivery job each.
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
