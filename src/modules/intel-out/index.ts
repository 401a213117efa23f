import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule, type ModuleServices, type ServiceDeps } from '../../platform/module.js';
import { refreshAllObjects } from './objects.store.js';
import { registerTaxiiRoutes } from './taxii.routes.js';
import { createTaxiiService } from './taxii.service.js';
import { registerExportRoutes } from './export.routes.js';
import { createExportService } from './export.service.js';
import { registerMispFeedRoutes } from './misp-feed.routes.js';
import { createMispFeedService } from './misp-feed.service.js';
import { migrations } from './migrations/index.js';

// The front door: intel going out (TAXII 2.1 server, exports, MISP feed) and the refresh of
// the materialized STIX objects (the scheduler runs it so pulls rarely wait for a backlog).
export { refreshAllObjects } from './objects.store.js';
// For a module serving its own lists (block lists): streaming, STIX ids, and the TAXII collections it adds (taxii-collections.ts).
export { primedStream } from './streams.js';
export { uuidv5 } from './stix.fns.js';
export type { ExtraCollection, ExtraObjectRow, ExtraObjectsQuery } from './taxii-collections.js';

/** Its commands: the TAXII server's collections and objects, exports, and the MISP feed (over TAXII's collections). */
function intelOutServices({ db, readers }: Pick<ServiceDeps, 'db' | 'readers'>) {
  const taxii = createTaxiiService({ db, readers });
  return { taxii, exports: createExportService({ db }), feed: createMispFeedService({ db, taxii }) };
}

function registerIntelOutModule(app: FastifyInstance, deps: ModuleDeps, services: ModuleServices<ReturnType<typeof intelOutServices>>): void {
  const { taxii, exports, feed } = services.own;
  registerExportRoutes(app, { exports });
  registerTaxiiRoutes(app, { taxii, baseUrl: deps.config.baseUrl, bodyLimit: deps.config.bodyLimitBytes });
  registerMispFeedRoutes(app, { feed });
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['intel_out_objects', 'intel_out_changes'] as const;

export const intelOutModule = defineModule({ name: 'intel-out', owns: ownedTables, migrations, services: intelOutServices, routes: registerIntelOutModule, schedulerPasses: [{ name: 'intel-out refresh', run: ({ db }) => refreshAllObjects(db) }] });
