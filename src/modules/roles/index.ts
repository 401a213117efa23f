import { defineModule } from '../../platform/module.js';
import { registerRolesRoutes } from './roles.routes.js';
import { createRolesService } from './roles.service.js';

// The command organizations' bootstrap uses: roles own their table.
export { insertSystemRoles } from './roles.repo.js';
export { rolesOfOrganization } from './roles.readers.js';

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['roles'] as const;

export const rolesModule = defineModule({
  name: 'roles',
  owns: ownedTables,
  services: ({ db, authenticator }) => createRolesService({ db, authenticator }),
  routes: (app, _deps, services) => registerRolesRoutes(app, services.own),
});
