import { defineModule } from '../../platform/module.js';
import { blocklistTools } from './blocklist.tools.js';
import { blocklistCollections, blocklistObjects } from './blocklists.readers.js';
import { deleteExpiredEntries } from './blocklists.repo.js';
import { registerBlocklistsRoutes } from './blocklists.routes.js';
import { createBlocklistsService } from './blocklists.service.js';
import { migrations } from './migrations/index.js';

// The front door: block lists are reached through their routes, tools and TAXII answers; nothing else is exported yet.

/** How long an expired entry stays readable (`includeExpired=true`) before the cleanup pass deletes it. */
export const EXPIRED_ENTRY_GRACE_SECONDS = 3600;

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['blocklists', 'blocklist_entries', 'blocklist_allowlist'] as const;

/**
 * Block lists (docs/blocklists.md): the API, the external lists (`/blocklists/{name}.txt`), the
 * tools block_indicator and unblock_indicator, each list as a TAXII collection of intel out's
 * server (its `taxiiExtra…` questions), and the pass that deletes long-expired entries (reads
 * leave expired entries out already).
 */
export const blocklistsModule = defineModule({
  name: 'blocklists',
  owns: ownedTables,
  migrations,
  services: ({ db, baseUrl }) => createBlocklistsService({ db, baseUrl }),
  routes: (app, _deps, services) => registerBlocklistsRoutes(app, services.own),
  tools: blocklistTools,
  readers: { taxiiExtraCollections: blocklistCollections, taxiiExtraObjects: blocklistObjects },
  schedulerPasses: [{ name: 'blocklist expired entries', run: ({ db }) => deleteExpiredEntries(db, EXPIRED_ENTRY_GRACE_SECONDS) }],
});
