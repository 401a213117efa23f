import { defineModule } from '../../platform/module.js';
import { intelModule } from '../intel/index.js';
import { createProcessItemsJob, enqueueProcessing } from './pipeline/process.jobs.js';
import { createSyncSourceJob } from './sync.jobs.js';

// The front door: what other code may use of ingestion (tests and the bench reach the jobs too).
export { createSyncSourceJob } from './sync.jobs.js';
export { createProcessItemsJob, enqueueProcessing } from './pipeline/process.jobs.js';
export { processItem, type ProcessResult } from './pipeline/process.fns.js';
export type { HttpClient } from './connectors/connector.js';

/**
 * Ingestion: the connectors (one folder per source kind, connectors/<kind>/, loaded at a
 * source's first sync), the sync job that fetches a source and stores its entries enriched, chunk
 * by chunk, and the enrichment pipeline (pipeline/: classification, severity, summaries, story key;
 * indicators are recognised by intel's extractor). It owns no table: every row it writes goes
 * through intel's stores (intel's index.ts), and intel queues the syncs (its sources, its
 * scheduler pass). Intel never imports this module.
 */
export const intelIngestModule = defineModule({
  name: 'intel-ingest',
  owns: [],
  needs: [intelModule],
  jobs: (deps) => [createSyncSourceJob({ ...deps, enqueueEnrichment: enqueueProcessing }), createProcessItemsJob({ db: deps.db })],
});
