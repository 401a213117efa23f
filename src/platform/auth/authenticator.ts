import { hash as digest } from 'node:crypto';
import type pg from 'pg';
import type { Database } from '../db/database.js';
import { createInvalidatedCache } from '../cache/invalidated-cache.js';
import { createInvalidationBus, type InvalidationBus } from '../cache/invalidation-bus.js';
import { UnauthorizedError } from '../http/errors.js';
import type { Actor } from './actor.js';
import { hashesMatch, parseApiKey } from './api-keys.js';

/**
 * Turns an `Authorization: Bearer <key>` header into an Actor.
 *
 * Successful lookups are cached for a few seconds keyed by the key's hash (a wrong secret never
 * hits the cache). Anything that can take a key's power away (revoking it, deactivating its
 * user, changing a role) calls `invalidate()`, which clears this process's cache and sends
 * NOTIFY so every other API process clears its own: revocation is immediate everywhere, and
 * the TTL only bounds staleness if a notification is lost. The cache and its listener are the
 * shared machinery of src/platform/cache (one LISTEN connection per process for every cache).
 */
export const AUTH_CHANNEL = 'rampart_auth_invalidate';
const CACHE_TTL_MS = 10_000;
const CACHE_MAX = 10_000;
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

export interface Authenticator {
  authenticate(authorization: string | undefined): Promise<Actor>;
  /** Drop cached identities here and in every other process (call after the change commits). */
  invalidate(): Promise<void>;
  /** Listen for other processes' invalidations; returns a stop function. */
  listen(pool: pg.Pool): Promise<() => Promise<void>>;
}

interface Identity {
  actor: Actor;
  keyExpiresAt: number | null;
}

/** `bus`: the process's shared invalidation listener (runtime.ts); a private one by default. */
export function createAuthenticator(db: Database, opts: { bus?: InvalidationBus } = {}): Authenticator {
  const bus = opts.bus ?? createInvalidationBus();
  // A lookup that started before an invalidation does not cache its result (generation counter).
  const cache = createInvalidatedCache<Identity>({
    channel: AUTH_CHANNEL,
    bus,
    ttlMs: CACHE_TTL_MS,
    maxEntries: CACHE_MAX,
    // Never cache an identity past its key's own expiry.
    expiresAt: (identity) => identity.keyExpiresAt ?? Infinity,
  });
  const lastUsedWrites = new Map<string, number>();

  async function lookup(key: string, hash: Buffer): Promise<Identity> {
    const parsed = parseApiKey(key);
    if (!parsed) throw new UnauthorizedError('Invalid API key');
    const row = await db
      .selectFrom('apiKeys as k')
      .innerJoin('users as u', 'u.id', 'k.userId')
      .innerJoin('roles as r', 'r.id', 'u.roleId')
      .select([
        'k.id as keyId',
        'k.keyHash',
        'k.revokedAt',
        'k.expiresAt',
        'k.organizationId',
        'u.id as userId',
        'u.deactivatedAt',
        'r.id as roleId',
        'r.permissions',
      ])
      .where('k.prefix', '=', parsed.prefix)
      .executeTakeFirst();
    // The same message for "no such key" and "wrong secret": never confirm a prefix exists.
    if (!row || !hashesMatch(row.keyHash, hash)) throw new UnauthorizedError('Invalid API key');
    if (row.revokedAt) throw new UnauthorizedError('API key has been revoked');
    if (row.expiresAt && row.expiresAt.getTime() <= Date.now()) throw new UnauthorizedError('API key has expired');
    if (row.deactivatedAt) throw new UnauthorizedError('The user of this API key is deactivated');
    return {
      actor: {
        type: 'user',
        userId: row.userId,
        organizationId: row.organizationId,
        apiKeyId: row.keyId,
        roleId: row.roleId,
        permissions: new Set(row.permissions),
      },
      keyExpiresAt: row.expiresAt?.getTime() ?? null,
    };
  }

  function touchLastUsed(actor: Actor): void {
    const keyId = actor.apiKeyId;
    const now = Date.now();
    if (keyId === null || (lastUsedWrites.get(keyId) ?? 0) > now - LAST_USED_WRITE_INTERVAL_MS) return;
    lastUsedWrites.set(keyId, now);
    db.updateTable('apiKeys').set({ lastUsedAt: new Date() }).where('id', '=', keyId).execute().catch(() => {});
  }

  return {
    async authenticate(authorization) {
      if (!authorization) throw new UnauthorizedError('Missing Authorization header (expected "Bearer <API key>")');
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (!match) throw new UnauthorizedError('Authorization header must be "Bearer <API key>"');
      const key = match[1]!;
      // One-shot hash straight to the cache key (a Hash object, its Buffer and the base64 copy
      // were ~3% of a request's CPU); the Buffer is only needed on a cache miss.
      const hash = digest('sha256', key, 'base64');
      const { actor } = await cache.get(hash, () => lookup(key, Buffer.from(hash, 'base64')));
      touchLastUsed(actor);
      return actor;
    },
    async invalidate() {
      await cache.invalidateAll(db).catch(() => {});
    },
    listen(pool) {
      return bus.listen(pool);
    },
  };
}
