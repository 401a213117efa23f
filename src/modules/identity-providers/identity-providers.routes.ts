import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contextOf } from '../../platform/context.js';
import { IdParams } from '../../platform/http/pagination.js';
import { withErrors } from '../../platform/http/responses.js';
import {
  CreateIdentityProviderBody,
  DeleteResult,
  IdentityProviderList,
  IdentityProviderSchema,
  ScimTokenResponse,
  UpdateIdentityProviderBody,
} from './identity-providers.schemas.js';
import type { IdentityProvidersService } from './identity-providers.service.js';

export function registerIdentityProvidersRoutes(root: FastifyInstance, service: IdentityProvidersService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Users'];
  const manage = { permissions: ['setting.identityProviders.manage' as const] };

  app.get('/api/identity-providers', {
    config: manage,
    schema: { operationId: 'listIdentityProviders', tags, summary: 'List the organization\'s OpenID Connect identity providers', description: 'Client secrets and SCIM tokens are never answered.', response: withErrors({ 200: IdentityProviderList }) },
  }, async (req) => service.list(contextOf(req)));

  app.get('/api/identity-providers/:id', {
    config: manage,
    schema: { operationId: 'getIdentityProvider', tags, summary: 'Get one identity provider', params: IdParams, response: withErrors({ 200: IdentityProviderSchema }, 404) },
  }, async (req) => service.get(contextOf(req), req.params.id));

  app.post('/api/identity-providers', {
    config: { ...manage, outboundUrls: ['issuer'] },
    schema: {
      operationId: 'createIdentityProvider',
      tags,
      summary: 'Add an OpenID Connect identity provider (console sign-in)',
      description:
        'People sign in to the console at `loginUrl`; register `redirectUri` at the provider. The first sign-in creates the user from a verified email (`email_verified: true`, in `allowedEmailDomains` when given) and links them to the provider\'s `sub`; every sign-in sets their role from `roleMappings` (first mapped group wins), else `defaultRoleId`, else refuses. Every mapped role must be of the organization (400) and the caller must hold each of its permissions (403). The issuer is called through the guarded outbound client: a provider on a private address needs `RAMPART_ALLOW_PRIVATE_NETWORKS=true`. Name unique per organization (409).',
      body: CreateIdentityProviderBody,
      response: withErrors({ 200: IdentityProviderSchema }, 409),
    },
  }, async (req) => service.create(contextOf(req), req.body));

  app.patch('/api/identity-providers/:id', {
    config: { ...manage, outboundUrls: ['issuer'] },
    schema: {
      operationId: 'updateIdentityProvider',
      tags,
      summary: 'Change an identity provider',
      description: 'Only the fields given change. Omitting `clientSecret` keeps the stored one, except when the issuer moves to another origin (400: the secret is bound to the origin it was given for). Role changes apply at each person\'s next sign-in (or SCIM group change).',
      params: IdParams,
      body: UpdateIdentityProviderBody,
      response: withErrors({ 200: IdentityProviderSchema }, 404, 409),
    },
  }, async (req) => service.update(contextOf(req), req.params.id, req.body));

  app.delete('/api/identity-providers/:id', {
    config: manage,
    schema: {
      operationId: 'deleteIdentityProvider',
      tags,
      summary: 'Delete an identity provider',
      description: 'Nobody can sign in through it any more and its SCIM token stops working. Its users stay, with their role and API keys: deactivate them with `PATCH /api/users/{id}` if they should go too.',
      params: IdParams,
      response: withErrors({ 200: DeleteResult }, 404),
    },
  }, async (req) => service.remove(contextOf(req), req.params.id));

  app.post('/api/identity-providers/:id/scim-token', {
    config: manage,
    schema: {
      operationId: 'createScimToken',
      tags,
      summary: 'Issue the provider\'s SCIM 2.0 bearer token (shown once)',
      description: 'The token authenticates the provider at `/scim/v2` (Users and Groups of this provider only). Issuing a new one revokes the previous one at once. Only its hash is stored.',
      params: IdParams,
      response: withErrors({ 200: ScimTokenResponse }, 404),
    },
  }, async (req, reply) => {
    reply.header('cache-control', 'no-store');
    return service.issueScimToken(contextOf(req), req.params.id);
  });
}
