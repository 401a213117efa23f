import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule, type ModuleServices } from '../../platform/module.js';
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

/**
 * The API role's state: what console sessions are made with there, the authenticator an API key
 * signs in through and the session settings (RAMPART_SESSION_*); sessions exist in that role only.
 */
type SessionsState = Omit<SessionsDeps, 'db'>;

/** Its commands: console sessions (API role: over its state) and the organization's sign-in settings. */
function sessionsServices(db: SessionsDeps['db'], state: SessionsState | undefined) {
  const signInSettings = createSignInSettingsService(db);
  const sessions = state ? createSessionsService({ db, ...state }) : undefined;
  return {
    signInSettings,
    get sessions() {
      if (!sessions) throw new Error("sessions' commands are built over the API role's authenticator and session settings; this role has none");
      return sessions;
    },
  };
}

function registerSessionsModule(app: FastifyInstance, deps: ModuleDeps, services: ModuleServices<ReturnType<typeof sessionsServices>>): void {
  registerSessionsRoutes(app, services.own.sessions, {
    secureCookie: deps.config.baseUrl.startsWith('https:'),
    maxAgeSeconds: deps.config.sessionMaxHours * 3600,
  });
  registerSignInSettingsRoutes(app, services.own.signInSettings);
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['console_sessions', 'console_login_links', 'console_address', 'console_sign_in_settings'] as const;

export const sessionsModule = defineModule({
  name: 'sessions',
  owns: ownedTables,
  migrations,
  state: (deps): SessionsState => ({ authenticator: deps.authenticator, config: deps.config }),
  services: ({ db }, _needed, state) => sessionsServices(db, state),
  routes: registerSessionsModule,
});
