import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../index.js';
import { registerSourcesRoutes } from './sources/sources.routes.js';
import { createSourcesService } from './sources/sources.service.js';

export function registerIntelModule(app: FastifyInstance, deps: ModuleDeps): void {
  registerSourcesRoutes(app, createSourcesService({ db: deps.database.db, secrets: deps.secrets }));
}
