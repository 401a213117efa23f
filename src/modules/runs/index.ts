import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { registerRunsRoutes } from './runs.routes.js';
import { createRunsService } from './runs.service.js';
import { registerRunMetrics } from './runs.metrics.js';

export { enqueueRun } from './runs.enqueue.js';
export { runStatus } from './runs.repo.js';
export { createAgentRunJob, type LoadRunAlert, type LoadRunSandbox, type RunTools } from './run.jobs.js';
export { recordRunJudgement, runOutcome, type RunJudgement, type RunOutcome } from './runs.readers.js';
export type { RunResult } from './run-result.fns.js';
export { sweepAbandonedRuns } from './run-sweep.js';
export { runsSubscriptions } from './run-pinning.js';
export type { RunAlertContext } from './run-result.fns.js';
export type { EndedRun } from './run-state.js';
export type { TriggerContextT } from './runs.schemas.js';

export function registerRunsModule(app: FastifyInstance, deps: ModuleDeps): void {
  registerRunsRoutes(app, createRunsService({ db: deps.database.db }));
  registerRunMetrics(deps.metrics, deps.database.db);
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['agent_runs'] as const;
