import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { registerHuntRoutes } from './hunt.routes.js';
import { createThreatsService } from './threats.service.js';
import { createAssetsService } from './assets.service.js';

// The front door: the intel pass and reassess job (composed in src/scheduler.ts, src/jobs.ts), the hunt-alert subscription.
export { runHuntIntelPass, syncThreatsFromIntel } from './threats.sync.js';
export { createHuntReassessJob, REASSESS_JOB } from './hunt.jobs.js';
export { assessThreats } from './assess.service.js';
export type { HuntAlertInput, HuntAlertOutcome } from './hunt-alerts.js';
export { huntSubscriptions } from './hunt-alerts.adapter.js';
// Exposure bands, for Insights' threats per band.
export { BAND_FLOOR } from './exposure.fns.js';

export function registerHuntModule(app: FastifyInstance, deps: ModuleDeps): void {
  const db = deps.database.db;
  registerHuntRoutes(app, { threats: createThreatsService({ db, events: deps.events }), assets: createAssetsService({ db }) });
}
