import type { Logger } from 'pino';
import type { Database, Queryable } from '../../platform/db/database.js';
import { knownItems, loadAttackCatalog, settledRecordIds, storeVulnerabilities, unchangedVulnerabilities, uniqueByExternalId, writePrepared, type IntelEntry } from '../intel/index.js';
import { prepareEntries } from './pipeline/prepare.fns.js';

/**
 * Entries per transaction. Each chunk commits with its items enriched (intel's items/ingest.store.ts),
 * so a large sync shows its first items within a second, no transaction grows with the feed,
 * and the next chunk is enriched (CPU, in Node) while this one is written (in PostgreSQL).
 */
const STORE_CHUNK = 250;
/** Chunks written at once (each its own transaction and connection), beside the enrichment of the next. */
const WRITES_IN_FLIGHT = 2;

export interface SyncCounts {
  fetched: number;
  created: number;
  updated: number;
  unchanged: number;
}

/**
 * How a sync stores what it fetched, shared by the whole-source sync (sync.jobs.ts) and a
 * sharded OSV sync's shards (osv-shard.jobs.ts): batch by batch, enriched and written in chunks
 * of STORE_CHUNK entries, each chunk its own transaction, chunk k + 1 enriched while chunk k is
 * written. Items upsert by (source, externalId): a batch stored again (a retry) is found unchanged.
 * Structured records (OSV, CSAF, NVD, KEV) also go to intel's vulnerability store, in the chunk's transaction;
 * records the store holds at the same `modified` are skipped before enrichment, or before they
 * are even built when the connector asks `settledRecords` first (a re-sync of an unchanged export).
 * `settle()` waits for every write (a failed one rejects it); `settleAll()` waits without throwing.
 */
export function createEntryWriter(deps: { db: Database; enqueueEnrichment?: (tx: Queryable, itemIds: string[]) => Promise<void> }, target: { organizationId: string; sourceId: string; sourceLabel: string }, catalog: Awaited<ReturnType<typeof loadAttackCatalog>>, log: Logger) {
  const { db } = deps;
  const writes = new Set<Promise<void>>();
  const counts: SyncCounts = { fetched: 0, created: 0, updated: 0, unchanged: 0 };
  const onError = (entry: IntelEntry, err: unknown) => log.warn({ err, externalId: entry.externalId }, 'entry could not be enriched; stored for the enrichment job');
  return {
    counts,
    async store(batch: IntelEntry[]): Promise<void> {
      const entries = uniqueByExternalId(batch);
      counts.fetched += batch.length;
      const known = await knownItems(db, target, entries);
      // Structured records the vulnerability store holds at the same `modified` are unchanged:
      // skipped before hashing and enrichment (a re-sync of an unchanged OSV export, NVD window, CSAF document or KEV catalog).
      const settled = await unchangedVulnerabilities(db, target, entries, known);
      const fresh = settled.size ? entries.filter((e) => !settled.has(e.externalId)) : entries;
      counts.unchanged += entries.length - fresh.length;
      // Chunk k + 1 is enriched while chunk k is written; at most WRITES_IN_FLIGHT writes at once.
      for (let from = 0; from < fresh.length; from += STORE_CHUNK) {
        const slice = fresh.slice(from, from + STORE_CHUNK);
        const chunk = await prepareEntries(slice, known, catalog, new Date(), onError, { recordsInStore: true });
        if (writes.size >= WRITES_IN_FLIGHT) await Promise.race(writes); // a failed write ends the sync here
        const write = db.transaction().execute(async (tx) => {
          const stored = await writePrepared(tx, target, chunk);
          await storeVulnerabilities(tx, target, slice, known, new Date());
          counts.created += stored.created;
          counts.updated += stored.updated;
          counts.unchanged += stored.unchanged;
          if (deps.enqueueEnrichment && stored.unenrichedIds.length) await deps.enqueueEnrichment(tx, stored.unenrichedIds);
        });
        writes.add(write);
        write.then(() => writes.delete(write), () => {}); // a rejection is seen by the race above or settle() below
      }
    },
    /** The connector's question before it builds a batch's entries (ConnectorLimits.settledRecords): those skipped count as fetched and unchanged. */
    async settledRecords(records: ReadonlyArray<{ id: string; modified: string }>): Promise<ReadonlySet<string>> {
      const settled = await settledRecordIds(db, target, records);
      counts.fetched += settled.size;
      counts.unchanged += settled.size;
      return settled;
    },
    settle: async () => void (await Promise.all(writes)),
    settleAll: async () => void (await Promise.allSettled(writes)),
  };
}
