import { z } from 'zod';
import { endpointUrl } from '../../platform/http/url-schemas.js';

/**
 * OpenID Connect identity providers of an organization (docs/access.md#single-sign-on). The
 * client secret is write-only: encrypted at rest, never answered (`hasClientSecret` tells), and
 * bound to the issuer's origin: changing the issuer to another origin needs the secret again, so
 * a stored secret can never be sent to a server its owner did not give it for.
 */
const name = z.string().trim().min(1, 'must be 1..100 characters').max(100, 'must be 1..100 characters');
const issuer = endpointUrl(1024)
  .refine((u) => !/[?#]/.test(u), 'must not carry a query or fragment')
  .describe('The issuer identifier exactly as the provider publishes it (`issuer` of its `/.well-known/openid-configuration`, e.g. `https://acme.okta.com` or `https://login.microsoftonline.com/<tenant>/v2.0`)');
const clientId = z.string().trim().min(1).max(512).describe('The client (application) id registered at the provider');
const clientSecret = z.string().min(1).max(4096).describe('Write-only: the client secret registered at the provider; encrypted at rest, never answered');
const scopes = z
  .array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,100}$/, 'must be an OAuth scope token'))
  .max(20)
  .refine((s) => s.includes('openid'), 'must include openid')
  .describe('Requested scopes; default `["openid", "email", "profile"]` (Okta and Keycloak need `groups` too to send group names)');
const groupsClaim = z.string().trim().min(1).max(100).describe('The ID token claim listing the person\'s groups; default `groups`');
const domain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'must be a domain name such as example.com');
const allowedEmailDomains = z
  .array(domain)
  .max(50)
  .describe('Email domains allowed to sign in (exact match of the part after @); empty: any domain the provider vouches for. An existing Rampart user the provider did not create is taken over (linked at their first sign-in, or by SCIM) only when their domain is listed here');
export const RoleMapping = z.strictObject({
  group: z.string().min(1).max(256).describe('A group name (or id, for Entra ID) as it appears in the groups claim and in SCIM'),
  roleId: z.uuid().describe('The role people in this group get'),
});
const roleMappings = z
  .array(RoleMapping)
  .max(100)
  .describe('Group → role, in priority order: a person in several mapped groups gets the role of the first of them in this list');
const defaultRoleId = z
  .uuid()
  .nullable()
  .describe('The role of a person in no mapped group; null: such a person is refused');

export const CreateIdentityProviderBody = z.strictObject({
  name,
  issuer,
  clientId,
  clientSecret,
  scopes: scopes.optional(),
  groupsClaim: groupsClaim.optional(),
  allowedEmailDomains: allowedEmailDomains.optional(),
  roleMappings,
  defaultRoleId: defaultRoleId.optional(),
});
export type CreateIdentityProviderInput = z.infer<typeof CreateIdentityProviderBody>;

export const UpdateIdentityProviderBody = z
  .strictObject({
    name: name.optional(),
    issuer: issuer.optional(),
    clientId: clientId.optional(),
    clientSecret: clientSecret.optional().describe('Write-only; omit to keep the stored secret (not allowed when the issuer moves to another origin)'),
    scopes: scopes.optional(),
    groupsClaim: groupsClaim.optional(),
    allowedEmailDomains: allowedEmailDomains.optional(),
    roleMappings: roleMappings.optional(),
    defaultRoleId: defaultRoleId.optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'Give at least one field to change', when: (p) => p.issues.length === 0 });
export type UpdateIdentityProviderInput = z.infer<typeof UpdateIdentityProviderBody>;

export const IdentityProviderSchema = z
  .object({
    id: z.uuid(),
    organizationId: z.uuid(),
    name: z.string(),
    issuer: z.string(),
    clientId: z.string(),
    hasClientSecret: z.boolean().describe('Always true: the secret itself is never answered'),
    scopes: z.array(z.string()),
    groupsClaim: z.string(),
    allowedEmailDomains: z.array(z.string()),
    roleMappings: z.array(z.object({ group: z.string(), roleId: z.uuid() })),
    defaultRoleId: z.uuid().nullable(),
    loginUrl: z.string().describe('Where the console\'s "Sign in with" button starts: `<RAMPART_BASE_URL>/auth/oidc/<id>/login`'),
    redirectUri: z.string().describe('The redirect (callback) URI to register at the provider: `<RAMPART_BASE_URL>/auth/oidc/callback`'),
    scimBaseUrl: z.string().describe('The SCIM 2.0 base URL to give the provider: `<RAMPART_BASE_URL>/scim/v2`'),
    hasScimToken: z.boolean().describe('Whether a SCIM bearer token was issued (`POST /api/identity-providers/{id}/scim-token`)'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'IdentityProvider' });
export type IdentityProviderDto = z.infer<typeof IdentityProviderSchema>;

export const IdentityProviderList = z.object({ identityProviders: z.array(IdentityProviderSchema) });

export const ScimTokenResponse = z.object({
  token: z.string().describe('The SCIM bearer token, shown once: only its hash is kept. A new one replaces the previous one at once'),
});

/** What the sign-in screen shows before anyone is signed in: names and where to start, nothing else. */
export const PublicIdentityProvider = z.object({ id: z.uuid(), name: z.string(), loginUrl: z.string() });
export const PublicIdentityProviderList = z.object({
  identityProviders: z.array(PublicIdentityProvider),
  apiKeySignIn: z.boolean().describe('Whether the organization allows signing in to the console with an API key (the screen hides the API-key form when not); true when no organization is named'),
});

export { DeleteResult } from '../../platform/http/responses.js';
