import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../index.js';
import { registerRunsRoutes } from './runs.routes.js';
import { createRunsService } from './runs.service.js';

export function registerRunsModule(app: FastifyInstance, deps: ModuleDeps): void {
  registerRunsRoutes(app, createRunsService({ db: deps.database.db }));
}
