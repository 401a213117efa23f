import { z } from 'zod';

export const SignInBody = z.strictObject({
  apiKey: z.string().min(1).max(200).describe('An API key (`rmp_<prefix>_<secret>`); it is not kept anywhere, only exchanged'),
});

export const LinkSignInBody = z.strictObject({
  token: z.string().min(1).max(200).describe('The token of a sign-in link printed by `rampart admin login-link` (the part after `#link=`)'),
});

export const ConsoleSessionSchema = z
  .object({
    id: z.uuid(),
    method: z.enum(['api_key', 'login_link', 'oidc']).describe('How the session was opened (`oidc`: through the organization\'s identity provider)'),
    createdAt: z.string(),
    expiresAt: z.string().describe('Absolute expiry: the session ends then whatever its activity'),
    idleTimeoutSeconds: z.number().int().describe('The session also ends after this long without a request'),
    csrfToken: z.string().describe('Send it in the `x-csrf-token` header of every request that is not GET, HEAD or OPTIONS'),
    organizationId: z.uuid(),
    user: z.object({ id: z.uuid(), email: z.string(), name: z.string() }),
    role: z.object({ id: z.uuid(), name: z.string() }),
    permissions: z.array(z.string()).describe('What the session may do: exactly its user\'s role'),
  })
  .meta({ id: 'ConsoleSession' });
