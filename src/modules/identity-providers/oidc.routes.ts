import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { publicResponses } from '../../platform/http/responses.js';
import { PublicIdentityProviderList } from './identity-providers.schemas.js';
import { listSignInProviders } from './identity-providers.repo.js';
import { soleOrganizationId } from '../organizations/index.js';
import { apiKeySignInAllowed } from '../sessions/index.js';
import type { Database } from '../../platform/db/database.js';
import { LOGIN_STATE_TTL_MS, SignInRefused, STATE_COOKIE, type OidcFlow } from './oidc.flow.js';
import { REFUSAL_CSP, refusalPage } from './sign-in-page.fns.js';

const tags = ['Users'];
const SignInProvidersQuery = z.strictObject({
  organizationId: z.uuid({ error: 'must be a UUID' }).optional().describe('The organization whose sign-in screen this is (`?organization=` of the console\'s sign-in address)'),
});
const ProviderParams = z.object({ providerId: z.uuid({ error: 'must be a UUID' }) });
const param = z.string().max(8192).optional();
/** The authorization response (RFC 6749 §4.1.2, RFC 9207's `iss`); other parameters a provider adds (`session_state`) are kept for openid-client. */
const CallbackQuery = z.looseObject({ code: param, state: param, iss: param, error: param, error_description: param });
const Html = z.string().describe('A page saying why the sign-in was refused (text/html); nothing was created');

function readCookie(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/**
 * The browser's side of OIDC sign-in. The state cookie is SameSite=Lax, not Strict like the
 * session's: the provider's redirect back is a cross-site top-level navigation, which a Strict
 * cookie would not accompany. It is scoped to /auth/oidc and lives as long as the sign-in.
 */
export function registerOidcRoutes(root: FastifyInstance, deps: { db: Database; flow: OidcFlow; baseUrl: string }): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const secure = deps.baseUrl.startsWith('https:') ? '; Secure' : '';
  const stateCookie = (value: string, maxAge: number) => `${STATE_COOKIE}=${value}; Path=/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}`;
  const signInUrl = `${deps.baseUrl}/sign-in`;

  function refused(reply: FastifyReply, err: unknown) {
    if (!(err instanceof SignInRefused)) throw err;
    return reply
      .code(403)
      .headers({ 'content-type': 'text/html; charset=utf-8', 'content-security-policy': REFUSAL_CSP, 'cache-control': 'no-store', 'set-cookie': stateCookie('', 0) })
      .send(Buffer.from(refusalPage(err.reason, err.provider ? `${signInUrl}?organization=${err.provider.organizationId}` : signInUrl)));
  }

  app.get('/auth/oidc/providers', {
    config: { public: true },
    schema: {
      operationId: 'listSignInProviders',
      tags,
      summary: 'The identity providers the console\'s sign-in screen offers',
      description:
        'Public (the sign-in screen is shown before anyone is signed in): each provider\'s name and where its sign-in starts, of one organization only, and whether that organization allows API-key sign-in to the console. The organization is the one named by `organizationId` (the console\'s sign-in address `<RAMPART_BASE_URL>/sign-in?organization=<id>`, shown in Settings → Identity providers); without it, the installation\'s organization when it has exactly one, else none. An unknown organization answers an empty list, like one without providers.',
      querystring: SignInProvidersQuery,
      response: publicResponses({ 200: PublicIdentityProviderList }, 400),
    },
  }, async (req) => {
    const organizationId = req.query.organizationId ?? (await soleOrganizationId(deps.db));
    if (!organizationId) return { identityProviders: [], apiKeySignIn: true };
    const providers = await listSignInProviders(deps.db, organizationId);
    return {
      identityProviders: providers.map((p) => ({ id: p.id, name: p.name, loginUrl: `${deps.baseUrl}/auth/oidc/${p.id}/login` })),
      apiKeySignIn: await apiKeySignInAllowed(deps.db, organizationId),
    };
  });

  app.get('/auth/oidc/:providerId/login', {
    config: { public: true },
    schema: {
      operationId: 'startOidcSignIn',
      tags,
      summary: 'Start signing in to the console through an identity provider',
      description: 'Redirects (302) to the provider\'s authorization endpoint (authorization code, PKCE S256, state, nonce) and sets a short-lived `rampart_oidc_state` cookie. A page (403) says why when the provider is unknown or unreachable.',
      params: ProviderParams,
      response: publicResponses({ 302: z.null().describe('To the identity provider'), 403: Html }, 400),
    },
  }, async (req, reply) => {
    try {
      const { url, state } = await deps.flow.start(req.params.providerId);
      return reply.code(302).headers({ location: url, 'set-cookie': stateCookie(state, LOGIN_STATE_TTL_MS / 1000), 'cache-control': 'no-store' }).send();
    } catch (err) {
      return refused(reply, err);
    }
  });

  app.get('/auth/oidc/callback', {
    config: { public: true },
    schema: {
      operationId: 'completeOidcSignIn',
      tags,
      summary: 'Where the identity provider returns (the redirect URI to register)',
      description:
        'Checks the state against the browser\'s cookie and takes it once, exchanges the code (PKCE) and verifies the ID token (signature from the issuer\'s JWKS, issuer, audience, expiry, nonce), then signs the person in: their user is found by the provider\'s `sub`, or created from a verified email, and given the role their groups map to. Success: 303 to the console with the `rampart_session` cookie. Refusal: a page (403) saying why; nothing is created.',
      querystring: CallbackQuery,
      response: publicResponses({ 303: z.null().describe('To the console, signed in'), 403: Html }, 400),
    },
  }, async (req, reply) => {
    try {
      const query = Object.fromEntries(Object.entries(req.query).filter((e): e is [string, string] => typeof e[1] === 'string'));
      const { cookie } = await deps.flow.finish(query, readCookie(req.headers.cookie, STATE_COOKIE), req.id);
      return reply.code(303).headers({ location: `${deps.baseUrl}/`, 'set-cookie': [cookie, stateCookie('', 0)], 'cache-control': 'no-store' }).send();
    } catch (err) {
      return refused(reply, err);
    }
  });
}
