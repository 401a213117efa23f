import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule } from '../../platform/module.js';
import { createGuardedClient, guardedFetch } from '../../platform/outbound/index.js';
import { createConsoleSessionOpener } from '../sessions/index.js';
import { registerIdentityProvidersRoutes } from './identity-providers.routes.js';
import { createIdentityProvidersService } from './identity-providers.service.js';
import { createOidcFlow } from './oidc.flow.js';
import { registerOidcRoutes } from './oidc.routes.js';
import { createScimService } from './scim.service.js';
import { registerScimRoutes } from './scim.routes.js';
import { migrations } from './migrations/index.js';

function registerIdentityProvidersModule(app: FastifyInstance, deps: ModuleDeps): void {
  const { db } = deps.database;
  const baseUrl = deps.config.baseUrl;
  registerIdentityProvidersRoutes(app, createIdentityProvidersService({ db, secrets: deps.secrets, baseUrl }));
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
  registerScimRoutes(app, { scim: createScimService({ db, authenticator: deps.authenticator, baseUrl }), bodyLimit: deps.config.bodyLimitBytes });
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['identity_providers', 'identity_provider_links', 'oidc_login_states', 'scim_groups', 'scim_group_members'] as const;

export const identityProvidersModule = defineModule({ name: 'identity-providers', owns: ownedTables, migrations, routes: registerIdentityProvidersModule });
export { SCIM_ERROR } from './scim.fns.js';
