import type { Database } from './platform/db/database.js';
import { JobCatalog } from './platform/jobs/catalog.js';
import { maintenanceJobs } from './platform/jobs/maintenance.jobs.js';

/** Every job type of the service; modules add theirs here as they gain background work. */
export function buildJobCatalog(db: Database): JobCatalog {
  return new JobCatalog().register(...maintenanceJobs(db));
}
