import { createDatasetsService } from './datasets.service.js';
import { registerEvaluationsRoutes } from './evaluations.routes.js';
import { createEvaluationsService } from './evaluations.service.js';

import { defineModule, type ServiceDeps } from '../../platform/module.js';
import { evaluationSandbox } from './sandbox.tools.js';
import { createJudgeJobs } from './judge.jobs.js';
import { evaluationsSubscriptions } from './evaluations.subscriptions.js';
import { migrations } from './migrations/index.js';

/** Its commands: datasets of labelled cases, and evaluations of an agent over them. */
function evaluationsServices({ db, secrets }: Pick<ServiceDeps, 'db' | 'secrets'>) {
  return { datasets: createDatasetsService({ db }), evaluations: createEvaluationsService({ db, secrets }) };
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['evaluation_datasets', 'evaluation_cases', 'evaluations', 'evaluation_results', 'evaluation_settings'] as const;

/**
 * Evaluations: datasets and evaluations (API), the judge's jobs, the `run.ended` subscriber (an
 * evaluation run records its case and starts the next; a real run with acceptance criteria queues
 * the judge) and the answer to runs' `runSandbox` question (the sandbox evaluation runs execute in).
 */
export const evaluationsModule = defineModule({
  name: 'evaluations',
  owns: ownedTables,
  migrations,
  services: evaluationsServices,
  routes: (app, _deps, services) => registerEvaluationsRoutes(app, services.own.datasets, services.own.evaluations),
  jobs: (deps) => createJudgeJobs(deps),
  subscribes: evaluationsSubscriptions,
  readers: { runSandbox: evaluationSandbox },
});
