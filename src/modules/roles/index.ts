import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule } from '../../platform/module.js';
import { registerRolesRoutes } from './roles.routes.js';
import { createRolesService } from './roles.service.js';

// The command organizations' bootstrap uses: roles own their table.
export { insertSystemRoles } from './roles.repo.js';
export { rolesOfOrganization } from './roles.readers.js';

function registerRolesModule(app: FastifyInstance, deps: ModuleDeps): void {
  registerRolesRoutes(app, createRolesService({ db: deps.database.db, authenticator: deps.authenticator }));
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['roles'] as const;

export const rolesModule = defineModule({ name: 'roles', owns: ownedTables, routes: registerRolesModule });
