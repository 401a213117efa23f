import type { Logger } from 'pino';
import { redactSecrets } from '../../platform/outbound/url-secrets.js';
import type { Database, Queryable } from '../../platform/db/database.js';
import { defineJob, type JobDefinition } from '../../platform/jobs/catalog.js';
import type { SecretBox } from '../../platform/secrets.js';
import { ConnectorError, ConnectorParseError, type Connector, type HttpClient, type SourceConfig } from './connectors/connector.js';
import {
  failSyncOfDeletedSource,
  findSourceState,
  findSyncedSource,
  findSyncJob,
  knownItems,
  loadAttackCatalog,
  markSyncRunning,
  MITRE_SOURCE_KEY,
  recordSyncFailure,
  recordSyncProgress,
  recordSyncSuccess,
  refreshAttackCatalog,
  settledRecordIds,
  storeVulnerabilities,
  syncSourceJob,
  unchangedVulnerabilities,
  uniqueByExternalId,
  writeEpssScores,
  writePrepared,
  type IntelEntry,
} from '../intel/index.js';
import { prepareEntries } from './pipeline/prepare.fns.js';

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
 * Entries per transaction. Each chunk commits with its items enriched (intel's items/ingest.store.ts),
 * so a large sync shows its first items within a second, no transaction grows with the feed,
 * and the next chunk is enriched (CPU, in Node) while this one is written (in PostgreSQL).
 */
const STORE_CHUNK = 250;
/** Chunks written at once (each its own transaction and connection), beside the enrichment of the next. */
const WRITES_IN_FLIGHT = 2;
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
export function createSyncSourceJob(deps: { db: Database; secrets: SecretBox; http: HttpClient; logger: Logger; enqueueEnrichment?: (tx: Queryable, itemIds: string[]) => Promise<void>; osvMaxInflatedBytes?: number }): JobDefinition<{ syncJobId: string }> {
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
      const target = { organizationId: job.organizationId, sourceId: source.id, sourceLabel: source.displayName };
      const log = ctx.logger.child({ sourceId: source.id, organizationId: job.organizationId });
      const writes = new Set<Promise<void>>();
      let dispose: (() => Promise<void>) | undefined;
      try {
        // Every request of the connector carries the job's signal: a worker shutting down cuts a slow
        // download or a retry backoff short instead of waiting for it (the job is retried later).
        const http: HttpClient = { request: (url, init) => deps.http.request(url, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, ctx.signal]) : ctx.signal }) };
        // Records the connector skips unbuilt because the store holds them unchanged: counted into the stats batch by batch.
        let skippedUnbuilt = 0;
        const settledRecords = async (records: ReadonlyArray<{ id: string; modified: string }>) => {
          const settled = await settledRecordIds(db, target, records);
          skippedUnbuilt += settled.size;
          return settled;
        };
        const result = await (await connectorFor(config)).fetch(config, { etag: state?.etag ?? null, lastModified: state?.lastModified ?? null, cursor: state?.cursor ?? {} }, http, { ...(deps.osvMaxInflatedBytes ? { maxInflatedBytes: deps.osvMaxInflatedBytes } : {}), settledRecords });
        dispose = result.dispose;
        for (const note of result.notes ?? []) log.info({ note }, `source sync: ${note}`);
        const stats = { fetched: 0, created: 0, updated: 0, unchanged: 0, ...(result.notes?.length ? { notes: result.notes } : {}) };
        // ATT&CK objects refresh the catalog first, so every item of the sync can use the names.
        if (source.builtinKey === MITRE_SOURCE_KEY) await refreshAttackCatalog(db, result.entries.map((e) => e.raw));
        const catalog = await loadAttackCatalog(db);
        const onError = (entry: IntelEntry, err: unknown) => log.warn({ err, externalId: entry.externalId }, 'entry could not be enriched; stored for the enrichment job');

        const store = async (batch: IntelEntry[]) => {
          const entries = uniqueByExternalId(batch);
          stats.fetched += batch.length + skippedUnbuilt;
          stats.unchanged += skippedUnbuilt;
          skippedUnbuilt = 0;
          const known = await knownItems(db, target, entries);
          // Structured records the vulnerability store holds at the same `modified` are unchanged:
          // skipped before hashing and enrichment (a re-sync of an unchanged OSV export).
          const settled = await unchangedVulnerabilities(db, target, entries, known);
          const fresh = settled.size ? entries.filter((e) => !settled.has(e.externalId)) : entries;
          stats.unchanged += entries.length - fresh.length;
          // Chunk k + 1 is enriched while chunk k is written; at most WRITES_IN_FLIGHT writes at once.
          for (let from = 0; from < fresh.length; from += STORE_CHUNK) {
            const slice = fresh.slice(from, from + STORE_CHUNK);
            const chunk = await prepareEntries(slice, known, catalog, new Date(), onError);
            if (writes.size >= WRITES_IN_FLIGHT) await Promise.race(writes); // a failed write ends the sync here
            const write = db.transaction().execute(async (tx) => {
              const stored = await writePrepared(tx, target, chunk);
              await storeVulnerabilities(tx, target, slice, new Date());
              stats.created += stored.created;
              stats.updated += stored.updated;
              stats.unchanged += stored.unchanged;
              if (deps.enqueueEnrichment && stored.unenrichedIds.length) await deps.enqueueEnrichment(tx, stored.unenrichedIds);
            });
            writes.add(write);
            write.then(() => writes.delete(write), () => {}); // a rejection is seen by the race above or the all below
          }
        };
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
        await store([]); // the records skipped after the last batch
        await Promise.all(writes);
        if (result.scores) Object.assign(stats, { scores: await db.transaction().execute((tx) => writeEpssScores(tx, job.organizationId, result.scores!)) });
        // Once every chunk has committed: a crash before this point leaves the state as it was,
        // and the retry finds the stored items unchanged.
        await db.transaction().execute((tx) => recordSyncSuccess(tx, job, result, state, stats));
        log.info({ ...stats, status: result.status }, 'source synced');
      } catch (err) {
        await Promise.allSettled(writes); // the outcome is recorded after the last write, as on success
        // Stored, shown to every intel.read caller and logged: no credential a URL carried.
        const message = redactSecrets(userMessage(err));
        const retry = isTransient(err) && ctx.attempt < ctx.maxAttempts;
        const now = new Date();
        await db.transaction().execute((tx) => recordSyncFailure(tx, job, message, retry, now));
        // The message, not the error object: its text and stack can carry the URL's credentials.
        log.warn({ errorName: err instanceof Error ? err.name : typeof err, retry, attempt: ctx.attempt }, `source sync failed: ${message}`);
        if (retry) throw err;
      } finally {
        await dispose?.().catch((err) => log.warn({ err }, 'could not delete the sync\'s download'));
      }
    },
  });
}
