import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { registerRolesRoutes } from './roles.routes.js';
import { createRolesService } from './roles.service.js';

export function registerRolesModule(app: FastifyInstance, deps: ModuleDeps): void {
  registerRolesRoutes(app, createRolesService({ db: deps.database.db, authenticator: deps.authenticator }));
}
