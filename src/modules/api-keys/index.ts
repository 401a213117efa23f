import { defineModule } from '../../platform/module.js';
import { registerApiKeysRoutes } from './api-keys.routes.js';
import { createApiKeysService } from './api-keys.service.js';

// The command organizations' bootstrap uses: api-keys own their table.
export { insertApiKey, type NewApiKey } from './api-keys.repo.js';

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['api_keys'] as const;

export const apiKeysModule = defineModule({
  name: 'api-keys',
  owns: ownedTables,
  services: ({ db, authenticator }) => createApiKeysService({ db, authenticator }),
  routes: (app, _deps, services) => registerApiKeysRoutes(app, services.own),
});
