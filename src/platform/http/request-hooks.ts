import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Actor } from '../auth/actor.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { Permission } from '../auth/permissions.js';
import { assertNotSunset, deprecationHeaders, type DeprecationInfo } from './deprecation.js';
import { requirePermissions, UnauthorizedError } from './errors.js';
import type { RateLimiter } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** No API key needed (health, metrics, docs). */
    public?: boolean;
    /** Checked before the body is read, so a caller without them gets 403, not a 400. */
    permissions?: readonly Permission[];
    deprecated?: DeprecationInfo;
    /**
     * How a public route is rate limited: by client address (default), `none` (health and
     * metrics probes: a flood must never make a supervisor think the process is down), or
     * `perTrigger` (webhook intake: one noisy sender cannot starve the others).
     */
    rateLimit?: 'address' | 'none' | 'perTrigger';
    /** Body fields (dotted paths) holding URLs Rampart will call: literal private addresses are refused at once. */
    outboundUrls?: string[];
    /**
     * Also accept `Authorization: Basic` with the API key as the password (the user name is
     * ignored): what TAXII clients and MISP feed subscriptions can send.
     */
    basicAuth?: boolean;
  }
  interface FastifyRequest {
    actor?: Actor;
  }
}

/** The authenticated actor of a non-public route (set by the onRequest hook). */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new UnauthorizedError();
  return request.actor;
}

/**
 * The web console's cookie authentication (src/modules/sessions): null when the request has no
 * session cookie; throws 401 (ended session) or 403 (missing CSRF token) otherwise.
 */
export interface CookieAuthenticator {
  authenticate(request: FastifyRequest): Promise<Actor | null>;
}

/**
 * Per request, in this order: the `x-request-id` response header (first, so every answer
 * carries it, errors included; one hook instead of two, each global hook costs every request),
 * sunset check (410 is about the endpoint, whoever asks), API key
 * or, without an Authorization header, console session cookie (401), rate limit (429),
 * declared permissions (403). All before the body is parsed.
 */
export function installRequestHooks(
  app: FastifyInstance,
  deps: { authenticator: Authenticator; rateLimiter: RateLimiter; sessions?: CookieAuthenticator },
): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    const config = request.routeOptions.config;
    if (config.deprecated) {
      assertNotSunset(config.deprecated);
      reply.headers(deprecationHeaders(config.deprecated));
    }
    if (request.is404 || config.public) {
      if (config.rateLimit === 'none') return;
      const triggerId = config.rateLimit === 'perTrigger' ? (request.params as { triggerId?: string }).triggerId : undefined;
      deps.rateLimiter.hit(triggerId ? `trigger:${triggerId.toLowerCase()}` : `ip:${request.ip}`);
      return;
    }
    try {
      const fromCookie = request.headers.authorization === undefined ? await deps.sessions?.authenticate(request) : null;
      const authorization = config.basicAuth ? basicAsBearer(request.headers.authorization) : request.headers.authorization;
      request.actor = fromCookie ?? (await deps.authenticator.authenticate(authorization));
    } catch (err) {
      // Failed attempts count against the address so key guessing is throttled too.
      deps.rateLimiter.hit(`ip:${request.ip}`);
      throw err;
    }
    // A session opened by a sign-in link has no key: it is limited on its own.
    deps.rateLimiter.hit(request.actor.apiKeyId ? `key:${request.actor.apiKeyId}` : `user:${request.actor.userId}`);
    if (config.permissions?.length) requirePermissions(request.actor, ...config.permissions);
  });
}

/** `Basic base64(user:key)` → `Bearer key`; anything else unchanged (the authenticator judges it). */
export function basicAsBearer(authorization: string | undefined): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  if (!match) return authorization;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const key = colon >= 0 ? decoded.slice(colon + 1) : '';
  return key ? `Bearer ${key}` : 'Basic';
}
