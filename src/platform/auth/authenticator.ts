import { createHash } from 'node:crypto';
import type pg from 'pg';
import { sql } from 'kysely';
import type { Database } from '../db/database.js';
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
 * the TTL only bounds staleness if a notification is lost.
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

interface CacheEntry {
  actor: Actor;
  expiresAt: number;
}

export function createAuthenticator(db: Database): Authenticator {
  const cache = new Map<string, CacheEntry>();
  // Bumped by every invalidation: a lookup that started before one must not cache its result.
  let generation = 0;
  const lastUsedWrites = new Map<string, number>();

  async function lookup(key: string, hash: Buffer): Promise<{ actor: Actor; keyExpiresAt: number | null }> {
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
      const hash = createHash('sha256').update(key, 'utf8').digest();
      const cacheKey = hash.toString('base64');
      const hit = cache.get(cacheKey);
      const now = Date.now();
      if (hit && hit.expiresAt > now) {
        touchLastUsed(hit.actor);
        return hit.actor;
      }
      const startedAt = generation;
      const { actor, keyExpiresAt } = await lookup(key, hash);
      if (startedAt === generation) {
        if (cache.size >= CACHE_MAX) cache.clear();
        // Never cache an identity past its key's own expiry.
        cache.set(cacheKey, { actor, expiresAt: Math.min(now + CACHE_TTL_MS, keyExpiresAt ?? Infinity) });
      }
      touchLastUsed(actor);
      return actor;
    },
    async invalidate() {
      generation++;
      cache.clear();
      await sql.raw(`NOTIFY ${AUTH_CHANNEL}`).execute(db).catch(() => {});
    },
    async listen(pool) {
      const client = await pool.connect();
      const onNotification = () => {
        generation++;
        cache.clear();
      };
      client.on('notification', onNotification);
      await client.query(`LISTEN ${AUTH_CHANNEL}`);
      return async () => {
        client.off('notification', onNotification);
        await client.query(`UNLISTEN ${AUTH_CHANNEL}`).catch(() => {});
        client.release();
      };
    },
  };
}
