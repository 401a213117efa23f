import { defineModule } from '../../platform/module.js';
import { intelModule } from '../intel/index.js';
import { createProcessItemsJob, enqueueProcessing } from './pipeline/process.jobs.js';
import { createSyncSourceJob } from './sync.jobs.js';
import { createOsvShardJob } from './osv-shards.jobs.js';
import { migrations } from './migrations/index.js';

// The front door: what other code may use of ingestion (tests and the bench reach the jobs too).
export { createSyncSourceJob } from './sync.jobs.js';
export { createOsvShardJob } from './osv-shards.jobs.js';
export { createProcessItemsJob, enqueueProcessing } from './pipeline/process.jobs.js';
export { processItem, type ProcessResult } from './pipeline/process.fns.js';
export type { HttpClient } from './connectors/connector.js';

/**
 * Ingestion: the connectors (one folder per source kind, connectors/<kind>/, loaded at a
 * source's first sync), the sync job that fetches a source and stores its entries enriched, chunk
 * by chunk, and the enrichment pipeline (pipeline/: classification, severity, summaries, story key;
 * indicators are recognised by intel's extractor). Every item it writes goes through intel's
 * stores (intel's index.ts), and intel queues the syncs (its sources, its scheduler pass). It owns
 * one table, the shards of a sharded OSV sync (osv-shards.jobs.ts). Intel never imports this module.
 */

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['intel_sync_shards'] as const;
export const intelIngestModule = defineModule({
  name: 'intel-ingest',
  owns: ownedTables,
  migrations,
  needs: [intelModule],
  jobs: (deps) => [createSyncSourceJob({ ...deps, enqueueEnrichment: enqueueProcessing }), createOsvShardJob({ ...deps, enqueueEnrichment: enqueueProcessing }), createProcessItemsJob({ db: deps.db })],
});
