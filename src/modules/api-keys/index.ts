import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { registerApiKeysRoutes } from './api-keys.routes.js';
import { createApiKeysService } from './api-keys.service.js';

export function registerApiKeysModule(app: FastifyInstance, deps: ModuleDeps): void {
  registerApiKeysRoutes(app, createApiKeysService({ db: deps.database.db, authenticator: deps.authenticator }));
}
