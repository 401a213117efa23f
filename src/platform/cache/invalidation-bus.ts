import { randomBytes } from 'node:crypto';
import type pg from 'pg';

/**
 * One LISTEN connection per process for every in-process cache that other processes must be
 * able to invalidate (a design rule: nothing another process must see lives only in memory).
 *
 * Caches `subscribe(channel, handler)`; the process calls `listen(pool)` once (the API role in
 * src/main.ts). A handler receives the NOTIFY payload, or `null` when notifications may have
 * been lost (the connection dropped and was re-established): it must then drop everything.
 * Without `listen` the bus simply delivers nothing, which is what a single process needs.
 *
 * While a listening bus has lost its connection, notifications go nowhere: `trusted()` is then
 * false and caches must not keep what they load (they read through), or a change committed by
 * another process during the gap (a revoked key) would be served from a cache refilled after
 * the database came back. The connection is re-made at once on loss, then with a short backoff,
 * and at once again whenever `reconnectNow()` says the database answers.
 *
 * A connection can also stay up and stop delivering (a pooler that moved our session, a stuck
 * server backend): nothing errors, notifications just stop (issue 46: a revoked key kept
 * working for 9.9 s). So a listening bus sends itself a heartbeat NOTIFY through the pool every
 * `heartbeatMs`; a beat not heard within the next interval makes the bus deaf: `onHeartbeatLost`
 * once, `trusted()` false and every cache dropped, until a beat is heard again
 * (`onHeartbeatBack`, caches dropped once more since whatever came meanwhile is lost).
 */
export type InvalidationHandler = (payload: string | null) => void;

export interface InvalidationBus {
  /** Receive the notifications of `channel`; returns an unsubscribe function. */
  subscribe(channel: string, handler: InvalidationHandler): () => void;
  /**
   * LISTEN on every subscribed channel (also those subscribed later) over one connection of
   * `pool`; returns a stop function. Calls nest: the connection is released by the last stop.
   */
  listen(pool: pg.Pool): Promise<() => Promise<void>>;
  /** False while this bus should be listening but is not (connection lost): nothing may be cached. */
  trusted(): boolean;
  /** The database answered (a read-through load worked): re-connect now rather than at the next backoff step. */
  reconnectNow(): void;
  /** For /readyz and /metrics: whether this process hears invalidations now. */
  health(): InvalidationHealth;
}

export interface InvalidationHealth {
  /** `off`: not listening (one process needs none); `reconnecting`: the connection is lost; `deaf`: connected but its own heartbeat is not heard. */
  state: 'off' | 'ok' | 'reconnecting' | 'deaf';
  /** Times the heartbeat was lost since start. */
  heartbeatLosses: number;
}

export interface InvalidationBusOptions {
  /** Delay between failed re-connection attempts (the first is immediate); doubles up to 5 s. */
  reconnectDelayMs?: number;
  /** Called once the LISTEN connection is back after a loss. */
  onReconnected?: () => void;
  onError?: (err: unknown) => void;
  /** Heartbeat NOTIFY interval while listening (default 5 s); 0 turns it off. */
  heartbeatMs?: number;
  /** Called once when the heartbeat stops being heard. */
  onHeartbeatLost?: () => void;
  /** Called when it is heard again. */
  onHeartbeatBack?: () => void;
}

/** The heartbeat's channel; payload `<process token>:<sequence>`. */
export const HEARTBEAT_CHANNEL = 'rampart_invalidation_heartbeat';

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

export function assertChannelName(channel: string): void {
  if (!CHANNEL.test(channel)) throw new Error(`invalid notification channel name "${channel}"`);
}

interface ListenState {
  pool: pg.Pool;
  refs: number;
  client: pg.PoolClient | null;
  /** Our 'error'/'end' listener on the current client. */
  lost: ((err?: unknown) => void) | null;
  /** Channels LISTENed on the current client. */
  listening: Set<string>;
  timer: NodeJS.Timeout | null;
  /** A connection attempt is under way. */
  connecting: boolean;
  /** Connected and LISTENing on every channel: notifications arrive. */
  ready: boolean;
  delayMs: number;
  stopped: boolean;
  heartbeat: NodeJS.Timeout | null;
  /** The oldest beat sent and not heard yet: its sequence and when it was sent. */
  unheard: { seq: number; at: number } | null;
  lastHeard: number;
  deaf: boolean;
}

const MAX_RECONNECT_DELAY_MS = 5_000;

export function createInvalidationBus(opts: InvalidationBusOptions = {}): InvalidationBus {
  const baseDelay = opts.reconnectDelayMs ?? 250;
  const onError = opts.onError ?? (() => {});
  const heartbeatMs = opts.heartbeatMs ?? 5_000;
  const handlers = new Map<string, Set<InvalidationHandler>>();
  let state: ListenState | null = null;
  let heartbeatLosses = 0;
  const token = randomBytes(6).toString('hex');
  let seq = 0;

  function deliver(channel: string, payload: string | null): void {
    for (const handler of handlers.get(channel) ?? []) {
      try {
        handler(payload);
      } catch (err) {
        onError(err);
      }
    }
  }

  function deliverToAll(payload: null): void {
    for (const channel of handlers.keys()) deliver(channel, payload);
  }

  const onNotification = (msg: pg.Notification) => {
    if (msg.channel === HEARTBEAT_CHANNEL) return heard(msg.payload ?? '');
    deliver(msg.channel, msg.payload ?? '');
  };

  /** One of our beats came back (other processes' beats on the channel are ignored). */
  function heard(payload: string): void {
    const s = state;
    const [from, n] = payload.split(':');
    if (!s || from !== token) return;
    s.lastHeard = Math.max(s.lastHeard, Number(n));
    if (s.unheard && s.lastHeard >= s.unheard.seq) s.unheard = null;
    if (s.deaf) {
      s.deaf = false;
      // What was notified while deaf is lost: every cache starts over.
      deliverToAll(null);
      opts.onHeartbeatBack?.();
    }
  }

  function beat(s: ListenState): void {
    if (s.stopped || !s.ready) return;
    const now = Date.now();
    if (s.unheard && now - s.unheard.at >= heartbeatMs && !s.deaf) {
      s.deaf = true;
      heartbeatLosses++;
      deliverToAll(null);
      opts.onHeartbeatLost?.();
    }
    const n = ++seq;
    // Sent on a pooled connection, not the listening one: the beat must travel through the server.
    s.pool.query('SELECT pg_notify($1, $2)', [HEARTBEAT_CHANNEL, `${token}:${n}`]).then(
      () => {
        // (It may have been heard already: a notification can overtake the query's answer.)
        if (!s.unheard && s.lastHeard < n) s.unheard = { seq: n, at: now };
      },
      // The database is away: that is the connection's loss to report, not deafness.
      () => {},
    );
  }

  function startHeartbeat(s: ListenState): void {
    if (heartbeatMs <= 0 || s.heartbeat) return;
    s.heartbeat = setInterval(() => beat(s), heartbeatMs);
    s.heartbeat.unref();
  }

  async function ensureListening(s: ListenState, client: pg.PoolClient, channel: string): Promise<void> {
    if (s.listening.has(channel)) return;
    s.listening.add(channel);
    await client.query(`LISTEN ${channel}`);
  }

  function detach(s: ListenState, client: pg.PoolClient): void {
    client.off('notification', onNotification);
    if (s.lost) {
      client.off('error', s.lost);
      client.off('end', s.lost);
      s.lost = null;
    }
  }

  async function connect(s: ListenState): Promise<void> {
    const client = await s.pool.connect();
    const lost = (err?: unknown) => onLost(s, client, err);
    client.on('notification', onNotification);
    client.on('error', lost);
    client.on('end', lost);
    s.client = client;
    s.lost = lost;
    s.listening = new Set();
    try {
      if (heartbeatMs > 0) await ensureListening(s, client, HEARTBEAT_CHANNEL);
      for (const channel of handlers.keys()) await ensureListening(s, client, channel);
    } catch (err) {
      onLost(s, client, err);
      throw err;
    }
    s.ready = s.client === client;
    // A new connection starts with a clean slate: beats sent before it are not expected on it.
    s.unheard = null;
    if (s.deaf && s.ready) {
      s.deaf = false;
      opts.onHeartbeatBack?.();
    }
  }

  function onLost(s: ListenState, client: pg.PoolClient, err?: unknown): void {
    if (s.client !== client) return;
    s.client = null;
    s.ready = false;
    detach(s, client);
    client.release(err instanceof Error ? err : new Error('LISTEN connection lost'));
    if (s.stopped) return;
    if (err) onError(err);
    // Whatever was notified while we were not listening is lost: every cache starts over.
    deliverToAll(null);
    reconnect(s);
  }

  /** One connection attempt now (unless one is under way); on failure the next after a backoff. */
  function reconnect(s: ListenState): void {
    if (s.stopped || s.connecting || s.client) return;
    if (s.timer) {
      clearTimeout(s.timer);
      s.timer = null;
    }
    s.connecting = true;
    connect(s).then(
      () => {
        s.connecting = false;
        if (s.stopped) return release(s);
        s.delayMs = baseDelay;
        // Loads that started while we were deaf must not be kept: every cache starts over.
        deliverToAll(null);
        opts.onReconnected?.();
      },
      (err: unknown) => {
        s.connecting = false;
        onError(err);
        if (s.stopped || s.timer) return;
        s.timer = setTimeout(() => {
          s.timer = null;
          reconnect(s);
        }, s.delayMs);
        s.timer.unref();
        s.delayMs = Math.min(s.delayMs * 2, MAX_RECONNECT_DELAY_MS);
      },
    );
  }

  /** Stopped while a connection attempt was under way: give its connection back. */
  function release(s: ListenState): void {
    const client = s.client;
    s.client = null;
    s.ready = false;
    if (!client) return;
    detach(s, client);
    client.release();
  }

  async function stop(s: ListenState): Promise<void> {
    if (--s.refs > 0) return;
    s.stopped = true;
    if (state === s) state = null;
    if (s.timer) clearTimeout(s.timer);
    if (s.heartbeat) clearInterval(s.heartbeat);
    const client = s.client;
    s.client = null;
    if (!client) return;
    detach(s, client);
    await client.query('UNLISTEN *').catch(() => {});
    client.release();
  }

  function stopFunction(s: ListenState): () => Promise<void> {
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      await stop(s);
    };
  }

  return {
    subscribe(channel, handler) {
      assertChannelName(channel);
      let set = handlers.get(channel);
      if (!set) handlers.set(channel, (set = new Set()));
      set.add(handler);
      const s = state;
      if (s?.client) {
        const client = s.client;
        ensureListening(s, client, channel).catch((err: unknown) => onLost(s, client, err));
      }
      return () => {
        set.delete(handler);
      };
    },

    async listen(pool) {
      if (state) {
        if (state.pool !== pool) throw new Error('this invalidation bus already listens on another pool');
        state.refs++;
        return stopFunction(state);
      }
      const s: ListenState = {
        pool,
        refs: 1,
        client: null,
        lost: null,
        listening: new Set(),
        timer: null,
        connecting: false,
        ready: false,
        delayMs: baseDelay,
        stopped: false,
        heartbeat: null,
        unheard: null,
        lastHeard: 0,
        deaf: false,
      };
      state = s;
      // Marked as connecting: a failure inside connect() must not start a reconnection of its
      // own (this call reports the failure to its caller instead).
      s.connecting = true;
      try {
        await connect(s);
        s.connecting = false;
        startHeartbeat(s);
      } catch (err) {
        s.connecting = false;
        s.stopped = true;
        if (s.timer) clearTimeout(s.timer);
        if (state === s) state = null;
        throw err;
      }
      return stopFunction(s);
    },

    trusted() {
      return state === null || (state.ready && !state.deaf);
    },

    health() {
      const s = state;
      const st: InvalidationHealth['state'] = !s ? 'off' : !s.ready ? 'reconnecting' : s.deaf ? 'deaf' : 'ok';
      return { state: st, heartbeatLosses };
    },

    reconnectNow() {
      if (state && !state.ready) reconnect(state);
    },
  };
}
