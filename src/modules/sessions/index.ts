import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule } from '../../platform/module.js';
import { registerSessionsRoutes } from './sessions.routes.js';
import { createSessionsService, type SessionsDeps } from './sessions.service.js';
import { sessionCookie } from './sessions.fns.js';
import { registerSignInSettingsRoutes } from './sign-in-settings.routes.js';
import { createSignInSettingsService } from './sign-in-settings.service.js';
import { migrations } from './migrations/index.js';

export { createLoginLink, LoginLinkError } from './sessions.service.js';
export { revokeUserSessions } from './sessions.repo.js';
export { consoleAddress, recordConsoleAddress } from './sessions.repo.js';
export { apiKeySignInAllowed } from './sign-in-settings.service.js';

/** The cookie authentication the request hooks use (app.ts), next to the routes that open sessions. */
export function createSessionAuthenticator(deps: SessionsDeps) {
  const service = createSessionsService(deps);
  return { authenticate: service.authenticate };
}

/**
 * Opens console sessions for the identity-providers module's OIDC callback: the session, its
 * audit entry and the cookie are exactly those of a one-time sign-in link.
 */
export function createConsoleSessionOpener(deps: SessionsDeps) {
  const service = createSessionsService(deps);
  const secure = deps.config.baseUrl.startsWith('https:');
  const maxAgeSeconds = deps.config.sessionMaxHours * 3600;
  return async (user: { organizationId: string; userId: string }, requestId: string) => {
    const signedIn = await service.signInFromIdentityProvider(user, requestId);
    return { cookie: sessionCookie(signedIn.token, { secure, maxAgeSeconds }), session: signedIn.session };
  };
}
export type ConsoleSessionOpener = ReturnType<typeof createConsoleSessionOpener>;

function registerSessionsModule(app: FastifyInstance, deps: ModuleDeps): void {
  const service = createSessionsService({ db: deps.database.db, authenticator: deps.authenticator, config: deps.config });
  registerSessionsRoutes(app, service, {
    secureCookie: deps.config.baseUrl.startsWith('https:'),
    maxAgeSeconds: deps.config.sessionMaxHours * 3600,
  });
  registerSignInSettingsRoutes(app, createSignInSettingsService(deps.database.db));
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['console_sessions', 'console_login_links', 'console_address', 'console_sign_in_settings'] as const;

export const sessionsModule = defineModule({ name: 'sessions', owns: ownedTables, migrations, routes: registerSessionsModule });
