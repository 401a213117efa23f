import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../index.js';
import { registerAgentsRoutes } from './agents.routes.js';
import { createAgentsService } from './agents.service.js';

export function registerAgentsModule(app: FastifyInstance, deps: ModuleDeps): void {
  registerAgentsRoutes(app, createAgentsService({ db: deps.database.db }));
}
