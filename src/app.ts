import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { randomUUID } from 'node:crypto';
import type { AppDeps } from './platform/wiring.js';
import { createInvalidationBus } from './platform/cache/invalidation-bus.js';
import { installErrorHandling } from './platform/http/error-handler.js';
import { ValidationError } from './platform/http/errors.js';
import { installInputGuards } from './platform/http/hostile-input.js';
import { installRequestHooks } from './platform/http/request-hooks.js';
import { installRequestLog, lazyChildLoggerFactory } from './platform/http/request-log.js';
import { createRateLimiter } from './platform/http/rate-limit.js';
import { registerOpenApi } from './platform/http/openapi.js';
import { serializerCompiler } from './platform/http/serializer.js';
import { deferringValidatorCompiler, resolveResponses } from './platform/http/lazy-schemas.js';
import { installMetrics } from './platform/http/metrics.js';
import { registerConsole } from './platform/http/console.js';
import { registerModules } from './composition.js';
import { createSessionAuthenticator } from './modules/sessions/index.js';
import { SCIM_ERROR } from './modules/identity-providers/index.js';

export type { AppDeps } from './platform/wiring.js';

export interface RegisteredRoute {
  method: string;
  url: string;
  hidden: boolean;
  /** The route's response schemas by status (their serializers compile at first use: test/platform/serializers.test.ts compiles them all). */
  responses: Record<string, unknown>;
  /** The permissions its `config` declares, checked before the handler (test/security/security-alert-content.test.ts reads them). */
  permissions: readonly string[];
}

declare module 'fastify' {
  interface FastifyInstance {
    registeredRoutes: RegisteredRoute[];
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Trust the nearest `hops` proxies (proxy-addr's hop index counts from the socket peer). */
const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops;

/** The HTTP application, without listening (tests inject or listen on port 0). */
export async function buildApp(deps: AppDeps, extend?: (app: FastifyInstance) => void | Promise<void>): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: deps.config.bodyLimitBytes,
    // A caller's x-request-id is kept when it is sane, so logs line up across systems. Ours is a
    // random UUID (node's randomUUID draws from a cached entropy pool: uuidv7's object and
    // formatting cost 1.7% of a request's CPU, docs/performance.md); log lines carry the time.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    // One line per request is written by the request log (platform/http/request-log.ts), with
    // route and latency; request.log is only built when something logs through it.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyChildLoggerFactory,
    // RAMPART_TRUST_PROXY: the client address (rate limits, logs) from the proxy's X-Forwarded-For.
    trustProxy: typeof deps.config.trustProxy === 'number' ? trustHops(deps.config.trustProxy) : deps.config.trustProxy,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true },
    // Errors raised by the router before any route runs (an undecodable path, a path parameter
    // over the router's 100-character limit) get the same 400 body as every other bad input,
    // instead of Fastify's own shape (which also echoed the path back).
    frameworkErrors: (err, request, rawReply) => {
      const reply = rawReply as unknown as FastifyReply;
      const message = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path parameter is too long' : 'The URL path is not valid (malformed percent-encoding)';
      // SCIM clients (Okta, Entra) read only SCIM's error shape (RFC 7644 §3.12), also for this one.
      if (request.url.startsWith('/scim/v2/')) {
        void reply.code(400).header('content-type', 'application/scim+json').send(JSON.stringify({ schemas: [SCIM_ERROR], status: '400', scimType: 'invalidPath', detail: message }));
        return;
      }
      void reply.code(400).send(ValidationError.single('', message, err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'too_big' : 'invalid_url', 'params').body());
    },
  }) as unknown as FastifyInstance;

  // Every route registered, so tests can prove the OpenAPI document lists them all.
  const routes: RegisteredRoute[] = [];
  app.decorate('registeredRoutes', routes);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const hidden = (route.schema as { hide?: boolean } | undefined)?.hide === true;
    const declared = (route.schema as { response?: Record<string, unknown> } | undefined)?.response ?? {};
    const permissions = (route.config as { permissions?: readonly string[] } | undefined)?.permissions ?? [];
    // Resolved when read (a route's schemas may be built on first use: platform/http/lazy-schemas.ts).
    let responses: Record<string, unknown> | undefined;
    for (const method of methods) {
      if (method !== 'HEAD') routes.push({ method, url: route.url, hidden, permissions, get responses() { return (responses ??= resolveResponses(declared)); } });
    }
  });

  app.setValidatorCompiler(deferringValidatorCompiler(validatorCompiler));
  app.setSerializerCompiler(serializerCompiler);
  installRequestLog(app);

  installErrorHandling(app, { bodyLimit: deps.config.bodyLimitBytes });
  installInputGuards(app, { allowPrivateNetworks: deps.config.allowPrivateNetworks });
  installRequestHooks(app, {
    authenticator: deps.authenticator,
    rateLimiter: createRateLimiter(deps.config.rateLimitPerMinute),
    sessions: createSessionAuthenticator({ db: deps.database.db, authenticator: deps.authenticator, config: deps.config }),
  });
  const metrics = installMetrics(app, deps.database.db);
  await registerOpenApi(app, { baseUrl: deps.config.baseUrl });
  registerModules(app, { ...deps, invalidation: deps.invalidation ?? createInvalidationBus(), metrics });
  // The web console, under its own paths (none of them an API path).
  registerConsole(app);
  if (extend) await extend(app);
  await app.ready();
  return app;
}
