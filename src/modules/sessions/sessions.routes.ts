import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { DeleteResult, withErrors } from '../../platform/http/responses.js';
import { clearedSessionCookie, sessionCookie } from './sessions.fns.js';
import { ConsoleSessionSchema, LinkSignInBody, SignInBody } from './sessions.schemas.js';
import type { SessionsService, SignedIn } from './sessions.service.js';

const tags = ['Users'];
const COOKIE_NOTE =
  'Sets the `rampart_session` cookie (HttpOnly, SameSite=Strict, Secure when RAMPART_BASE_URL is https). Requests carrying it act as the session\'s user; those that are not GET, HEAD or OPTIONS also need the `x-csrf-token` header (403 otherwise). A request with an `Authorization` header is authenticated by its API key, never by the cookie.';

export function registerSessionsRoutes(root: FastifyInstance, service: SessionsService, opts: { secureCookie: boolean; maxAgeSeconds: number }): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const signedIn = (reply: FastifyReply, result: SignedIn) => {
    reply.header('set-cookie', sessionCookie(result.token, { secure: opts.secureCookie, maxAgeSeconds: opts.maxAgeSeconds }));
    reply.header('cache-control', 'no-store');
    return result.session;
  };

  app.post('/api/session', {
    config: { public: true },
    schema: {
      operationId: 'createSession',
      tags,
      summary: 'Sign in to the web console with an API key',
      description: `Exchanges an API key for a console session. 403 when the key's organization turned API-key sign-in to the console off (\`PUT /api/console-sign-in-settings\`): sign in through its identity provider; the key still works for the API. ${COOKIE_NOTE}`,
      body: SignInBody,
      response: withErrors({ 200: ConsoleSessionSchema }),
    },
  }, async (req, reply) => signedIn(reply, await service.signInWithKey(req.body.apiKey, req.id)));

  app.post('/api/session/link', {
    config: { public: true },
    schema: {
      operationId: 'createSessionFromLink',
      tags,
      summary: 'Sign in to the web console with a one-time sign-in link',
      description: `Exchanges the token of a link printed by \`rampart admin login-link\` (valid once, for 15 minutes) for a console session. ${COOKIE_NOTE}`,
      body: LinkSignInBody,
      response: withErrors({ 200: ConsoleSessionSchema }),
    },
  }, async (req, reply) => signedIn(reply, await service.signInWithLink(req.body.token, req.id)));

  app.get('/api/session', {
    schema: {
      operationId: 'getSession',
      tags,
      summary: 'The current console session (user, permissions, CSRF token)',
      description: 'Answers 404 to a caller authenticated by an API key: only a session cookie has a session.',
      response: withErrors({ 200: ConsoleSessionSchema }, 404),
    },
  }, async (req, reply) => {
    reply.header('cache-control', 'no-store');
    return service.current(req);
  });

  app.delete('/api/session', {
    schema: {
      operationId: 'deleteSession',
      tags,
      summary: 'Sign out of the web console',
      description: 'Revokes the session (its cookie answers 401 from now on) and clears the cookie. Needs the `x-csrf-token` header.',
      response: withErrors({ 200: DeleteResult }, 404),
    },
  }, async (req, reply) => {
    await service.signOut(req);
    reply.header('set-cookie', clearedSessionCookie(opts.secureCookie));
    return { success: true };
  });
}
