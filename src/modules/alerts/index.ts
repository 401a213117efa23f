import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import type { Subscriptions } from '../../platform/events.js';
import { noteTriageRunEnded } from './alerts.create.js';
import { registerAlertsRoutes } from './alerts.routes.js';
import { createAlertsService } from './alerts.service.js';
import { createRoutingService } from './routing.service.js';
import { createCodeDetectionsService } from './code-detections.service.js';

// The front door: how other modules create alerts (triggers, hunt) and what they may read.
export { createAlert, type NewAlert, type TriageChoice, type AlertDeps } from './alerts.create.js';
export { findAlert } from './alerts.repo.js';
export { DISPLAY_PREFIX } from './alerts.fns.js';
export { alertsByDedupeKey, isOpenStatus, raiseAlertBySystem, reopenAlertBySystem } from './alerts.reopen.js';
export type { AlertDto } from './alerts.schemas.js';
export { alertFieldsFromPayload, createsAlertByDefault, isJsonPointer, MAPPABLE_FIELDS, readPointer, type AlertFields, type AlertMapping } from './trigger-payload.fns.js';
export { alertTools } from './alert.tools.js';
export { runAlertContext } from './run-alert.js';
export { detectionCountsByTechnique, detectionsForTechnique, type TechniqueDetections } from './code-detections.coverage.js';

/** Event types this module records for output destinations (see docs/alerts.md). */
export const ALERT_EVENT_TYPES = ['alert.created', 'alert.status_changed'] as const;

/** Alerts' subscriptions: a triage run's end is noted on its alert (and the alert and verdict go into the run's output event). */
export const alertsSubscriptions: Subscriptions = { 'run.ended': noteTriageRunEnded };

export function registerAlertsModule(app: FastifyInstance, deps: ModuleDeps): void {
  const db = deps.database.db;
  const { events } = deps;
  registerAlertsRoutes(app, {
    alerts: createAlertsService({ db, events }),
    routing: createRoutingService({ db }),
    codeDetections: createCodeDetectionsService({ db, events }),
  });
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['alerts', 'alert_timeline', 'alert_routing', 'code_detections'] as const;
