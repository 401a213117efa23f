import { defineModule, type ServiceDeps } from '../../platform/module.js';
import { runHuntIntelPass } from './threats.sync.js';
import { createHuntReassessJob } from './hunt.jobs.js';
import { huntSubscriptions } from './hunt.subscriptions.js';
import { registerHuntRoutes } from './hunt.routes.js';
import { createThreatsService } from './threats.service.js';
import { createAssetsService } from './assets.service.js';
import { migrations } from './migrations/index.js';

// The front door: the intel pass (also the manifest's scheduler pass) and threat sync, assessment.
export { runHuntIntelPass, settledInstant, syncThreatsFromIntel } from './threats.sync.js';
export { assessThreats } from './assess.service.js';
export type { HuntAlertInput, HuntAlertOutcome } from './hunt-alerts.js';
// Exposure bands, for Insights' threats per band.
export { BAND_FLOOR } from './exposure.fns.js';

/** Its commands: threats (assessment, decisions) and assets (inventory, imports). */
function huntServices({ db, events }: Pick<ServiceDeps, 'db' | 'events'>) {
  return { threats: createThreatsService({ db, events }), assets: createAssetsService({ db }) };
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['hunt_assets', 'hunt_asset_software', 'hunt_sightings', 'hunt_threats', 'hunt_threat_items', 'hunt_threat_runs', 'hunt_activity_events', 'hunt_deliverables', 'hunt_settings'] as const;

/** Hunt: assets, threats and assessment (the reassess job), the pass that turns CVEs in new intel into threats (intel never calls hunt), and the hunt-alert subscriber. */
export const huntModule = defineModule({
  name: 'hunt',
  owns: ownedTables,
  migrations,
  services: huntServices,
  routes: (app, _deps, services) => registerHuntRoutes(app, services.own),
  jobs: ({ db, events }) => [createHuntReassessJob({ db, events })],
  schedulerPasses: [{ name: 'hunt intel pass', run: ({ db, events }) => runHuntIntelPass(db, events) }],
  subscribes: huntSubscriptions,
});
