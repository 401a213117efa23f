import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../platform/http/errors.js';
import { toAppError } from '../../platform/http/error-handler.js';
import { findUnstorableString, jsonDepthExceeds } from '../../platform/http/hostile-input.js';
import type { ProviderRow } from './identity-providers.repo.js';
import { ScimError, SCIM_ERROR } from './scim.fns.js';
import type { ScimService } from './scim.service.js';

const SCIM_MEDIA_TYPE = 'application/scim+json';
const tags = ['SCIM'];
const IdParam = z.object({ id: z.string().min(1).max(100) });
const ListQuery = z.object({
  filter: z.string().max(1000).optional().describe('`userName eq "…"` or `externalId eq "…"` (Users); `displayName eq "…"` or `externalId eq "…"` (Groups)'),
  startIndex: z.coerce.number().int().min(1).max(1_000_000).optional(),
  count: z.coerce.number().int().min(0).max(1000).optional().describe('At most 200 are answered'),
  excludedAttributes: z.string().max(200).optional().describe('`members` leaves group members out (Entra asks so)'),
  attributes: z.string().max(500).optional(),
});
const Resource = z.record(z.string(), z.unknown()).describe('A SCIM resource (RFC 7643) or PatchOp message (RFC 7644 §3.5.2)');
const ScimAnswer = z.looseObject({ schemas: z.array(z.string()) });

declare module 'fastify' {
  interface FastifyRequest {
    /** The identity provider whose SCIM bearer token authenticated the request. */
    scimProvider?: ProviderRow;
  }
}

function send(reply: FastifyReply, status: number, body?: unknown) {
  reply.code(status).header('content-type', SCIM_MEDIA_TYPE).header('cache-control', 'no-store');
  return body === undefined ? reply.send() : reply.send(Buffer.from(JSON.stringify(body)));
}

function scimErrorHandler(bodyLimit: number) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof ScimError) {
      if (err.status === 401) reply.header('www-authenticate', 'Bearer realm="rampart-scim"');
      return send(reply, err.status, { schemas: [SCIM_ERROR], status: String(err.status), detail: err.message, ...(err.scimType ? { scimType: err.scimType } : {}) });
    }
    const appError = err instanceof AppError ? err : toAppError(err, bodyLimit, request);
    if (!appError) {
      // Unexpected: logged with its stack, answered in SCIM's error shape without it.
      request.log.error({ err }, 'SCIM request failed');
      return send(reply, 500, { schemas: [SCIM_ERROR], status: '500', detail: 'Internal error' });
    }
    if (appError.statusCode === 401) reply.header('www-authenticate', 'Bearer realm="rampart-scim"');
    for (const [k, v] of Object.entries(appError.headers ?? {})) reply.header(k, v);
    return send(reply, appError.statusCode, { schemas: [SCIM_ERROR], status: String(appError.statusCode), detail: appError.message, ...(appError.statusCode === 400 ? { scimType: 'invalidValue' } : {}) });
  };
}

/**
 * SCIM 2.0 service provider at /scim/v2 (RFC 7644): Users and Groups of the identity provider
 * whose bearer token (`POST /api/identity-providers/{id}/scim-token`) the request carries.
 * Requests and answers are `application/scim+json` (plain JSON is accepted too).
 */
export function registerScimRoutes(root: FastifyInstance, deps: { scim: ScimService; bodyLimit: number }): void {
  void root.register(async (scope) => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    app.setErrorHandler(scimErrorHandler(deps.bodyLimit));
    app.addContentTypeParser(SCIM_MEDIA_TYPE, { parseAs: 'string' }, (_request, body, done) => {
      const text = body as string;
      if (jsonDepthExceeds(text)) return done(new ScimError(400, 'JSON nested too deep', 'invalidSyntax'), undefined);
      try {
        const value: unknown = JSON.parse(text);
        const bad = findUnstorableString(value);
        if (bad) return done(new ScimError(400, `${bad.path}: ${bad.message}`, 'invalidValue'), undefined);
        done(null, value);
      } catch {
        done(new ScimError(400, 'The body is not valid JSON', 'invalidSyntax'), undefined);
      }
    });
    app.addHook('preHandler', async (request) => {
      const provider = await deps.scim.providerOf(request.headers.authorization);
      if (!provider) throw new ScimError(401, 'Missing or invalid SCIM bearer token');
      request.scimProvider = provider;
    });
    // Public to the API-key hook: the SCIM token is checked above, per provider.
    const config = { public: true };
    const provider = (req: FastifyRequest) => req.scimProvider!;
    const answers = (extra: Record<number, z.ZodType> = {}) => ({ 200: ScimAnswer, 400: ScimAnswer, 401: ScimAnswer, 404: ScimAnswer, 409: ScimAnswer, 429: ScimAnswer, 500: ScimAnswer, 503: ScimAnswer, ...extra });

    app.get('/scim/v2/Users', { config, schema: { operationId: 'listScimUsers', tags, summary: 'SCIM: list or find the provider\'s users', querystring: ListQuery, response: answers() } }, async (req, reply) => send(reply, 200, await deps.scim.listUsers(provider(req), req.query)));
    app.get('/scim/v2/Users/:id', { config, schema: { operationId: 'getScimUser', tags, summary: 'SCIM: one user', params: IdParam, response: answers() } }, async (req, reply) => send(reply, 200, await deps.scim.getUser(provider(req), req.params.id)));
    app.post('/scim/v2/Users', {
      config,
      schema: { operationId: 'createScimUser', tags, summary: 'SCIM: provision a user', description: 'Creates the Rampart user with the provider\'s default role (400 without one), or links the organization\'s existing user with that email (409 when another provider has them).', body: Resource, response: answers({ 201: ScimAnswer }) },
    }, async (req, reply) => send(reply, 201, await deps.scim.createUser(provider(req), req.body)));
    app.put('/scim/v2/Users/:id', { config, schema: { operationId: 'replaceScimUser', tags, summary: 'SCIM: replace a user', params: IdParam, body: Resource, response: answers() } }, async (req, reply) => send(reply, 200, await deps.scim.replaceUser(provider(req), req.params.id, req.body)));
    app.patch('/scim/v2/Users/:id', {
      config,
      schema: { operationId: 'patchScimUser', tags, summary: 'SCIM: change a user (active: false deactivates them at once)', description: 'Deactivation ends their console sessions and makes their API keys answer 401 in every process, as `PATCH /api/users/{id}` does.', params: IdParam, body: Resource, response: answers() },
    }, async (req, reply) => send(reply, 200, await deps.scim.patchUser(provider(req), req.params.id, req.body)));
    app.delete('/scim/v2/Users/:id', {
      config,
      schema: { operationId: 'deleteScimUser', tags, summary: 'SCIM: delete a user (Rampart deactivates them and unlinks them from the provider)', params: IdParam, response: { 204: z.null(), 400: ScimAnswer, 401: ScimAnswer, 404: ScimAnswer, 409: ScimAnswer, 429: ScimAnswer, 500: ScimAnswer, 503: ScimAnswer } },
    }, async (req, reply) => {
      await deps.scim.deleteUser(provider(req), req.params.id);
      return send(reply, 204);
    });

    app.get('/scim/v2/Groups', { config, schema: { operationId: 'listScimGroups', tags, summary: 'SCIM: list or find the provider\'s groups', querystring: ListQuery, response: answers() } }, async (req, reply) => send(reply, 200, await deps.scim.listGroups(provider(req), req.query)));
    app.get('/scim/v2/Groups/:id', { config, schema: { operationId: 'getScimGroup', tags, summary: 'SCIM: one group', params: IdParam, querystring: ListQuery, response: answers() } }, async (req, reply) => send(reply, 200, await deps.scim.getGroup(provider(req), req.params.id, req.query.excludedAttributes)));
    app.post('/scim/v2/Groups', { config, schema: { operationId: 'createScimGroup', tags, summary: 'SCIM: push a group', body: Resource, response: answers({ 201: ScimAnswer }) } }, async (req, reply) => send(reply, 201, await deps.scim.createGroup(provider(req), req.body)));
    app.put('/scim/v2/Groups/:id', { config, schema: { operationId: 'replaceScimGroup', tags, summary: 'SCIM: replace a group and its members', params: IdParam, body: Resource, response: answers() } }, async (req, reply) => send(reply, 200, await deps.scim.replaceGroup(provider(req), req.params.id, req.body)));
    app.patch('/scim/v2/Groups/:id', {
      config,
      schema: { operationId: 'patchScimGroup', tags, summary: 'SCIM: change a group (members, name): its members\' roles follow the role mappings', params: IdParam, body: Resource, response: answers() },
    }, async (req, reply) => send(reply, 200, await deps.scim.patchGroup(provider(req), req.params.id, req.body)));
    app.delete('/scim/v2/Groups/:id', { config, schema: { operationId: 'deleteScimGroup', tags, summary: 'SCIM: delete a group', params: IdParam, response: { 204: z.null(), 400: ScimAnswer, 401: ScimAnswer, 404: ScimAnswer, 429: ScimAnswer, 500: ScimAnswer, 503: ScimAnswer } } }, async (req, reply) => {
      await deps.scim.deleteGroup(provider(req), req.params.id);
      return send(reply, 204);
    });
  });
}
