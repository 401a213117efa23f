import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { createDatasetsService } from './datasets.service.js';
import { registerEvaluationsRoutes } from './evaluations.routes.js';
import { createEvaluationsService } from './evaluations.service.js';

// The front door: the sandbox evaluation runs execute in (the run job), the judge's jobs, the run.ended subscriber.
export { evaluationSandbox } from './sandbox.tools.js';
export { createJudgeJobs, type JudgeDeps } from './judge.jobs.js';
export { evaluationsSubscriptions } from './evaluation.flow.js';

export function registerEvaluationsModule(app: FastifyInstance, deps: ModuleDeps): void {
  const db = deps.database.db;
  registerEvaluationsRoutes(app, createDatasetsService({ db }), createEvaluationsService({ db, secrets: deps.secrets }));
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['evaluation_datasets', 'evaluation_cases', 'evaluations', 'evaluation_results', 'evaluation_settings'] as const;
