import { sql } from 'kysely';
import type { Queryable } from '../db/database.js';
import { assertChannelName, type InvalidationBus } from './invalidation-bus.js';
import { onTransactionEnd } from './transaction.js';

/**
 * An "invalidated read cache": per-key values loaded from PostgreSQL and kept in process memory
 * until a change to them is announced with NOTIFY on `channel` (payload: the key; empty: all).
 *
 * - A writer calls `invalidate(tx, key)` inside the transaction that changes the data (opened
 *   with `withTransaction`): the NOTIFY is sent by PostgreSQL at COMMIT (and never on rollback),
 *   so other processes drop their entry as soon as the change is visible to them; this process
 *   drops its own entry when the transaction ends, so its read-after-write is immediate.
 * - A load that overlaps an invalidation (it started before one, or while a write to its key is
 *   in flight in this process) returns its rows to its caller but does not store them: they may
 *   predate the change. A global generation counter and a per-key "write in flight" count
 *   enforce this; a notification for another key costs at most one lost store.
 * - While the bus cannot hear notifications (its LISTEN connection is down), nothing is served
 *   from or kept in the cache: every get reads through (and its entries were dropped on loss).
 * - The TTL only bounds staleness if a notification is lost; `maxEntries` bounds memory (the
 *   oldest entry goes first).
 * - Concurrent misses of one key share one load (unless an invalidation came in between).
 */
export interface InvalidatedCacheOptions<V> {
  /** NOTIFY channel, e.g. `rampart_destinations_invalidate`. */
  channel: string;
  /** Where notifications from other processes arrive (one listener per process). */
  bus: InvalidationBus;
  ttlMs: number;
  maxEntries: number;
  /** An earlier expiry for one value (e.g. an API key's own expiry); clamped to the TTL. */
  expiresAt?: (value: V, loadStartedAt: number) => number;
  /** For tests. */
  now?: () => number;
}

export interface InvalidatedCache<V> {
  /** The cached value of `key`, or the result of `load()` (stored unless an invalidation overlapped it). */
  get(key: string, load: () => Promise<V>): Promise<V>;
  /**
   * Announce that `key` changes. With a transaction (from `withTransaction`): NOTIFY inside it,
   * local entry dropped when it ends. With the root handle: NOTIFY at once, entry dropped after.
   */
  invalidate(q: Queryable, key: string): Promise<void>;
  /** Same for every key of this cache (empty payload). */
  invalidateAll(q: Queryable): Promise<void>;
  /** Drop local entries (what an incoming notification does); no NOTIFY. */
  clearLocal(key?: string): void;
  /** Unsubscribe from the bus and drop everything. */
  close(): void;
  readonly size: number;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
}

interface Inflight<V> {
  generation: number;
  promise: Promise<V>;
}

const ALL = '';

export function createInvalidatedCache<V>(opts: InvalidatedCacheOptions<V>): InvalidatedCache<V> {
  assertChannelName(opts.channel);
  const { channel, ttlMs, maxEntries } = opts;
  // Looked up at each call (not captured): fake clocks in tests replace the global Date.
  const now = opts.now ?? (() => Date.now());
  const entries = new Map<string, Entry<V>>();
  const inflight = new Map<string, Inflight<V>>();
  /** Writes in flight in this process, per key (ALL: every key). */
  const pending = new Map<string, number>();
  // Bumped by every invalidation, local or notified: a load that started before one is not stored.
  let generation = 0;

  function drop(key: string): void {
    generation++;
    if (key === ALL) {
      entries.clear();
      inflight.clear();
    } else {
      entries.delete(key);
      inflight.delete(key);
    }
  }

  function writing(key: string): boolean {
    return pending.has(key) || pending.has(ALL);
  }

  function begin(key: string): void {
    pending.set(key, (pending.get(key) ?? 0) + 1);
    drop(key);
  }

  function settle(key: string): void {
    const n = (pending.get(key) ?? 1) - 1;
    if (n > 0) pending.set(key, n);
    else pending.delete(key);
    drop(key);
  }

  function store(key: string, value: V, startedAt: number): void {
    let expiresAt = startedAt + ttlMs;
    if (opts.expiresAt) expiresAt = Math.min(expiresAt, opts.expiresAt(value, startedAt));
    if (expiresAt <= now()) return;
    entries.delete(key);
    while (entries.size >= maxEntries) {
      const oldest = entries.keys().next();
      if (oldest.done) break;
      entries.delete(oldest.value);
    }
    entries.set(key, { value, expiresAt });
  }

  async function announce(q: Queryable, key: string): Promise<void> {
    if (q.isTransaction) {
      // Registered before anything else: it throws for a transaction whose end we cannot see
      // (nothing is held then), and settles the key even if the NOTIFY fails.
      onTransactionEnd(q, () => settle(key));
      begin(key);
      await sql`SELECT pg_notify(${channel}, ${key})`.execute(q);
      return;
    }
    begin(key);
    try {
      await sql`SELECT pg_notify(${channel}, ${key})`.execute(q);
    } finally {
      settle(key);
    }
  }

  const unsubscribe = opts.bus.subscribe(channel, (payload) => drop(payload ?? ALL));

  return {
    get(key, load) {
      // Deaf to other processes' invalidations (LISTEN connection lost): read through, keep
      // nothing, and tell the bus the database answers so it re-listens at once.
      if (!opts.bus.trusted()) {
        return load().then((value) => {
          opts.bus.reconnectNow();
          return value;
        });
      }
      const startedAt = now();
      const hit = entries.get(key);
      if (hit) {
        if (hit.expiresAt > startedAt) return Promise.resolve(hit.value);
        entries.delete(key);
      }
      // A write to this key is in flight here: its rows may be about to change; don't keep them.
      if (writing(key)) return load();
      const shared = inflight.get(key);
      if (shared && shared.generation === generation) return shared.promise;
      const startGeneration = generation;
      const promise = load().then((value) => {
        if (generation === startGeneration && !writing(key)) store(key, value, startedAt);
        return value;
      });
      const record: Inflight<V> = { generation: startGeneration, promise };
      inflight.set(key, record);
      const done = () => {
        if (inflight.get(key) === record) inflight.delete(key);
      };
      promise.then(done, done);
      return promise;
    },

    invalidate(q, key) {
      if (key === ALL) return Promise.reject(new Error('invalidate(): the key must not be empty (use invalidateAll)'));
      return announce(q, key);
    },

    invalidateAll(q) {
      return announce(q, ALL);
    },

    clearLocal(key) {
      drop(key ?? ALL);
    },

    close() {
      unsubscribe();
      drop(ALL);
    },

    get size() {
      return entries.size;
    },
  };
}
