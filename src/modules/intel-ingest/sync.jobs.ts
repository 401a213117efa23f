import type { Logger } from 'pino';
import { redactSecrets } from '../../platform/outbound/url-secrets.js';
import type { Database, Queryable } from '../../platform/db/database.js';
import { defineJob, type JobDefinition } from '../../platform/jobs/catalog.js';
import { describeDelay, retryDelaySeconds } from '../../platform/jobs/retry-delay.js';
import type { SecretBox } from '../../platform/secrets.js';
import { ConnectorError, ConnectorParseError, type Connector, type ConnectorLimits, type HttpClient, type SourceConfig } from './connectors/connector.js';
import {
  failSyncOfDeletedSource,
  findSourceState,
  findSyncedSource,
  findSyncJob,
  holdsRecordsOf,
  loadAttackCatalog,
  markSyncRunning,
  MITRE_SOURCE_KEY,
  recordSyncFailure,
  recordSyncProgress,
  recordSyncSuccess,
  refreshAttackCatalog,
  syncSourceJob,
  writeEpssScores,
} from '../intel/index.js';
import { planOsvShardedSync } from './osv-shards.queue.js';
import { createEntryWriter } from './sync.writes.js';

/**
 * The source's connector. The connectors and their parsers (feedsmith, fast-xml-parser,
 * html-to-text, iconv-lite: ~14 MiB) load at the first sync, not in the API process,
 * which imports this module only for its job definition (docs/performance.md, start-up).
 */
async function connectorFor(source: Pick<SourceConfig, 'kind' | 'apiType'>): Promise<Connector> {
  return (await import('./connectors/registry.js')).connectorFor(source);
}

/**
 * Errors worth another attempt: the network, timeouts, 5xx/429. A document we cannot parse,
 * a refused address or a 4xx will fail the same way again: fail now, with the reason.
 */
export function isTransient(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  // PostgreSQL: a lost or refused connection (class 08), a deadlock or serialization failure, a
  // server shutting down or starting: the database's, not the document's, so worth another attempt.
  if (typeof code === 'string' && /^(08...|40001|40P01|57P0[123])$/.test(code)) return true;
  if (typeof code === 'string') return ['timeout', 'network', 'dns'].includes(code);
  // node-postgres's pool gives up on a connection without a code (a database slow to answer under load).
  if (err instanceof Error && /^Connection terminated|^timeout exceeded when trying to connect/.test(err.message)) return true;
  if (err instanceof ConnectorError) return /HTTP (5\d\d|429)\b/.test(err.message);
  return false;
}

/** The connector's view of a source, its credential decrypted (in memory for the sync only). */
export function sourceConfig(source: NonNullable<Awaited<ReturnType<typeof findSyncedSource>>>, secrets: SecretBox): SourceConfig {
  return {
    displayName: source.displayName,
    kind: source.kind,
    apiType: source.apiType,
    feedUrl: source.feedUrl,
    serverUrl: source.serverUrl,
    collectionId: source.collectionId,
    authType: source.authType,
    username: source.username,
    apiKey: source.apiKeyCiphertext ? secrets.decrypt(source.apiKeyCiphertext) : null,
    maxEntries: source.maxEntries,
  };
}

export function userMessage(err: unknown): string {
  if (err instanceof ConnectorError || err instanceof ConnectorParseError) return err.message;
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e.code === 'string' && typeof e.message === 'string') return e.message; // OutboundError: safe by design
  return 'Unexpected error while syncing (see the worker log)';
}

/**
 * A failed sync's one line (the runner logs no other for it: failure-logging.ts): the redacted
 * reason, never the error object (its text and stack can carry the URL's credentials), and when
 * a transient failure is tried again — an offline machine's built-in feeds fail every attempt, and
 * the line says whether to wait.
 */
export function logSyncFailure(log: Logger, err: unknown, message: string, retry: boolean, ctx: { attempt: number; maxAttempts: number }): void {
  const fields = { errorName: err instanceof Error ? err.name : typeof err, retry, attempt: ctx.attempt, maxAttempts: ctx.maxAttempts };
  if (!retry) return log.warn(fields, `source sync failed: ${message}`);
  const retryInSeconds = retryDelaySeconds(ctx.attempt);
  log.warn({ ...fields, retryInSeconds }, `source sync failed: ${message}; retrying in ~${describeDelay(retryInSeconds)} (attempt ${ctx.attempt} of ${ctx.maxAttempts})`);
}

/** A streamed sync logs (and records on its job) its counts every this many entries. */
const PROGRESS_EVERY = 10_000;

/**
 * Sync one source for one organization. Everything is fetched and parsed first, then enriched
 * and stored in chunks of STORE_CHUNK entries, each chunk in its own transaction; the source
 * state (ETag, cursor, lastStatus) and the job's outcome commit once every chunk has. A failure
 * part-way leaves the chunks already committed (complete, enriched items) and the source state
 * as before, so the retry fetches the same entries again and finds those items unchanged. Re-running a sync job (a retry after a crash) is harmless: items upsert by
 * (source, externalId) and a finished job is not run again. An entry whose enrichment throws is
 * stored as is and handed to `enqueueEnrichment` in its chunk's transaction.
 */
export function createSyncSourceJob(deps: { db: Database; secrets: SecretBox; http: HttpClient; logger: Logger; enqueueEnrichment?: (tx: Queryable, itemIds: string[]) => Promise<void>; osvMaxInflatedBytes?: number; osvShardRecords?: number }): JobDefinition<{ syncJobId: string }> {
  const { db } = deps;
  return defineJob({
    ...syncSourceJob,
    async run({ syncJobId }, ctx) {
      const job = await findSyncJob(db, syncJobId);
      if (!job || job.status === 'succeeded' || job.status === 'failed') return;
      const source = await findSyncedSource(db, job.sourceId);
      if (!source) {
        await failSyncOfDeletedSource(db, syncJobId);
        return;
      }
      const state = await findSourceState(db, job.organizationId, job.sourceId);
      await markSyncRunning(db, syncJobId, job.startedAt ?? new Date(), ctx.attempt);

      const config = sourceConfig(source, deps.secrets);
      const target = { organizationId: job.organizationId, sourceId: source.id, sourceLabel: source.displayName };
      const log = ctx.logger.child({ sourceId: source.id, organizationId: job.organizationId });
      let writer: ReturnType<typeof createEntryWriter> | undefined;
      let dispose: (() => Promise<void>) | undefined;
      try {
        // Every request of the connector carries the job's signal: a worker shutting down cuts a slow
        // download or a retry backoff short instead of waiting for it (the job is retried later).
        const http: HttpClient = { request: (url, init) => deps.http.request(url, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, ctx.signal]) : ctx.signal }) };
        // Records the connector skips unbuilt because the store holds them unchanged (a re-sync; a
        // first sync asks nothing): the connector reads its batches only after the writer below exists, which counts them.
        const settledRecords: ConnectorLimits['settledRecords'] = (records) => writer!.settledRecords(records);
        const limits = { ...(deps.osvMaxInflatedBytes ? { maxInflatedBytes: deps.osvMaxInflatedBytes } : {}), ...(config.apiType === 'osv' && (await holdsRecordsOf(db, target)) ? { settledRecords } : {}) };
        // A large OSV zip on a server that serves byte ranges is split into shards, each its own job
        // (osv-shards.queue.ts, osv-shards.jobs.ts): this job only plans and queues them; the last shard records the outcome.
        const planned = config.apiType === 'osv' && deps.osvShardRecords !== 0 ? await planOsvShardedSync(db, job, config, state, http, { ...limits, shardRecords: deps.osvShardRecords }, log) : null;
        if (planned === 'queued') return;
        const result = planned ?? (await (await connectorFor(config)).fetch(config, { etag: state?.etag ?? null, lastModified: state?.lastModified ?? null, cursor: state?.cursor ?? {} }, http, limits));
        dispose = result.dispose;
        for (const note of result.notes ?? []) log.info({ note }, `source sync: ${note}`);
        // ATT&CK objects refresh the catalog first, so every item of the sync can use the names.
        if (source.builtinKey === MITRE_SOURCE_KEY) await refreshAttackCatalog(db, result.entries.map((e) => e.raw));
        const catalog = await loadAttackCatalog(db);
        writer = createEntryWriter(deps, target, catalog, log);
        const stats = Object.assign(writer.counts, result.notes?.length ? { notes: result.notes } : {});
        const store = writer.store;

        await store(result.entries);
        if (result.batches) {
          // A streamed source (OSV's export): batch by batch, progress logged and kept on the job.
          let reported = 0;
          for await (const batch of result.batches) {
            await store(batch);
            if (stats.fetched - reported >= PROGRESS_EVERY) {
              reported = stats.fetched;
              log.info({ ...stats }, 'source sync progress');
              await recordSyncProgress(db, syncJobId, stats);
            }
          }
        }
        await writer.settle();
        if (result.scores) Object.assign(stats, { scores: await db.transaction().execute((tx) => writeEpssScores(tx, job.organizationId, result.scores!)) });
        // Once every chunk has committed: a crash before this point leaves the state as it was,
        // and the retry finds the stored items unchanged.
        await db.transaction().execute((tx) => recordSyncSuccess(tx, job, result, state, stats));
        log.info({ ...stats, status: result.status }, 'source synced');
      } catch (err) {
        await writer?.settleAll(); // the outcome is recorded after the last write, as on success
        // Stored, shown to every intel.read caller and logged: no credential a URL carried.
        const message = redactSecrets(userMessage(err));
        const retry = isTransient(err) && ctx.attempt < ctx.maxAttempts;
        const now = new Date();
        await db.transaction().execute((tx) => recordSyncFailure(tx, job, message, retry, now));
        logSyncFailure(log, err, message, retry, ctx);
        if (retry) throw err;
      } finally {
        await dispose?.().catch((err) => log.warn({ err }, 'could not delete the sync\'s download'));
      }
    },
  });
}
