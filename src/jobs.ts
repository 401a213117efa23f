import type { Logger } from 'pino';
import type { Database } from './platform/db/database.js';
import type { SecretBox } from './platform/secrets.js';
import { JobCatalog } from './platform/jobs/catalog.js';
import { maintenanceJobs } from './platform/jobs/maintenance.jobs.js';
import type { GuardedClient } from './platform/outbound/index.js';
import { createProcessItemsJob, createSyncSourceJob, enqueueProcessing } from './modules/intel/index.js';
import { createAgentRunJob } from './modules/runs/index.js';
import { buildToolSet } from './modules/tools/index.js';
import { createDeliveryJob } from './modules/delivery/index.js';
import { alertTools, runAlertContext } from './modules/alerts/index.js';
import { createHuntReassessJob } from './modules/hunt/index.js';
import { serviceEvents } from './events.js';
import { createJudgeJobs, evaluationSandbox } from './modules/evaluations/index.js';

export interface JobDeps {
  db: Database;
  secrets: SecretBox;
  http: GuardedClient;
  logger: Logger;
  /** RAMPART_BASE_URL, for links in delivered messages. */
  baseUrl?: string;
}

/** Every job type of the service; modules add theirs here as they gain background work. */
export function buildJobCatalog(deps: JobDeps): JobCatalog {
  // Built-in tools implemented by modules above `tools` (which must not import them).
  const events = serviceEvents();
  const provided = alertTools({ events });
  return new JobCatalog().register(
    ...maintenanceJobs(deps.db),
    createSyncSourceJob({ ...deps, enqueueEnrichment: enqueueProcessing }),
    createProcessItemsJob({ db: deps.db }),
    createAgentRunJob({ ...deps, buildTools: (ctx, names) => buildToolSet({ ...deps, provided }, ctx, names), events, loadRunAlert: runAlertContext, loadSandbox: evaluationSandbox }),
    createDeliveryJob({ ...deps, baseUrl: deps.baseUrl ?? 'http://127.0.0.1:8080' }),
    createHuntReassessJob({ db: deps.db, events }),
    ...createJudgeJobs(deps),
  );
}
