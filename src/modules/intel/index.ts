import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../index.js';
import { registerSourcesRoutes } from './sources/sources.routes.js';
import { createSourcesService } from './sources/sources.service.js';
import { registerItemsRoutes } from './items/items.routes.js';
import { createItemsService } from './items/items.service.js';
import { createIocsService } from './iocs/iocs.service.js';

export function registerIntelModule(app: FastifyInstance, deps: ModuleDeps): void {
  const db = deps.database.db;
  registerSourcesRoutes(app, createSourcesService({ db, secrets: deps.secrets }));
  registerItemsRoutes(app, { items: createItemsService({ db }), iocs: createIocsService({ db }), db, baseUrl: deps.config.baseUrl });
}
