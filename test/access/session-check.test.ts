import type pg from 'pg';
import pino from 'pino';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertSessionKept } from '../../src/platform/db/session-check.js';
import { migrateToLatest } from '../../src/migrations.js';
import { bootstrapIfEmpty } from '../../src/modules/organizations/index.js';
import { createInvalidationBus } from '../../src/platform/cache/invalidation-bus.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { until } from '../support/until.js';

// Issue 46 point 1 outside the chaos suite (which runs the same through Debian's PgBouncer):
// the start-up session check passes on a direct connection, the start-up locks are never left
// held, a lost prepared statement answers 503 and not 500, and the invalidation heartbeat
// notices a listening connection that stops hearing.

let t: TestContext;
const logged: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  const logger = pino({ level: 'warn' }, { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) });
  t = await createTestApp({ logger });
});
afterAll(() => t.close());

const advisoryLocks = async () =>
  (await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`.execute(t.database.db)).rows[0]!.n;

/** How this file's waits poll (an observable state, no timed assertion; 20 s bounds a hang). */
const polling = { timeoutMs: 20_000, everyMs: 20 };

describe('the start-up session check', () => {
  it('passes on a connection that keeps sessions, and gives its connections back clean', async () => {
    await assertSessionKept(t.database.pool);
    await assertSessionKept(t.database.pool);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'rampart_session_check%'`.execute(t.database.db);
    expect(rows[0]!.n).toBe(0);
  });
});

describe('start-up locks cannot leak', () => {
  it('migrations run concurrently from two starts take turns and leave no advisory lock held', async () => {
    const results = await Promise.all([migrateToLatest(t.database.db, t.database.pool), migrateToLatest(t.database.db, t.database.pool)]);
    expect(results.map((r) => r.applied)).toEqual([[], []]);
    expect(await advisoryLocks()).toBe(0);
  });

  it('the first-start bootstrap finds the organizations and leaves no advisory lock held', async () => {
    const results = await Promise.all([0, 1].map(() => bootstrapIfEmpty(t.database.db, { dataDir: t.config.dataDir, logger: pino({ level: 'silent' }) })));
    expect(results).toEqual([null, null]);
    expect(await advisoryLocks()).toBe(0);
  });
});

describe('a prepared statement lost under a running process', () => {
  it('answers 503 with Retry-After (not 500), and the next request works on a fresh connection', async () => {
    const key = bearer(t.orgA.apiKey.key);
    const create = () => t.app.inject({ method: 'POST', url: '/api/alerts', headers: key, payload: { title: 'Session lost', severity: 'low' } });
    // Creating an alert runs the named statement `rampart_insert_alert` on the pool's most recently used connection.
    expect((await create()).statusCode).toBe(200);

    // What a pooler moving us to another server connection does: the connections forget their
    // prepared statements while pg still believes they exist. (Taken most recent first and given
    // back in reverse: the connection that prepared the statement is the next one used.)
    const clients: pg.PoolClient[] = [];
    while (t.database.pool.idleCount > 0) clients.push(await t.database.pool.connect());
    for (const c of clients) await c.query('DEALLOCATE ALL');
    for (const c of clients.reverse()) c.release();

    const lost = await create();
    expect(lost.statusCode, lost.body).toBe(503);
    expect(lost.headers['retry-after']).toBeDefined();
    expect(lost.json()).toEqual({ error: expect.any(String) });
    // That connection was discarded, not given back: the next request is served.
    expect((await create()).statusCode).toBe(200);
  });
});

describe('the invalidation heartbeat', () => {
  it('a listening connection that stops delivering makes the bus deaf (caches bypassed) until it hears again', async () => {
    let lost = 0;
    let back = 0;
    const bus = createInvalidationBus({ heartbeatMs: 100, onHeartbeatLost: () => lost++, onHeartbeatBack: () => back++ });
    const dropped: Array<string | null> = [];
    bus.subscribe('rampart_test_heartbeat', (p) => dropped.push(p));
    expect(bus.health().state).toBe('off');
    const stop = await bus.listen(t.database.pool);
    try {
      expect(bus.health()).toEqual({ state: 'ok', heartbeatLosses: 0 });
      // A beat goes round before anything is stopped.
      await until('a first heartbeat', async () => {
        const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN rampart_%'`.execute(t.database.db);
        return rows[0]!.n > 0;
      }, polling);
      // The listening server backend stops (SIGSTOP): its TCP connection stays up, nothing errors, notifications stop.
      const { rows } = await sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN rampart_%'`.execute(t.database.db);
      expect(rows).toHaveLength(1);
      const pid = rows[0]!.pid;
      process.kill(pid, 'SIGSTOP');
      try {
        await until('the bus to notice', () => bus.health().state === 'deaf', polling);
        expect(lost).toBe(1);
        expect(bus.trusted()).toBe(false);
        expect(dropped).toContain(null);
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      await until('the bus to hear again', () => bus.health().state === 'ok', polling);
      expect(bus.health()).toEqual({ state: 'ok', heartbeatLosses: 1 });
      expect(bus.trusted()).toBe(true);
      expect(back).toBe(1);
      // Lost once: one report, however long it lasted.
      expect(lost).toBe(1);
    } finally {
      await stop();
    }
  });

  it('/readyz and /metrics say whether this process hears invalidations', async () => {
    const ready = await t.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    // The test app does not listen (one process): off, which needs nothing heard.
    expect(ready.json()).toEqual({ status: 'ready', database: 'ok', migrations: 'ok', invalidation: 'off' });
    const metrics = (await t.app.inject({ url: '/metrics' })).body;
    expect(metrics).toMatch(/^rampart_cache_invalidation_heartbeat_losses_total 0$/m);
    expect(metrics).toMatch(/^rampart_cache_invalidation_heard 1$/m);
  });
});
