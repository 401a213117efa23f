import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule, type ModuleServices, type ServiceDeps } from '../../platform/module.js';
import { createGuardedClient, guardedFetch } from '../../platform/outbound/index.js';
import { createConsoleSessionOpener } from '../sessions/index.js';
import { registerIdentityProvidersRoutes } from './identity-providers.routes.js';
import { createIdentityProvidersService } from './identity-providers.service.js';
import { createOidcFlow } from './oidc.flow.js';
import { registerOidcRoutes } from './oidc.routes.js';
import { createScimService } from './scim.service.js';
import { registerScimRoutes } from './scim.routes.js';
import { migrations } from './migrations/index.js';

/** Its commands: identity providers' settings, and SCIM provisioning (a deactivation drops cached identities everywhere). */
function identityProvidersServices({ db, secrets, baseUrl, authenticator }: Pick<ServiceDeps, 'db' | 'secrets' | 'baseUrl' | 'authenticator'>) {
  return { providers: createIdentityProvidersService({ db, secrets, baseUrl }), scim: createScimService({ db, authenticator, baseUrl }) };
}

/** The OIDC sign-in is a browser flow of the API process (its own outbound client, console sessions), built with its routes. */
function registerIdentityProvidersModule(app: FastifyInstance, deps: ModuleDeps, services: ModuleServices<ReturnType<typeof identityProvidersServices>>): void {
  const { db } = deps.database;
  const baseUrl = deps.config.baseUrl;
  registerIdentityProvidersRoutes(app, services.own.providers);
  const http = createGuardedClient({ allowPrivateNetworks: deps.config.allowPrivateNetworks, retries: 0 });
  const flow = createOidcFlow({
    db,
    secrets: deps.secrets,
    authenticator: deps.authenticator,
    openSession: createConsoleSessionOpener({ db, authenticator: deps.authenticator, config: deps.config }),
    baseUrl,
    fetch: guardedFetch(http, { timeoutMs: 10_000, maxResponseBytes: 1_000_000 }),
    allowInsecureIssuers: deps.config.allowPrivateNetworks,
  });
  registerOidcRoutes(app, { db, flow, baseUrl });
  registerScimRoutes(app, { scim: services.own.scim, bodyLimit: deps.config.bodyLimitBytes });
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['identity_providers', 'identity_provider_links', 'oidc_login_states', 'scim_groups', 'scim_group_members'] as const;

export const identityProvidersModule = defineModule({ name: 'identity-providers', owns: ownedTables, migrations, services: identityProvidersServices, routes: registerIdentityProvidersModule });
export { SCIM_ERROR } from './scim.fns.js';
