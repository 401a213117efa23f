import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { registerUsersRoutes } from './users.routes.js';
import { createUsersService } from './users.service.js';

export function registerUsersModule(app: FastifyInstance, deps: ModuleDeps): void {
  registerUsersRoutes(app, createUsersService({ db: deps.database.db, authenticator: deps.authenticator }));
}
