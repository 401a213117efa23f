import type { Logger } from 'pino';
import type { Database, Queryable } from '../../../platform/db/database.js';
import { defineJob, type JobDefinition } from '../../../platform/jobs/catalog.js';
import type { SecretBox } from '../../../platform/secrets.js';
import { ConnectorError, type Connector, type HttpClient, type SourceConfig } from '../connectors/connector.js';
import { ConnectorParseError } from '../connectors/types.js';
import { rssConnector } from '../connectors/rss/rss.connector.js';
import { mispConnector } from '../connectors/misp/misp.connector.js';
import { mispFeedConnector } from '../connectors/misp/misp-feed.connector.js';
import { taxiiConnector } from '../connectors/taxii/taxii.connector.js';
import { storeEntries, uniqueByExternalId } from '../items/items.store.js';
import { syncSourceJob } from './sync.job-def.js';

function connectorFor(source: Pick<SourceConfig, 'kind' | 'apiType'>): Connector {
  if (source.kind === 'rss') return rssConnector;
  switch (source.apiType) {
    case 'misp':
      return mispConnector;
    case 'misp_feed':
      return mispFeedConnector;
    case 'taxii':
      return taxiiConnector;
    default:
      throw new ConnectorError(`Unsupported apiType ${String(source.apiType)}`);
  }
}

/**
 * Errors worth another attempt: the network, timeouts, 5xx/429. A document we cannot parse,
 * a refused address or a 4xx will fail the same way again: fail now, with the reason.
 */
function isTransient(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return ['timeout', 'network', 'dns'].includes(code);
  if (err instanceof ConnectorError) return /HTTP (5\d\d|429)\b/.test(err.message);
  return false;
}

export function userMessage(err: unknown): string {
  if (err instanceof ConnectorError || err instanceof ConnectorParseError) return err.message;
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e.code === 'string' && typeof e.message === 'string') return e.message; // OutboundError: safe by design
  return 'Unexpected error while syncing (see the worker log)';
}

/**
 * Entries stored per transaction. Each chunk commits with its enrichment jobs, so the worker
 * enriches the first items while the sync is still storing the rest (a 10,000-entry feed no
 * longer waits for its last row before enrichment starts), and no transaction grows with the
 * feed.
 */
const STORE_CHUNK = 1_000;

/**
 * Sync one source for one organization. Everything is fetched and parsed first, then stored in
 * chunks of STORE_CHUNK entries, each chunk in its own transaction with its enrichment jobs;
 * the source state (ETag, cursor, lastStatus) and the job's outcome commit with the last chunk.
 * A failure part-way leaves the chunks already committed (complete items, queued for
 * enrichment) and the source state as before, so the retry fetches the same entries again and
 * finds those items unchanged. Re-running a sync job (a retry after a crash) is harmless: items
 * upsert by (source, externalId) and a finished job is not run again.
 */
export function createSyncSourceJob(deps: { db: Database; secrets: SecretBox; http: HttpClient; logger: Logger; onItemsChanged?: (tx: Queryable, organizationId: string, ids: string[]) => Promise<void> }): JobDefinition<{ syncJobId: string }> {
  const { db } = deps;
  return defineJob({
    ...syncSourceJob,
    async run({ syncJobId }, ctx) {
      const job = await db.selectFrom('intelSyncJobs').selectAll().where('id', '=', syncJobId).executeTakeFirst();
      if (!job || job.status === 'succeeded' || job.status === 'failed') return;
      const source = await db.selectFrom('intelSources').selectAll().where('id', '=', job.sourceId).executeTakeFirst();
      if (!source) {
        await db.updateTable('intelSyncJobs').set({ status: 'failed', error: 'The source was deleted', finishedAt: new Date(), updatedAt: new Date() }).where('id', '=', syncJobId).execute();
        return;
      }
      const state = await db.selectFrom('intelSourceStates').selectAll().where('organizationId', '=', job.organizationId).where('sourceId', '=', job.sourceId).executeTakeFirst();
      await db
        .updateTable('intelSyncJobs')
        .set({ status: 'running', startedAt: job.startedAt ?? new Date(), attemptCount: ctx.attempt, updatedAt: new Date() })
        .where('id', '=', syncJobId)
        .execute();

      const config: SourceConfig = {
        displayName: source.displayName,
        kind: source.kind,
        apiType: source.apiType,
        feedUrl: source.feedUrl,
        serverUrl: source.serverUrl,
        collectionId: source.collectionId,
        authType: source.authType,
        username: source.username,
        apiKey: source.apiKeyCiphertext ? deps.secrets.decrypt(source.apiKeyCiphertext) : null,
        maxEntries: source.maxEntries,
      };
      const log = ctx.logger.child({ sourceId: source.id, organizationId: job.organizationId });
      try {
        const result = await connectorFor(config).fetch(config, { etag: state?.etag ?? null, lastModified: state?.lastModified ?? null, cursor: state?.cursor ?? {} }, deps.http);
        const entries = uniqueByExternalId(result.entries);
        const stats = { fetched: result.entries.length, created: 0, updated: 0, unchanged: 0 };
        // At least one transaction, also for an empty or not-modified fetch: it records the outcome.
        for (let from = 0; from === 0 || from < entries.length; from += STORE_CHUNK) {
          const last = from + STORE_CHUNK >= entries.length;
          await db.transaction().execute(async (tx) => {
            const stored = await storeEntries(tx, job.organizationId, source.id, entries.slice(from, from + STORE_CHUNK));
            stats.created += stored.created;
            stats.updated += stored.updated;
            stats.unchanged += stored.unchanged;
            if (deps.onItemsChanged && stored.changedIds.length) await deps.onItemsChanged(tx, job.organizationId, stored.changedIds);
            if (!last) return;
            const now = new Date();
            const stateValues = {
              lastFetchedAt: now,
              lastStatus: result.status,
              lastError: null,
              etag: result.etag ?? null,
              lastModified: result.lastModified ?? null,
              cursor: JSON.stringify(result.cursor ?? state?.cursor ?? {}),
              updatedAt: now,
            };
            await tx
              .insertInto('intelSourceStates')
              .values({ organizationId: job.organizationId, sourceId: source.id, ...stateValues })
              .onConflict((oc) => oc.columns(['organizationId', 'sourceId']).doUpdateSet(stateValues))
              .execute();
            await tx.updateTable('intelSyncJobs').set({ status: 'succeeded', error: null, finishedAt: now, updatedAt: now, stats: JSON.stringify(stats) }).where('id', '=', syncJobId).execute();
          });
        }
        log.info({ ...stats, status: result.status }, 'source synced');
      } catch (err) {
        const message = userMessage(err);
        const retry = isTransient(err) && ctx.attempt < ctx.maxAttempts;
        const now = new Date();
        await db.transaction().execute(async (tx) => {
          const stateValues = { lastFetchedAt: now, lastStatus: 'error' as const, lastError: message, updatedAt: now };
          await tx
            .insertInto('intelSourceStates')
            .values({ organizationId: job.organizationId, sourceId: source.id, ...stateValues })
            .onConflict((oc) => oc.columns(['organizationId', 'sourceId']).doUpdateSet(stateValues))
            .execute();
          await tx
            .updateTable('intelSyncJobs')
            .set({ status: retry ? 'pending' : 'failed', error: message, finishedAt: retry ? null : now, updatedAt: now })
            .where('id', '=', syncJobId)
            .execute();
        });
        log.warn({ err, retry, attempt: ctx.attempt }, `source sync failed: ${message}`);
        if (retry) throw err;
      }
    },
  });
}
