import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule, type ModuleServices, type ServiceDeps } from '../../platform/module.js';
import { alertTools } from './alert.tools.js';
import { runAlertContext } from './run-alert.js';
import { alertsSubscriptions } from './alerts.subscriptions.js';
import { registerAlertsRoutes } from './alerts.routes.js';
import { createAlertsService, type AlertsService } from './alerts.service.js';
import { createRoutingService, type RoutingService } from './routing.service.js';
import { createCodeDetectionsService, type CodeDetectionsService } from './code-detections.service.js';
import { alertEventRecoveryPass } from './alert-event-recovery.js';
import { migrations } from './migrations/index.js';

// The front door: how other modules create alerts (triggers, hunt) and what they may read.
export { createAlert, type NewAlert, type TriageChoice, type AlertDeps } from './alerts.create.js';
export { findAlert } from './alerts.repo.js';
// The SQL pieces of a new alert's one statement, for the flows that write more with it (src/flows/: the trigger firing).
export { alertCreated, duplicateEntryOf, newAlertRecord, type NewAlertRecord } from './alerts.create.js';
export { alertInsert, alertStatement, answered, countDuplicate, groupedAlertEntries, groupedAlertJson, groupedAlertRows, groupedAlertsInsert, insertedDisplayId, newAlertEntries, toAlertDto } from './alerts.repo.js';
export type { AlertInsertParam, AlongWithAlert } from './alerts.repo.js';
// A module whose command an agent runs on an alert's behalf notes it on the timeline (block lists: what was blocked, until when).
export { addTimelineEntry, type NewTimelineEntry } from './alerts.repo.js';
export { DISPLAY_PREFIX } from './alerts.fns.js';
export { alertsByDedupeKey, isOpenStatus, raiseAlertBySystem, reopenAlertBySystem } from './alerts.reopen.js';
export { lowerAlertBySystem, resolveAlertBySystem, SYSTEM_CLOSE_STATUS } from './alerts.follow.js';
export type { AlertDto } from './alerts.schemas.js';
export type { AlertSeverity, AlertStatus } from './alerts.tables.js';
export { RouteCondition, RouteInput } from './routing.schemas.js';
export { CodeDetectionInput } from './code-detections.schemas.js';
export { sigmaDetectionOf } from './sigma-import.fns.js';
// The Sigma engine (pure): compile, match, convert, run tests (docs/detections.md).
export { compileSigma, type CompiledUnit, type CompiledRule, type SigmaRefusal } from './sigma/sigma-compile.fns.js';
export { convertRule, isTarget, TARGETS, ConversionError, type Target } from './sigma/sigma-convert.fns.js';
export { convertWithPipeline, formatNames, pipelineNames } from './sigma/sigma-pipelines.fns.js';
export { convertUnit } from './sigma/sigma-convert-correlation.fns.js';
export { EventView, type JsonEvent } from './sigma/sigma-event.fns.js';
export { CorrelationWindow, eventTime, type CompiledCorrelation, type CorrelationHit } from './sigma/sigma-correlation.fns.js';
export { readTests, runTests, type DetectionTest, type TestOutcome } from './sigma/sigma-tests.fns.js';
export type { RoutingService } from './routing.service.js';
export type { AlertsService } from './alerts.service.js';
export type { CodeDetectionsService } from './code-detections.service.js';
export { alertFieldsFromPayload, createsAlertByDefault, isJsonPointer, MAPPABLE_FIELDS, readPointer, type AlertFields, type AlertMapping } from './trigger-payload.fns.js';
export { closedAlertsForCases, type ClosedAlertCase } from './alerts.readers.js';
export { dispositionOf, refusedStatusChange } from './alerts.fns.js';
export { codeDetectionName, codeDetectionQuery, eventDetectionsOf, eventDetectionsVersion, raiseDetectionMatch, type EventDetection } from './code-detections.events.js';
export { detectionCountsByTechnique, detectionsForTechnique, detectionTechniques, type TechniqueDetections } from './code-detections.coverage.js';

/** Event types this module records for output destinations (see docs/alerts.md). */
export const ALERT_EVENT_TYPES = ['alert.created', 'alert.status_changed', 'alert.updated'] as const;

/** The alerts, routing and code detection commands: config apply writes routing and code detections through them. */
export interface AlertsServices {
  alerts: AlertsService;
  routing: RoutingService;
  codeDetections: CodeDetectionsService;
}

function alertsServices({ db, events }: Pick<ServiceDeps, 'db' | 'events'>): AlertsServices {
  return { alerts: createAlertsService({ db, events }), routing: createRoutingService({ db }), codeDetections: createCodeDetectionsService({ db, events }) };
}

function registerAlertsModule(app: FastifyInstance, _deps: ModuleDeps, services: ModuleServices<AlertsServices>): void {
  registerAlertsRoutes(app, services.own);
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
  migrations,
  services: alertsServices,
  routes: registerAlertsModule,
  tools: alertTools,
  subscribes: alertsSubscriptions,
  readers: { runAlert: runAlertContext },
  schedulerPasses: [alertEventRecoveryPass],
});
