import { describe, expect, it } from 'vitest';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import type { Database } from '../db/database.js';
import type { InvalidationBus, InvalidationHandler } from './invalidation-bus.js';
import { createInvalidatedCache, type InvalidatedCacheOptions } from './invalidated-cache.js';
import { onTransactionEnd, withTransaction } from './transaction.js';

/** A bus whose notifications the test sends by hand ("another process committed"). */
function fakeBus() {
  const handlers = new Map<string, Set<InvalidationHandler>>();
  const bus: InvalidationBus = {
    subscribe(channel, handler) {
      if (!handlers.has(channel)) handlers.set(channel, new Set());
      handlers.get(channel)!.add(handler);
      return () => handlers.get(channel)!.delete(handler);
    },
    listen: async () => async () => {},
    trusted: () => state.trusted,
    reconnectNow: () => void state.reconnects++,
    health: () => ({ state: state.trusted ? 'ok' : 'deaf', heartbeatLosses: 0 }),
  };
  const state = { trusted: true, reconnects: 0 };
  return {
    bus,
    state,
    notify: (channel: string, payload: string | null) => handlers.get(channel)?.forEach((h) => h(payload)),
    subscribers: (channel: string) => handlers.get(channel)?.size ?? 0,
  };
}

/** Kysely without a database: records the SQL it would send. */
function fakeDb() {
  const statements: string[] = [];
  const db = new Kysely<never>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    log: (event) => {
      statements.push(`${event.query.sql} ${JSON.stringify(event.query.parameters)}`);
    },
  }) as unknown as Database;
  return { db, statements };
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A loader the test controls: each call returns a promise the test settles. */
function controllableLoader<V>() {
  const calls: Array<ReturnType<typeof deferred<V>>> = [];
  return {
    load: () => {
      const d = deferred<V>();
      calls.push(d);
      return d.promise;
    },
    calls,
  };
}

const CHANNEL = 'test_cache_invalidate';

function setup(overrides: Partial<InvalidatedCacheOptions<string>> = {}) {
  const bus = fakeBus();
  const cache = createInvalidatedCache<string>({ channel: CHANNEL, bus: bus.bus, ttlMs: 10_000, maxEntries: 100, ...overrides });
  return { ...bus, cache };
}

describe('invalidated cache', () => {
  it('loads once and then answers from memory, per key', async () => {
    const { cache } = setup();
    let loads = 0;
    const load = async () => `v${++loads}`;
    expect(await cache.get('a', load)).toBe('v1');
    expect(await cache.get('a', load)).toBe('v1');
    expect(await cache.get('b', load)).toBe('v2');
    expect(loads).toBe(2);
    expect(cache.size).toBe(2);
  });

  it('a notification drops that key (or all keys with an empty payload, or null after a lost connection)', async () => {
    const { cache, notify } = setup();
    let loads = 0;
    const load = async () => `v${++loads}`;
    await cache.get('a', load);
    await cache.get('b', load);
    notify(CHANNEL, 'a');
    expect(cache.size).toBe(1);
    expect(await cache.get('a', load)).toBe('v3');
    notify(CHANNEL, '');
    expect(cache.size).toBe(0);
    await cache.get('a', load);
    notify(CHANNEL, null);
    expect(cache.size).toBe(0);
    notify('another_channel', '');
    expect(loads).toBe(4);
  });

  it('while the bus cannot hear invalidations, reads through and keeps nothing; then caches again', async () => {
    const { cache, state, notify } = setup();
    let loads = 0;
    const load = async () => `v${++loads}`;
    expect(await cache.get('a', load)).toBe('v1');
    // The LISTEN connection drops: the bus says so (null) and is no longer trusted.
    notify(CHANNEL, null);
    state.trusted = false;
    expect(await cache.get('a', load)).toBe('v2');
    expect(await cache.get('a', load)).toBe('v3');
    expect(cache.size).toBe(0);
    // Each read that worked tells the bus the database answers: re-listen now.
    expect(state.reconnects).toBe(2);
    state.trusted = true;
    expect(await cache.get('a', load)).toBe('v4');
    expect(await cache.get('a', load)).toBe('v4');
  });

  it('a load that started before an invalidation returns its value but does not store it', async () => {
    const { cache, notify } = setup();
    const loader = controllableLoader<string>();
    const inFlight = cache.get('org', loader.load);
    notify(CHANNEL, 'org'); // another process committed a change while the load was reading
    loader.calls[0]!.resolve('old rows');
    expect(await inFlight).toBe('old rows');
    expect(cache.size).toBe(0);

    const next = cache.get('org', loader.load);
    expect(loader.calls).toHaveLength(2); // not served from memory
    loader.calls[1]!.resolve('new rows');
    expect(await next).toBe('new rows');
    expect(await cache.get('org', loader.load)).toBe('new rows');
    expect(loader.calls).toHaveLength(2);
  });

  it('concurrent misses share one load, but a get after an invalidation does not join an older load', async () => {
    const { cache, notify } = setup();
    const loader = controllableLoader<string>();
    const first = cache.get('org', loader.load);
    const second = cache.get('org', loader.load);
    expect(loader.calls).toHaveLength(1);
    notify(CHANNEL, 'org');
    const third = cache.get('org', loader.load);
    expect(loader.calls).toHaveLength(2);
    loader.calls[0]!.resolve('old');
    loader.calls[1]!.resolve('new');
    expect([await first, await second, await third]).toEqual(['old', 'old', 'new']);
    expect(await cache.get('org', loader.load)).toBe('new');
  });

  it('a failed load is not cached', async () => {
    const { cache } = setup();
    await expect(cache.get('a', async () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    expect(await cache.get('a', async () => 'ok')).toBe('ok');
  });

  it('entries expire after the TTL (which bounds staleness when a notification is lost)', async () => {
    let clock = 1_000;
    const { cache } = setup({ ttlMs: 500, now: () => clock });
    let loads = 0;
    const load = async () => `v${++loads}`;
    await cache.get('a', load);
    clock += 499;
    expect(await cache.get('a', load)).toBe('v1');
    clock += 1;
    expect(await cache.get('a', load)).toBe('v2');
  });

  it('expiresAt can shorten one entry’s life, never lengthen it', async () => {
    let clock = 0;
    const { cache } = setup({ ttlMs: 1_000, now: () => clock, expiresAt: (v) => (v === 'short' ? 100 : Infinity) });
    await cache.get('s', async () => 'short');
    await cache.get('l', async () => 'long');
    clock = 100;
    expect(await cache.get('s', async () => 'reloaded')).toBe('reloaded');
    clock = 999;
    expect(await cache.get('l', async () => 'reloaded')).toBe('long');
    clock = 1_000;
    expect(await cache.get('l', async () => 'reloaded')).toBe('reloaded');
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    const { cache } = setup({ maxEntries: 3 });
    for (const k of ['a', 'b', 'c', 'd']) await cache.get(k, async () => k);
    expect(cache.size).toBe(3);
    let reloaded = false;
    await cache.get('a', async () => ((reloaded = true), 'a'));
    expect(reloaded).toBe(true);
    await cache.get('d', async () => {
      throw new Error('d must still be cached');
    });
  });

  it('close() unsubscribes and empties', async () => {
    const { cache, subscribers } = setup();
    await cache.get('a', async () => 'a');
    expect(subscribers(CHANNEL)).toBe(1);
    cache.close();
    expect(subscribers(CHANNEL)).toBe(0);
    expect(cache.size).toBe(0);
  });
});

describe('invalidate(tx, key): NOTIFY in the transaction, local drop when it ends', () => {
  it('sends pg_notify(channel, key) inside the transaction', async () => {
    const { cache } = setup();
    const { db, statements } = fakeDb();
    let insideTx: string[] = [];
    await withTransaction(db, async (tx) => {
      await cache.invalidate(tx, 'org-1');
      insideTx = [...statements];
    });
    expect(insideTx).toEqual([`SELECT pg_notify($1, $2) ["${CHANNEL}","org-1"]`]);
  });

  it('a reader during the write does not cache the rows the write is replacing (the race)', async () => {
    const { cache } = setup();
    const { db } = fakeDb();
    const loader = controllableLoader<string>();
    await cache.get('org', async () => 'committed v1');

    // A load that started before the write and finishes during it.
    cache.clearLocal('org');
    const early = cache.get('org', loader.load);

    const commit = deferred<void>();
    const invalidated = deferred<void>();
    const write = withTransaction(db, async (tx) => {
      await cache.invalidate(tx, 'org');
      invalidated.resolve();
      await commit.promise; // the UPDATE is done but not committed yet
    });
    await invalidated.promise;
    loader.calls[0]!.resolve('v1 read before the write');
    expect(await early).toBe('v1 read before the write');

    // A reader during the transaction reads the still-committed v1 from the database...
    const during = cache.get('org', loader.load);
    expect(loader.calls).toHaveLength(2);
    loader.calls[1]!.resolve('v1 read during the write');
    expect(await during).toBe('v1 read during the write');
    expect(cache.size).toBe(0); // ...and keeps it to itself.

    commit.resolve();
    await write;
    // Read-after-write in this process: the next get loads the committed change.
    const after = cache.get('org', loader.load);
    expect(loader.calls).toHaveLength(3);
    loader.calls[2]!.resolve('v2');
    expect(await after).toBe('v2');
    expect(await cache.get('org', loader.load)).toBe('v2');
  });

  it('a load that started during the write and ends after the commit is not stored', async () => {
    const { cache } = setup();
    const { db } = fakeDb();
    const loader = controllableLoader<string>();
    const commit = deferred<void>();
    const started = deferred<void>();
    const write = withTransaction(db, async (tx) => {
      await cache.invalidate(tx, 'org');
      started.resolve();
      await commit.promise;
    });
    await started.promise;
    const straddling = cache.get('org', loader.load);
    commit.resolve();
    await write;
    loader.calls[0]!.resolve('v1 (snapshot before the commit)');
    await straddling;
    expect(cache.size).toBe(0);
  });

  it('a write to another key does not stop this key from being served from memory', async () => {
    const { cache } = setup();
    const { db } = fakeDb();
    await cache.get('a', async () => 'a1');
    const commit = deferred<void>();
    const started = deferred<void>();
    const write = withTransaction(db, async (tx) => {
      await cache.invalidate(tx, 'b');
      started.resolve();
      await commit.promise;
    });
    await started.promise;
    expect(await cache.get('a', async () => 'reloaded')).toBe('a1');
    commit.resolve();
    await write;
  });

  it('a rolled-back write also ends the hold on its key', async () => {
    const { cache } = setup();
    const { db } = fakeDb();
    await expect(
      withTransaction(db, async (tx) => {
        await cache.invalidate(tx, 'org');
        throw new Error('validation failed');
      }),
    ).rejects.toThrow('validation failed');
    await cache.get('org', async () => 'v1');
    expect(cache.size).toBe(1);
  });

  it('outside a transaction: NOTIFY at once, then the local drop', async () => {
    const { cache } = setup();
    const { db, statements } = fakeDb();
    await cache.get('org', async () => 'v1');
    await cache.invalidateAll(db);
    expect(statements).toEqual([`SELECT pg_notify($1, $2) ["${CHANNEL}",""]`]);
    expect(cache.size).toBe(0);
    await cache.get('org', async () => 'v2');
    expect(cache.size).toBe(1);
  });

  it('refuses a transaction it cannot see the end of, and an empty key', async () => {
    const { cache } = setup();
    const { db } = fakeDb();
    await expect(db.transaction().execute((tx) => cache.invalidate(tx, 'org'))).rejects.toThrow(/withTransaction/);
    expect(() => onTransactionEnd({}, () => {})).toThrow(/withTransaction/);
    await expect(cache.invalidate(db, '')).rejects.toThrow(/must not be empty/);
    await cache.get('org', async () => 'v1'); // nothing was left holding the key
    expect(cache.size).toBe(1);
  });
});
