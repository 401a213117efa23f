import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule, type ModuleServices } from '../../platform/module.js';
import { buildToolSet } from '../tools/index.js';
import { createAgentRunJob } from './run.jobs.js';
import { sweepAbandonedRuns } from './run-sweep.js';
import { runsSubscriptions } from './runs.subscriptions.js';
import { registerRunsRoutes } from './runs.routes.js';
import { createRunsService, type RunsService } from './runs.service.js';
import { registerRunMetrics } from './runs.metrics.js';
import { migrations } from './migrations/index.js';

export { enqueueRun, runParams, runRowJson, runWithJob, runsWithJobs, type NewRun, type RunParam } from './runs.enqueue.js';
export { recordRunJudgement, runStatus, type RunJudgement } from './runs.repo.js';
export { runOutcome, type RunOutcome } from './runs.readers.js';
export type { LoadRunSandbox, RunSandbox, RunTools } from './run.jobs.js';
export type { RunResult } from './run-result.fns.js';
export { sweepAbandonedRuns } from './run-sweep.js';
export type { RunAlertContext } from './run-result.fns.js';
export type { EndedRun } from './run-state.js';
export type { TriggerContextT } from './runs.schemas.js';

function registerRunsModule(app: FastifyInstance, deps: ModuleDeps, services: ModuleServices<RunsService>): void {
  registerRunsRoutes(app, services.own);
  registerRunMetrics(deps.metrics, deps.database.db);
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['agent_runs'] as const;

/**
 * Runs: the run API, the run job (its tool set built from every module's `tools`; the alert a
 * triage run works on read through `readers.runAlert`, which alerts answer; an evaluation run's
 * sandbox through `readers.runSandbox`, which evaluations answer), the sweep that ends
 * runs no job will finish, and the pinning of unfinished runs on `agent.changed`.
 */
export const runsModule = defineModule({
  name: 'runs',
  owns: ownedTables,
  migrations,
  services: ({ db }) => createRunsService({ db }),
  routes: registerRunsModule,
  jobs: (deps) => [
    createAgentRunJob({
      ...deps,
      buildTools: (ctx, names) => buildToolSet({ ...deps, catalog: deps.tools }, ctx, names),
      loadRunAlert: deps.readers.runAlert,
      baseUrl: deps.baseUrl,
      ...(deps.readers.runSandbox ? { loadSandbox: deps.readers.runSandbox } : {}),
    }),
  ],
  schedulerPasses: [
    {
      name: 'run sweep',
      run: async ({ db, events, logger, runGraceMs }) => {
        const n = await sweepAbandonedRuns(db, { graceMs: runGraceMs, events });
        if (n > 0) logger.warn({ runs: n }, 'ended runs that no job will finish (their job failed for good, or they outlived their time limit)');
      },
    },
  ],
  subscribes: runsSubscriptions,
});
