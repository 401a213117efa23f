import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../../platform/db/database.js';
import { hasPermission } from '../../platform/auth/actor.js';
import type { RequestContext } from '../../platform/context.js';
import type { SecretBox } from '../../platform/secrets.js';
import { NotFoundError } from '../../platform/http/errors.js';
import { createInvalidatedCache, type InvalidatedCache } from '../../platform/cache/invalidated-cache.js';
import type { InvalidationBus } from '../../platform/cache/invalidation-bus.js';
import type { ModuleReaders } from '../../platform/wiring.js';
import { compileSerializer } from '../../platform/http/serializer.js';
import { listDestinationRows } from './destinations.repo.js';
import { Destination, type DestinationDto } from './destinations.schemas.js';
import { destinationDto } from './destinations.fns.js';

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
  /** Frozen; without `token`, and with credentials inside URLs redacted. */
  dto: DestinationDto;
  tokenCiphertext: string | null;
  /** The config as stored when it differs from `dto.config` (a URL carried a credential). */
  fullConfig: DestinationDto['config'] | null;
}

export interface OrganizationDestinations {
  all: readonly CachedDestination[];
  /** What a caller without `destination.manage` gets: the same frozen objects. */
  withoutTokens: readonly DestinationDto[];
  byId: ReadonlyMap<string, CachedDestination>;
}

/** A revealed destination's JSON, or the JSON before and after its token's value. */
type RevealedPart = string | { before: string; after: string; tokenCiphertext: string };

interface ListingJson {
  withoutTokens?: string;
  revealed?: readonly RevealedPart[];
}

/**
 * Stands for the token while a revealed destination's JSON is built, then is cut out: no stored
 * value can contain it (a NUL is refused in every input, and the UUID is this process's).
 */
const TOKEN_SLOT = `\u0000token:${randomUUID()}`;
const TOKEN_SLOT_JSON = JSON.stringify(TOKEN_SLOT);

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

/** What the reads are served from: the cache, and delivery's answer to a destination's health. */
export interface DestinationReadsDeps {
  db: Database;
  secrets: SecretBox;
  cache: InvalidatedCache<OrganizationDestinations>;
  readers?: Partial<ModuleReaders> | undefined;
}

/** The reads of destinations, all from the cache: the listing's JSON, one destination, and whether an event has subscribers. */
export function createDestinationReads(deps: DestinationReadsDeps) {
  const { db, secrets, cache } = deps;
  const health = deps.readers?.destinationHealth;
  const toDto = (row: Parameters<typeof destinationDto>[0], revealToken: boolean) => destinationDto(row, revealToken, (c) => secrets.decrypt(c));

  // The listing's JSON per cache entry (a WeakMap: a new entry after an invalidation starts
  // empty, a dropped one takes its JSON with it). Built with the serializer of the response
  // schema's element, so the bytes are those the route's own serializer writes for the DTOs.
  const listings = new WeakMap<OrganizationDestinations, ListingJson>();
  let serializeOne: ((data: unknown) => string) | null = null;
  const serialize = (dto: DestinationDto) => (serializeOne ??= compileSerializer(Destination))(dto);

  function listingOf(entry: OrganizationDestinations): ListingJson {
    let listing = listings.get(entry);
    if (!listing) listings.set(entry, (listing = {}));
    return listing;
  }

  /** A revealed destination's JSON; with a token, the JSON around it (the token is spliced in per response). */
  function revealedPart(d: CachedDestination): RevealedPart {
    const shown = (d.fullConfig ? { ...d.dto, config: d.fullConfig } : d.dto) as DestinationDto;
    if (!d.tokenCiphertext) return serialize(shown);
    const json = serialize({ ...shown, token: TOKEN_SLOT } as DestinationDto);
    const at = json.indexOf(TOKEN_SLOT_JSON);
    return { before: json.slice(0, at), after: json.slice(at + TOKEN_SLOT_JSON.length), tokenCiphertext: d.tokenCiphertext };
  }

  async function loadOrganization(organizationId: string, q: Queryable = db): Promise<OrganizationDestinations> {
    const all = (await listDestinationRows(q, organizationId)).map((row) => {
      const dto = toDto(row, false);
      return Object.freeze({ dto: deepFreeze(dto), tokenCiphertext: row.tokenCiphertext, fullConfig: dto.config === row.config ? null : deepFreeze(row.config as DestinationDto['config']) });
    });
    return { all: Object.freeze(all), withoutTokens: Object.freeze(all.map((d) => d.dto)), byId: new Map(all.map((d) => [d.dto.id, d])) };
  }

  /** `q`: where a miss is loaded; a caller inside a transaction passes it (a second pool connection, awaited while holding one, could deadlock a busy pool). */
  function organizationDestinations(organizationId: string, q: Queryable = db): Promise<OrganizationDestinations> {
    return cache.get(organizationId, () => loadOrganization(organizationId, q));
  }

  /**
   * The cached response (URL credentials redacted), plus, in a copy for a caller with
   * `destination.manage`, the token and the URL as stored.
   */
  function respond(d: CachedDestination, revealToken: boolean): DestinationDto {
    if (!revealToken) return d.dto;
    const full = (d.fullConfig ? { ...d.dto, config: d.fullConfig } : d.dto) as DestinationDto;
    return d.tokenCiphertext ? { ...full, token: secrets.decrypt(d.tokenCiphertext) } : full;
  }

  return {
    /**
     * Whether any destination of the organization subscribes to `eventType`, from the cache: an
     * event nobody subscribes to (the common case on intake) costs no query.
     */
    async hasSubscribers(q: Queryable, organizationId: string, eventType: string): Promise<boolean> {
      return (await organizationDestinations(organizationId, q)).all.some((d) => d.dto.eventSubscriptions.includes(eventType));
    },

    /**
     * The listing as the JSON the route's response schema serializes it to (the route writes it
     * as is). Kept per cache entry: whole for callers without `destination.manage`; for those
     * with it, per destination, with each token decrypted and spliced in per response, so
     * nothing kept holds a plaintext token (the SecretBox's own bounded plaintext cache aside).
     */
    async listJson(ctx: RequestContext): Promise<string> {
      const reveal = hasPermission(ctx.actor, 'destination.manage');
      const cached = await organizationDestinations(ctx.actor.organizationId);
      const listing = listingOf(cached);
      if (!reveal) return (listing.withoutTokens ??= `[${cached.withoutTokens.map(serialize).join(',')}]`);
      // A string: assembling a Buffer per response instead (a 9 KB allocation outside V8's heap
      // each time) measured ~10% more CPU per request (docs/performance.md).
      const parts = (listing.revealed ??= cached.all.map(revealedPart));
      let json = '[';
      for (let i = 0; i < parts.length; i++) {
        const part = parts[i]!;
        if (i > 0) json += ',';
        json += typeof part === 'string' ? part : part.before + JSON.stringify(secrets.decrypt(part.tokenCiphertext)) + part.after;
      }
      return json + ']';
    },

    async get(ctx: RequestContext, id: string): Promise<DestinationDto> {
      const cached = (await organizationDestinations(ctx.actor.organizationId)).byId.get(id);
      if (!cached) throw new NotFoundError('Output destination');
      const dto = respond(cached, hasPermission(ctx.actor, 'destination.manage'));
      // Health is fresh on every GET of one destination; the (cached, hot) listing omits it.
      return health ? { ...dto, ...(await health(db, ctx.actor.organizationId, id)) } : dto;
    },

  };
}
