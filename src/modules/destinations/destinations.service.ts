import { uuidv7 } from 'uuidv7';
import type { Database } from '../../platform/db/database.js';
import { hasPermission } from '../../platform/auth/actor.js';
import type { RequestContext } from '../../platform/context.js';
import { updatedSecret, type SecretBox } from '../../platform/secrets.js';
import { writeAudit } from '../../platform/audit.js';
import { NotFoundError } from '../../platform/http/errors.js';
import { iso } from '../../platform/time.js';
import { createInvalidatedCache, type InvalidatedCache } from '../../platform/cache/invalidated-cache.js';
import type { InvalidationBus } from '../../platform/cache/invalidation-bus.js';
import { withTransaction } from '../../platform/cache/transaction.js';
import {
  deleteDestinationRow,
  findDestinationRow,
  insertDestinationRow,
  listDeliveries,
  listDestinationRows,
  updateDestinationRow,
  type DestinationRow,
} from './destinations.repo.js';
import type { DestinationDto, DestinationInputT } from './destinations.schemas.js';

/**
 * The organization's destinations are read on every listing (the API's hottest route), so they
 * are kept in an invalidated read cache (src/platform/cache): every change below invalidates
 * its organization inside its transaction. Cached per destination: its response without the
 * token (built once: ISO dates cost ~1 µs each) and the token still encrypted. A token is
 * decrypted and added, into a copy made for that response, only for callers with
 * `destination.manage`; nothing shared ever holds a plaintext token.
 */
export const DESTINATIONS_CHANNEL = 'rampart_destinations_invalidate';
const CACHE_TTL_MS = 60_000;
const CACHE_MAX_ORGANIZATIONS = 10_000;

interface CachedDestination {
  /** Frozen; without `token`. */
  dto: DestinationDto;
  tokenCiphertext: string | null;
}

export interface OrganizationDestinations {
  all: readonly CachedDestination[];
  /** What a caller without `destination.manage` gets: the same frozen objects. */
  withoutTokens: readonly DestinationDto[];
  byId: ReadonlyMap<string, CachedDestination>;
}

export function createDestinationsCache(bus: InvalidationBus): InvalidatedCache<OrganizationDestinations> {
  return createInvalidatedCache<OrganizationDestinations>({
    channel: DESTINATIONS_CHANNEL,
    bus,
    ttlMs: CACHE_TTL_MS,
    maxEntries: CACHE_MAX_ORGANIZATIONS,
  });
}

/** Entries are shared by concurrent requests: nothing may change them. */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}

export function createDestinationsService(deps: { db: Database; secrets: SecretBox; cache: InvalidatedCache<OrganizationDestinations> }) {
  const { db, secrets, cache } = deps;

  async function loadOrganization(organizationId: string): Promise<OrganizationDestinations> {
    const all = (await listDestinationRows(db, organizationId)).map((row) => Object.freeze({ dto: deepFreeze(toDto(row, false)), tokenCiphertext: row.tokenCiphertext }));
    return { all: Object.freeze(all), withoutTokens: Object.freeze(all.map((d) => d.dto)), byId: new Map(all.map((d) => [d.dto.id, d])) };
  }

  function organizationDestinations(organizationId: string): Promise<OrganizationDestinations> {
    return cache.get(organizationId, () => loadOrganization(organizationId));
  }

  /** The cached response, plus the token in a copy of it for a caller with `destination.manage`. */
  function respond(d: CachedDestination, revealToken: boolean): DestinationDto {
    return revealToken && d.tokenCiphertext ? { ...d.dto, token: secrets.decrypt(d.tokenCiphertext) } : d.dto;
  }

  /** The token is revealed only to callers who could change it anyway. */
  function toDto(row: DestinationRow, revealToken: boolean): DestinationDto {
    const dto = {
      id: row.id,
      organizationId: row.organizationId,
      name: row.name,
      createdAt: iso(row.createdAt),
      updatedAt: iso(row.updatedAt),
      type: row.type,
      config: row.config,
      hasToken: row.tokenCiphertext !== null,
    } as DestinationDto;
    if (revealToken && row.tokenCiphertext) dto.token = secrets.decrypt(row.tokenCiphertext);
    return dto;
  }

  /** undefined: not given (keep on update); null: clear; string: set. */
  function tokenOf(input: DestinationInputT): string | null | undefined {
    return (input as { token?: string | null }).token;
  }

  return {
    async list(ctx: RequestContext): Promise<DestinationDto[]> {
      const reveal = hasPermission(ctx.actor, 'destination.manage');
      const cached = await organizationDestinations(ctx.actor.organizationId);
      return reveal ? cached.all.map((d) => respond(d, true)) : (cached.withoutTokens as DestinationDto[]);
    },

    async get(ctx: RequestContext, id: string): Promise<DestinationDto> {
      const cached = (await organizationDestinations(ctx.actor.organizationId)).byId.get(id);
      if (!cached) throw new NotFoundError('Output destination');
      return respond(cached, hasPermission(ctx.actor, 'destination.manage'));
    },

    async create(ctx: RequestContext, input: DestinationInputT): Promise<DestinationDto> {
      const now = new Date();
      const token = tokenOf(input);
      const row: DestinationRow = {
        id: uuidv7(),
        organizationId: ctx.actor.organizationId,
        name: input.name,
        type: input.type,
        config: input.config as Record<string, unknown>,
        tokenCiphertext: token ? secrets.encrypt(token) : null,
        createdAt: now,
        updatedAt: now,
      };
      await withTransaction(db, async (tx) => {
        await cache.invalidate(tx, row.organizationId);
        await insertDestinationRow(tx, row);
        await writeAudit(tx, ctx, { action: 'destination.create', resourceType: 'destination', resourceId: row.id, metadata: { name: row.name, type: row.type, hasToken: !!token } });
      });
      return toDto(row, true);
    },

    /** Replaces name, type and config. An omitted token keeps the stored one; null clears it. */
    async update(ctx: RequestContext, id: string, input: DestinationInputT): Promise<DestinationDto> {
      return withTransaction(db, async (tx) => {
        const existing = await findDestinationRow(tx, ctx.actor.organizationId, id, true);
        if (!existing) throw new NotFoundError('Output destination');
        await cache.invalidate(tx, ctx.actor.organizationId);
        const token = updatedSecret(secrets, tokenOf(input), existing.tokenCiphertext);
        const tokenCiphertext = input.type === 'teams' ? null : token.ciphertext;
        const row: DestinationRow = { ...existing, name: input.name, type: input.type, config: input.config as Record<string, unknown>, tokenCiphertext, updatedAt: new Date() };
        await updateDestinationRow(tx, row);
        await writeAudit(tx, ctx, {
          action: 'destination.update',
          resourceType: 'destination',
          resourceId: id,
          metadata: { name: row.name, type: row.type, token: token.change },
        });
        return toDto(row, true);
      });
    },

    async remove(ctx: RequestContext, id: string): Promise<{ success: boolean }> {
      await withTransaction(db, async (tx) => {
        if (!(await deleteDestinationRow(tx, ctx.actor.organizationId, id))) throw new NotFoundError('Output destination');
        await cache.invalidate(tx, ctx.actor.organizationId);
        await writeAudit(tx, ctx, { action: 'destination.delete', resourceType: 'destination', resourceId: id });
      });
      return { success: true };
    },

    async deliveries(ctx: RequestContext, id: string, limit: number, offset: number) {
      if (!(await findDestinationRow(db, ctx.actor.organizationId, id))) throw new NotFoundError('Output destination');
      const { rows, totalCount } = await listDeliveries(db, ctx.actor.organizationId, id, limit, offset);
      return {
        deliveries: rows.map((r) => ({ ...r, status: r.status as 'pending' | 'delivered' | 'failed' | 'skipped', createdAt: iso(r.createdAt), updatedAt: iso(r.updatedAt) })),
        totalCount,
      };
    },
  };
}

export type DestinationsService = ReturnType<typeof createDestinationsService>;
