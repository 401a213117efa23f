import { defineModule } from '../../platform/module.js';
import { registerUsersRoutes } from './users.routes.js';
import { createUsersService } from './users.service.js';

// The command organizations' bootstrap uses: users own their table.
export { insertUser, type NewUser } from './users.repo.js';
// The commands an identity provider drives (identity-providers: OIDC sign-in and SCIM).
export { createDirectoryUser, findDirectoryUser, findDirectoryUserByEmail, setDirectoryUserActive, updateDirectoryUser, type DirectoryUser } from './users.directory.js';

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['users'] as const;

export const usersModule = defineModule({
  name: 'users',
  owns: ownedTables,
  services: ({ db, authenticator }) => createUsersService({ db, authenticator }),
  routes: (app, _deps, services) => registerUsersRoutes(app, services.own),
});
