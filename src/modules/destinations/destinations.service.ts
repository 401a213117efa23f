import { randomBytes, randomUUID } from 'node:crypto';
import { uuidv7 } from 'uuidv7';
import type { Database } from '../../platform/db/database.js';
import { hasPermission } from '../../platform/auth/actor.js';
import type { RequestContext } from '../../platform/context.js';
import { updatedSecret, type SecretBox } from '../../platform/secrets.js';
import { writeAudit } from '../../platform/audit.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../platform/http/errors.js';
import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';
import { iso } from '../../platform/time.js';
import { hasUrlSecrets, redactUrlSecrets } from '../../platform/outbound/url-secrets.js';
import { assertSecretStaysWithOrigin } from '../../platform/outbound/secret-origin.js';
import { tokenEndpoint } from './token-endpoint.fns.js';
import { createInvalidatedCache, type InvalidatedCache } from '../../platform/cache/invalidated-cache.js';
import type { InvalidationBus } from '../../platform/cache/invalidation-bus.js';
import type { ModuleReaders } from '../../platform/wiring.js';
import { withTransaction } from '../../platform/cache/transaction.js';
import { assertEditable, managedColumns, type WriteOptions } from '../../platform/managed.js';
import {
  agentsUsingDestination,
  deleteDestinationRow,
  findDestinationRow,
  insertDestinationRow,
  listDestinationRows,
  updateDestinationRow,
  type DestinationRow,
} from './destinations.repo.js';
import { Destination, type DestinationDto, type DestinationInputT } from './destinations.schemas.js';
import { compileSerializer } from '../../platform/http/serializer.js';

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

/** A destination's delivery health: the delivery module answers it (`ModuleReaders.destinationHealth`, below). */
export interface DestinationHealth {
  lastDeliveryStatus: 'succeeded' | 'retrying' | 'failed' | 'skipped' | null;
  /** When the latest attempt started. */
  lastDeliveryAt: string | null;
  lastError: string | null;
  consecutiveFailures: number;
}

declare module '../../platform/wiring.js' {
  interface ModuleReaders {
    /**
     * A destination's delivery health, asked on GET of one destination. Delivery answers it (its
     * manifest's `readers`): the attempts are delivery's rows, and delivery builds on destinations,
     * so destinations cannot import it.
     */
    destinationHealth: (q: Queryable, organizationId: string, destinationId: string) => Promise<DestinationHealth>;
  }
}

const inUse = (name: string, agents: string[]) =>
  new ConflictError(
    `Output destination "${name}" is used by agent${agents.length > 1 ? 's' : ''} ${agents.map((a) => `"${a}"`).join(', ')}; remove it from their outputDestinationIds before deleting it`,
  );

/**
 * Marks Slack channels blocked (reported archived or not found) in the destination's config,
 * from the delivery worker. Not a user update: `updatedAt` stays. The NOTIFY drops every
 * process's cached copy of the organization's destinations at commit.
 */
export async function blockSlackChannels(tx: Queryable, organizationId: string, destinationId: string, channels: readonly string[], at: Date): Promise<void> {
  if (channels.length === 0) return;
  const row = await findDestinationRow(tx, organizationId, destinationId, true);
  if (!row || row.type !== 'slack') return;
  const blocked = { ...((row.config.blockedChannels as Record<string, unknown> | undefined) ?? {}) };
  for (const c of channels) blocked[c] ??= { reason: 'archived', blockedAt: iso(at) };
  await tx
    .updateTable('outputDestinations')
    .set({ config: JSON.stringify({ ...row.config, blockedChannels: blocked }) })
    .where('organizationId', '=', organizationId)
    .where('id', '=', destinationId)
    .execute();
  await sql`SELECT pg_notify(${DESTINATIONS_CHANNEL}, ${organizationId})`.execute(tx);
}

/** Every URL a destination's config can hold (the routes' `outboundUrls`). */
const CONFIG_URLS = ['url', 'apiBaseUrl', 'tenantUrl'] as const;
/** A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes (the spec asks 24 to 64). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** When the previous secret stops signing, while it still does. */
function overlapEnd(row: Pick<DestinationRow, 'previousSigningSecretCiphertext' | 'previousSigningSecretExpiresAt'>): string | null {
  return row.previousSigningSecretCiphertext && row.previousSigningSecretExpiresAt && row.previousSigningSecretExpiresAt > new Date() ? iso(row.previousSigningSecretExpiresAt) : null;
}

export function createDestinationsService(deps: { db: Database; secrets: SecretBox; cache: InvalidatedCache<OrganizationDestinations>; readers?: Partial<ModuleReaders> }) {
  const { db, secrets, cache } = deps;
  const health = deps.readers?.destinationHealth;

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

  /** The config with credentials inside its URLs redacted; the same object when it has none (the cache keeps one copy). */
  function redactedConfig(config: Record<string, unknown>): Record<string, unknown> {
    const secretUrls = CONFIG_URLS.filter((k) => typeof config[k] === 'string' && hasUrlSecrets(config[k] as string));
    if (!secretUrls.length) return config;
    return { ...config, ...Object.fromEntries(secretUrls.map((k) => [k, redactUrlSecrets(config[k] as string)])) };
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
      // A Teams workflow URL's `sig=` is its credential: whole only for those who could change it.
      config: revealToken ? row.config : redactedConfig(row.config),
      hasToken: row.tokenCiphertext !== null,
      ...(row.type === 'webhook'
        ? { hasSigningSecret: row.signingSecretCiphertext !== null, previousSigningSecretExpiresAt: overlapEnd(row) }
        : {}),
      eventSubscriptions: row.eventSubscriptions,
      managedBy: row.managedBy,
      managedSource: row.managedSource,
    } as DestinationDto;
    if (revealToken && row.tokenCiphertext) dto.token = secrets.decrypt(row.tokenCiphertext);
    return dto;
  }

  /** undefined: not given (keep on update); null: clear; string: set. */
  function tokenOf(input: DestinationInputT): string | null | undefined {
    return (input as { token?: string | null }).token;
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

    /** `opts`: config apply's transaction and "managed by code" marking (platform/managed.ts). */
    async create(ctx: RequestContext, input: DestinationInputT, opts?: WriteOptions): Promise<DestinationDto> {
      const now = new Date();
      const token = tokenOf(input);
      const signingSecret = input.type === 'webhook' ? newSigningSecret() : null;
      const row: DestinationRow = {
        id: uuidv7(),
        organizationId: ctx.actor.organizationId,
        name: input.name,
        type: input.type,
        config: input.config as Record<string, unknown>,
        tokenCiphertext: token ? secrets.encrypt(token) : null,
        eventSubscriptions: [...new Set(input.eventSubscriptions ?? [])],
        managedBy: null,
        managedSource: null,
        signingSecretCiphertext: signingSecret ? secrets.encrypt(signingSecret) : null,
        previousSigningSecretCiphertext: null,
        previousSigningSecretExpiresAt: null,
        ...managedColumns(opts),
        createdAt: now,
        updatedAt: now,
      };
      await withTransaction(opts?.tx ?? db, async (tx) => {
        await cache.invalidate(tx, row.organizationId);
        await insertDestinationRow(tx, row);
        await writeAudit(tx, ctx, { action: 'destination.create', resourceType: 'destination', resourceId: row.id, metadata: { name: row.name, type: row.type, hasToken: !!token, signed: !!signingSecret } });
      });
      return { ...toDto(row, true), ...(signingSecret ? { signingSecret } : {}) };
    },

    /**
     * Replaces name, type and config. An omitted token keeps the stored one (null clears it)
     * unless the change sends it to another origin: then it must be given again (400).
     */
    async update(ctx: RequestContext, id: string, input: DestinationInputT, opts?: WriteOptions): Promise<DestinationDto> {
      return withTransaction(opts?.tx ?? db, async (tx) => {
        const existing = await findDestinationRow(tx, ctx.actor.organizationId, id, true);
        if (!existing) throw new NotFoundError('Output destination');
        assertEditable(existing, 'OutputDestination', existing.name, opts);
        const before = tokenEndpoint(existing.type as DestinationInputT['type'], existing.config);
        const after = tokenEndpoint(input.type, input.config as Record<string, unknown>);
        assertSecretStaysWithOrigin({
          secretField: 'token',
          urlField: existing.type === input.type ? after.field : 'type',
          before: before.url,
          after: after.url,
          stored: existing.tokenCiphertext !== null,
          // Teams has no token: the stored one is dropped, not moved.
          given: tokenOf(input) !== undefined || input.type === 'teams',
        });
        await cache.invalidate(tx, ctx.actor.organizationId);
        const token = updatedSecret(secrets, tokenOf(input), existing.tokenCiphertext);
        const tokenCiphertext = input.type === 'teams' ? null : token.ciphertext;
        // Omitted keeps the subscriptions (as for the token): a client unaware of them cannot drop them.
        const eventSubscriptions = input.eventSubscriptions === undefined ? existing.eventSubscriptions : [...new Set(input.eventSubscriptions)];
        // The signing secret is the destination's own: a token change leaves it; a destination
        // becoming a webhook gets one (shown in this answer), one ceasing to be a webhook loses it.
        const signingSecret = input.type === 'webhook' && !existing.signingSecretCiphertext ? newSigningSecret() : null;
        const signing =
          input.type !== 'webhook'
            ? { signingSecretCiphertext: null, previousSigningSecretCiphertext: null, previousSigningSecretExpiresAt: null }
            : signingSecret
              ? { signingSecretCiphertext: secrets.encrypt(signingSecret) }
              : {};
        const row: DestinationRow = { ...existing, name: input.name, type: input.type, config: input.config as Record<string, unknown>, tokenCiphertext, eventSubscriptions, ...signing, ...managedColumns(opts), updatedAt: new Date() };
        await updateDestinationRow(tx, row);
        await writeAudit(tx, ctx, {
          action: 'destination.update',
          resourceType: 'destination',
          resourceId: id,
          metadata: { name: row.name, type: row.type, token: token.change, ...(signingSecret ? { signingSecret: 'generated' } : {}) },
        });
        return { ...toDto(row, true), ...(signingSecret ? { signingSecret } : {}) };
      });
    },

    /**
     * A new signing secret for a webhook destination, answered once. The one it replaces keeps
     * signing beside it for `overlapSeconds` (deliveries carry both `v1,` signatures), so the
     * receiver can be switched to the new secret without refusing a delivery.
     */
    async rotateSigningSecret(ctx: RequestContext, id: string, overlapSeconds: number): Promise<{ signingSecret: string; previousSigningSecretExpiresAt: string | null }> {
      return withTransaction(db, async (tx) => {
        const existing = await findDestinationRow(tx, ctx.actor.organizationId, id, true);
        if (!existing) throw new NotFoundError('Output destination');
        if (existing.type !== 'webhook') throw new BadRequestError(`Only webhook destinations sign their deliveries; "${existing.name}" is a ${existing.type} destination`);
        await cache.invalidate(tx, ctx.actor.organizationId);
        const signingSecret = newSigningSecret();
        const now = new Date();
        const overlap = overlapSeconds > 0 && existing.signingSecretCiphertext !== null;
        const row: DestinationRow = {
          ...existing,
          signingSecretCiphertext: secrets.encrypt(signingSecret),
          previousSigningSecretCiphertext: overlap ? existing.signingSecretCiphertext : null,
          previousSigningSecretExpiresAt: overlap ? new Date(now.getTime() + overlapSeconds * 1000) : null,
          updatedAt: now,
        };
        await updateDestinationRow(tx, row);
        await writeAudit(tx, ctx, { action: 'destination.rotate_signing_secret', resourceType: 'destination', resourceId: id, metadata: { name: existing.name, overlapSeconds: overlap ? overlapSeconds : 0 } });
        return { signingSecret, previousSigningSecretExpiresAt: overlapEnd(row) };
      });
    },

    /** 409 while agents deliver to it (as for MCP servers); its delivery log stays readable. */
    async remove(ctx: RequestContext, id: string, opts?: WriteOptions): Promise<{ success: boolean }> {
      await withTransaction(opts?.tx ?? db, async (tx) => {
        const existing = await findDestinationRow(tx, ctx.actor.organizationId, id, true);
        if (!existing) throw new NotFoundError('Output destination');
        assertEditable(existing, 'OutputDestination', existing.name, opts);
        const agents = await agentsUsingDestination(tx, ctx.actor.organizationId, id);
        if (agents.length) throw inUse(existing.name, agents);
        await deleteDestinationRow(tx, ctx.actor.organizationId, id);
        await cache.invalidate(tx, ctx.actor.organizationId);
        await writeAudit(tx, ctx, { action: 'destination.delete', resourceType: 'destination', resourceId: id, metadata: { name: existing.name, type: existing.type } });
      });
      return { success: true };
    },
  };
}

export type DestinationsService = ReturnType<typeof createDestinationsService>;
