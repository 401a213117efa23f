import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule } from '../../platform/module.js';
import { alertTools } from './alert.tools.js';
import { runAlertContext } from './run-alert.js';
import { noteTriageRunEnded } from './alerts.create.js';
import { alertApprovalSubscriptions } from './alerts.approvals.js';
import { registerAlertsRoutes } from './alerts.routes.js';
import { createAlertsService } from './alerts.service.js';
import { createRoutingService, type RoutingService } from './routing.service.js';
import { createCodeDetectionsService, type CodeDetectionsService } from './code-detections.service.js';

// The front door: how other modules create alerts (triggers, hunt) and what they may read.
export { createAlert, createTriggerAlertGroup, type NewAlert, type TriageChoice, type AlertDeps, type TriggerAlertGroup } from './alerts.create.js';
export { findAlert } from './alerts.repo.js';
export { DISPLAY_PREFIX } from './alerts.fns.js';
export { alertsByDedupeKey, isOpenStatus, raiseAlertBySystem, reopenAlertBySystem } from './alerts.reopen.js';
export type { AlertDto } from './alerts.schemas.js';
export { RouteCondition, RouteInput } from './routing.schemas.js';
export { CodeDetectionInput } from './code-detections.schemas.js';
export { sigmaDetectionOf } from './sigma-import.fns.js';
// The Sigma engine (pure): compile, match, convert, run tests (docs/detections.md).
export { compileSigma, type CompiledUnit, type CompiledRule, type SigmaRefusal } from './sigma/sigma-compile.fns.js';
export { convertRule, isTarget, TARGETS, ConversionError, type Target } from './sigma/sigma-convert.fns.js';
export { EventView, type JsonEvent } from './sigma/sigma-event.fns.js';
export { readTests, runTests, type DetectionTest, type TestOutcome } from './sigma/sigma-tests.fns.js';
export type { RoutingService } from './routing.service.js';
export type { CodeDetectionsService } from './code-detections.service.js';
export { alertFieldsFromPayload, createsAlertByDefault, isJsonPointer, MAPPABLE_FIELDS, readPointer, type AlertFields, type AlertMapping } from './trigger-payload.fns.js';
export { closedAlertsForCases, type ClosedAlertCase } from './alerts.readers.js';
export { dispositionOf, refusedStatusChange } from './alerts.fns.js';
export { detectionCountsByTechnique, detectionsForTechnique, type TechniqueDetections } from './code-detections.coverage.js';

/** Event types this module records for output destinations (see docs/alerts.md). */
export const ALERT_EVENT_TYPES = ['alert.created', 'alert.status_changed'] as const;

/** Returns the routing and code detection services: config apply writes them through their commands. */
function registerAlertsModule(app: FastifyInstance, deps: ModuleDeps): { routing: RoutingService; codeDetections: CodeDetectionsService } {
  const db = deps.database.db;
  const { events } = deps;
  const services = { routing: createRoutingService({ db }), codeDetections: createCodeDetectionsService({ db, events }) };
  registerAlertsRoutes(app, { alerts: createAlertsService({ db, events }), ...services });
  return services;
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['alerts', 'alert_timeline', 'alert_routing', 'code_detections'] as const;

/**
 * Alerts: the API, the alert tools agents may be given, the answer to runs' `runAlert` question
 * (what a triage run is told about its alert), and the subscription that notes a triage run's
 * end on its alert (the alert and verdict go into the run's output event).
 */
export const alertsModule = defineModule({
  name: 'alerts',
  owns: ownedTables,
  routes: registerAlertsModule,
  tools: alertTools,
  subscribes: { 'run.ended': noteTriageRunEnded, ...alertApprovalSubscriptions },
  readers: { runAlert: runAlertContext },
});
