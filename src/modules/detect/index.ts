import { defineModule } from '../../platform/module.js';
import { triggersModule } from '../triggers/index.js';
import { createDetectJobs } from './detect-match.jobs.js';
import { registerDetectRoutes } from './detect.routes.js';
import { createDetectService } from './detect.service.js';
import { pruneWindows } from './detect.repo.js';
import { migrations } from './migrations/index.js';

export { matchTotals as detectionMatchTotals } from './detect.repo.js';
export { DetectionSet, loadDetection, type DeclaredEvent } from './detect-match.fns.js';
export type { DetectService } from './detect.service.js';
export { drainOrganization, type ClaimObserver, type DrainReport } from './detect-match.jobs.js';
export { createCompiledDetections } from './compiled-detections.js';
export { drainEventsJob } from './detect.job-def.js';

/** Correlation windows idle longer than this are dropped (no Sigma timespan Rampart runs is longer). */
export const MAX_WINDOW_IDLE_MS = 7 * 86_400_000;

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['detect_event_batches', 'detect_matches', 'detect_match_days', 'detect_correlation_windows'] as const;

/**
 * Detect: events in (`POST /api/events`, `events` triggers), matched in workers against the
 * organization's Sigma detections (compiled once per process), alerts through the alerts module,
 * correlation windows in PostgreSQL, match counts and the evidence sample (docs/detections.md).
 */
export const detectModule = defineModule({
  name: 'detect',
  owns: ownedTables,
  migrations,
  needs: [triggersModule],
  services: ({ db }) => createDetectService({ db }),
  routes: (app, deps, services) =>
    registerDetectRoutes(app, services.own, { bodyLimit: deps.config.bodyLimitBytes, authorizeIntake: services.of(triggersModule).authorizeIntake }),
  jobs: (deps) => createDetectJobs(deps),
  schedulerPasses: [{ name: 'correlation window prune', run: ({ db }) => pruneWindows(db, new Date(Date.now() - MAX_WINDOW_IDLE_MS)) }],
});
