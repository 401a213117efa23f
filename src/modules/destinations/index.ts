import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../index.js';
import { registerDestinationsRoutes } from './destinations.routes.js';
import { createDestinationsService } from './destinations.service.js';

export function registerDestinationsModule(app: FastifyInstance, deps: ModuleDeps): void {
  registerDestinationsRoutes(app, createDestinationsService({ db: deps.database.db, secrets: deps.secrets }));
}
