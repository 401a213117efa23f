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

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['hunt_assets', 'hunt_asset_software', 'hunt_sightings', 'hunt_threats', 'hunt_threat_items', 'hunt_threat_runs', 'hunt_activity_events', 'hunt_deliverables', 'hunt_settings'] as const;
