import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule } from '../../platform/module.js';
import { registerSessionsRoutes } from './sessions.routes.js';
import { createSessionsService, type SessionsDeps } from './sessions.service.js';

export { createLoginLink, LoginLinkError } from './sessions.service.js';
export { revokeUserSessions } from './sessions.repo.js';
export { consoleAddress, recordConsoleAddress } from './sessions.repo.js';

/** The cookie authentication the request hooks use (app.ts), next to the routes that open sessions. */
export function createSessionAuthenticator(deps: SessionsDeps) {
  const service = createSessionsService(deps);
  return { authenticate: service.authenticate };
}

function registerSessionsModule(app: FastifyInstance, deps: ModuleDeps): void {
  const service = createSessionsService({ db: deps.database.db, authenticator: deps.authenticator, config: deps.config });
  registerSessionsRoutes(app, service, {
    secureCookie: deps.config.baseUrl.startsWith('https:'),
    maxAgeSeconds: deps.config.sessionMaxHours * 3600,
  });
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['console_sessions', 'console_login_links', 'console_address'] as const;

export const sessionsModule = defineModule({ name: 'sessions', owns: ownedTables, routes: registerSessionsModule });
