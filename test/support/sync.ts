import type { Logger } from 'pino';
import pino from 'pino';
import { randomBytes } from 'node:crypto';
import type { Database, Queryable } from '../../src/platform/db/database.js';
import { createSecretBox, type SecretBox } from '../../src/platform/secrets.js';
import { createGuardedClient } from '../../src/platform/outbound/index.js';
import type { HttpClient } from '../../src/modules/intel-ingest/connectors/connector.js';
import { createSyncSourceJob } from '../../src/modules/intel-ingest/sync.jobs.js';
import { requestSync } from '../../src/modules/intel/sources/sources.service.js';

/**
 * Runs the real sync job handler for one (organization, source) the way a worker would, with
 * an attempt number of our choosing (to exercise retry and final-failure paths).
 */
export function syncRunner(db: Database, opts: { secrets?: SecretBox; http?: HttpClient; enqueueEnrichment?: (tx: Queryable, itemIds: string[]) => Promise<void>; osvMaxInflatedBytes?: number; logger?: Logger } = {}) {
  const secrets = opts.secrets ?? createSecretBox(randomBytes(32));
  // 10 s, not 2: a local fake's answer took longer than 2 s at load 20+ and the sync failed (tests that
  // exercise a timeout pass their own client).
  const http = opts.http ?? createGuardedClient({ allowPrivateNetworks: true, timeoutMs: 10_000, retries: 0 });
  const logger = opts.logger ?? pino({ level: 'silent' });
  const job = createSyncSourceJob({ db, secrets, http, logger, ...(opts.enqueueEnrichment ? { enqueueEnrichment: opts.enqueueEnrichment } : {}), ...(opts.osvMaxInflatedBytes ? { osvMaxInflatedBytes: opts.osvMaxInflatedBytes } : {}) });
  return {
    secrets,
    async sync(organizationId: string, sourceId: string, attempt = 1) {
      const syncJobId = await db.transaction().execute((tx) => requestSync(tx, organizationId, sourceId, 'manual'));
      let thrown: unknown = null;
      try {
        await job.run({ syncJobId }, { jobId: 'test', attempt, maxAttempts: 3, logger, signal: new AbortController().signal });
      } catch (err) {
        thrown = err;
      }
      const row = await db.selectFrom('intelSyncJobs').selectAll().where('id', '=', syncJobId).executeTakeFirstOrThrow();
      const state = await db.selectFrom('intelSourceStates').selectAll().where('organizationId', '=', organizationId).where('sourceId', '=', sourceId).executeTakeFirstOrThrow();
      return { job: row, state, thrown };
    },
  };
}
