import { sql } from 'kysely';
import type { Database, Queryable } from '../../../platform/db/database.js';
import { defineJob, type JobDefinition } from '../../../platform/jobs/catalog.js';
import { itemsToEnrich, loadAttackCatalog, refreshAttackCatalog, writeResults, type EnrichedItem, type StructuredIndicator } from '../../intel/index.js';
import { processItem } from './process.fns.js';
import { PROCESS_BATCH, processItemsJob } from './process.job-def.js';

/**
 * Queue enrichment for stored items, in the caller's transaction (the sync's, for entries it
 * stored without enrichment because processing them threw): one job per
 * PROCESS_BATCH ids, all added in ONE statement (graphile_worker.add_job once per payload, in
 * order; the same jobs `enqueue` adds one round trip at a time).
 */
export async function enqueueProcessing(tx: Queryable, itemIds: string[]): Promise<void> {
  const payloads: string[] = [];
  for (let i = 0; i < itemIds.length; i += PROCESS_BATCH) {
    payloads.push(JSON.stringify(processItemsJob.payload.parse({ itemIds: itemIds.slice(i, i + PROCESS_BATCH) })));
  }
  if (payloads.length === 0) return;
  await sql`
    SELECT graphile_worker.add_job(
      identifier => ${processItemsJob.name},
      payload => p.payload,
      max_attempts => ${processItemsJob.maxAttempts ?? 5},
      job_key => NULL,
      run_at => NULL,
      priority => NULL
    ) FROM unnest(${payloads}::json[]) WITH ORDINALITY AS p(payload, n) ORDER BY p.n`.execute(tx);
}

/**
 * Enriches stored items. A sync enriches what it stores itself (ingest.store.ts); this job is
 * for the items it could not (processing threw: the job retries them and reports why) and for
 * re-enriching stored items. Pure processing (process.fns.ts) of the whole batch first, then ONE
 * transaction for the batch with set-based statements (results.store.ts): one UPDATE for the
 * enrichment columns, one for the duplicate links of every story the batch touches, one
 * multi-row write of all its indicators (keeping the hunt status of indicators it already had)
 * and one DELETE of the indicators its items no longer carry. Idempotent: re-running gives the
 * same rows.
 *
 * Why: one transaction per item cost 7 round trips per item (BEGIN, 2 UPDATEs, dedupe, INSERT,
 * DELETE, COMMIT; 1–6 ms each on a loaded 2-core machine): enrichment ran at 160–198 (RSS) /
 * 340–351 (TAXII) items/s with Node idle half the time. Per batch of 100 it is 6 round trips:
 * 974–1,029 / 2,401–2,416 items/s (`npm run bench -- ingest`, 2 runs each, same machine and
 * hour, load 2.3–4.8). What is left is CPU (processItem ≈ half of Node's time) and PostgreSQL.
 *
 * A failing item does not hold back the rest: an item whose processing throws is left out, a
 * batch whose write fails is written again one item per transaction, and the job then fails
 * (to be retried) naming how many items could not be enriched.
 */
export function createProcessItemsJob(deps: { db: Database }): JobDefinition<{ itemIds: string[] }> {
  const { db } = deps;
  return defineJob({
    ...processItemsJob,
    async run({ itemIds }, ctx) {
      const rows = await itemsToEnrich(db, itemIds);
      // ATT&CK objects refresh the catalog first, so the rest of the batch can use the names.
      const attackObjects = rows.filter((r) => r.isAttack).map((r) => r.raw);
      if (attackObjects.length) await refreshAttackCatalog(db, attackObjects);
      const catalog = await loadAttackCatalog(db);

      const done: EnrichedItem[] = [];
      const errors: unknown[] = [];
      let failed = 0;
      for (const row of rows) {
        if (ctx.signal.aborted) throw new Error('Worker shutting down; the batch will be retried');
        try {
          const result = processItem(
            {
              title: row.title,
              contentText: row.contentText,
              url: row.url,
              tags: row.tags,
              structuredIndicators: row.structuredIndicators as StructuredIndicator[],
              publishedAt: row.publishedAt,
              now: row.createdAt,
              configurations: row.configurations ?? undefined,
              vulnerability: row.vulnerability,
            },
            catalog,
          );
          done.push({ row, result });
        } catch (err) {
          ctx.logger.warn({ err, itemId: row.id }, 'item could not be processed');
          errors.push(err);
          failed++;
        }
      }

      if (done.length) {
        try {
          await db.transaction().execute((tx) => writeResults(tx, done));
        } catch (batchErr) {
          if (ctx.signal.aborted || done.length === 1) {
            errors.push(batchErr);
            failed += done.length;
          } else {
            // One item per transaction, so one bad item does not keep the others from being stored.
            for (const one of done) {
              try {
                await db.transaction().execute((tx) => writeResults(tx, [one]));
              } catch (err) {
                ctx.logger.warn({ err, itemId: one.row.id }, 'item could not be stored');
                errors.push(err);
                failed++;
              }
            }
          }
        }
      }
      if (errors.length) {
        const first = errors[0] instanceof Error ? errors[0] : new Error(String(errors[0]));
        throw new Error(`${failed} of ${rows.length} items could not be enriched: ${first.message}`, { cause: first });
      }
      ctx.logger.debug({ items: rows.length }, 'items processed');
    },
  });
}
