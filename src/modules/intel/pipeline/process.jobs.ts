import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { Database, Queryable } from '../../../platform/db/database.js';
import { defineJob, type JobDefinition } from '../../../platform/jobs/catalog.js';
import type { StructuredIndicator } from '../connectors/types.js';
import { loadAttackCatalog, refreshAttackCatalog } from './catalog.repo.js';
import { processItem, type ProcessResult } from './process.fns.js';
import { PROCESS_BATCH, processItemsJob } from './process.job-def.js';

const MITRE_SOURCE_KEY = 'mitre-attack-enterprise';
/** Indicator rows per INSERT: 13 parameters each, far below PostgreSQL's 65,535. */
const INDICATOR_ROWS_PER_INSERT = 2_000;

/**
 * Queue enrichment for changed items, in the caller's transaction (the sync's): one job per
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

export interface ItemRow {
  id: string;
  organizationId: string;
  title: string;
  sourceLabel: string;
  /** Null on an item's first enrichment: it has no indicators yet, so none can be stale. */
  processedAt: Date | null;
}

/**
 * Enriches items: pure processing (process.fns.ts) of the whole batch first, then ONE
 * transaction for the batch with set-based statements: one UPDATE … FROM (VALUES …) for the
 * enrichment columns, one for the duplicate links of every story the batch touches, one
 * multi-row upsert of all its indicators (keeping the hunt status of indicators it already had)
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
      const rows = await db
        .selectFrom('intelItems as i')
        .innerJoin('intelSources as s', 's.id', 'i.sourceId')
        .select(['i.id', 'i.organizationId', 'i.title', 'i.processedAt', 'i.contentText', 'i.url', 'i.tags', 'i.structuredIndicators', 'i.publishedAt', 'i.createdAt', 's.displayName as sourceLabel'])
        // Only ATT&CK items need their raw STIX object (for the catalog): the others skip the transfer and JSON.parse.
        .select(sql<unknown>`CASE WHEN s.builtin_key = ${MITRE_SOURCE_KEY} THEN i.raw END`.as('raw'))
        .select(sql<boolean>`s.builtin_key IS NOT DISTINCT FROM ${MITRE_SOURCE_KEY}`.as('isAttack'))
        .where('i.id', 'in', itemIds)
        .orderBy('i.id')
        .execute();
      // ATT&CK objects refresh the catalog first, so the rest of the batch can use the names.
      const attackObjects = rows.filter((r) => r.isAttack).map((r) => r.raw);
      if (attackObjects.length) await refreshAttackCatalog(db, attackObjects);
      const catalog = await loadAttackCatalog(db);

      const done: Array<{ row: ItemRow; result: ProcessResult }> = [];
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

/**
 * Writes a batch's results: 4–5 statements whatever the batch size (plus one per 2,000
 * indicators). Exported for tests (the story lock is exercised with a writer held open).
 */
export async function writeResults(tx: Queryable, batch: Array<{ row: ItemRow; result: ProcessResult }>): Promise<void> {
  const now = new Date();

  // 0. One writer per story at a time. Step 2 links a story's items from what its statement
  //    sees; two batches writing items of the same story concurrently would each miss the
  //    other's uncommitted item and could both leave theirs "first". A transaction-scoped
  //    advisory lock per (organization, canonical key), taken in key order (no deadlock between
  //    writers), makes the later writer wait for the earlier one's commit and then see its rows.
  const storyKeys = [...new Set(batch.filter((b) => b.result.canonicalKey).map((b) => `${b.row.organizationId}\u001f${b.result.canonicalKey}`))].sort();
  if (storyKeys.length) {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(s.k, 0)) FROM (SELECT k FROM unnest(${storyKeys}::text[]) AS k ORDER BY k) s ORDER BY s.k`.execute(tx);
  }

  // 1. Enrichment columns. An item without a canonical key is nobody's duplicate; one with a
  //    key keeps its link until step 2 recomputes its story (saves rewriting the row twice).
  const values = batch.map(({ row, result: r }) => sql`(
    ${row.id}::uuid, ${r.severity}::text, ${r.relevance}::integer, ${r.platforms}::text[], ${r.summary}::text, ${r.tldr}::text, ${r.abstract}::text,
    ${JSON.stringify(r.attackPath)}::jsonb, ${JSON.stringify({ ...r.classification, passages: undefined })}::jsonb, ${JSON.stringify(r.affectedProducts)}::jsonb,
    ${JSON.stringify(r.iocs)}::jsonb, ${JSON.stringify({ supportingPassages: r.passages })}::jsonb, ${JSON.stringify(r.dropped)}::jsonb,
    ${r.eventConfidence}::real, ${r.canonicalKey}::text, ${r.retracted}::boolean)`);
  await sql`
    UPDATE intel_items i SET
      processed_at = ${now}::timestamptz, severity = v.severity, relevance = v.relevance, platforms = v.platforms, summary = v.summary,
      tldr = v.tldr, abstract = v.abstract, attack_path = v.attack_path, classification = v.classification,
      affected_products = v.affected_products, iocs = v.iocs, provenance = v.provenance, dropped_candidates = v.dropped_candidates,
      event_confidence = v.event_confidence, canonical_key = v.canonical_key, search = intel_item_search(i.title, i.content_text),
      duplicate_of = CASE WHEN v.canonical_key IS NULL THEN NULL ELSE i.duplicate_of END,
      status = CASE WHEN v.retracted THEN 'retracted' ELSE i.status END
    FROM (VALUES ${sql.join(values)}) AS v(id, severity, relevance, platforms, summary, tldr, abstract, attack_path, classification,
      affected_products, iocs, provenance, dropped_candidates, event_confidence, canonical_key, retracted)
    WHERE i.id = v.id`.execute(tx);

  // 2. Duplicate links. The first item of a story (oldest) stands; every later one points at it.
  //    Recomputed for every story of the batch, after all its items are written, so the result
  //    does not depend on processing order (two items of one batch sharing a key included).
  //    Rows already pointing the right way are not rewritten.
  const stories = [...new Map(batch.filter((b) => b.result.canonicalKey).map((b) => [`${b.row.organizationId}\u001f${b.result.canonicalKey}`, b])).values()];
  if (stories.length) {
    await sql`
      WITH k AS (
        SELECT * FROM unnest(${stories.map((s) => s.row.organizationId)}::uuid[], ${stories.map((s) => s.result.canonicalKey)}::text[]) AS k(organization_id, canonical_key)
      ), g AS (
        SELECT i.id, first_value(i.id) OVER (PARTITION BY i.organization_id, i.canonical_key ORDER BY i.created_at, i.id) AS first
        FROM intel_items i JOIN k ON i.organization_id = k.organization_id AND i.canonical_key = k.canonical_key
      )
      UPDATE intel_items i SET duplicate_of = NULLIF(g.first, i.id)
      FROM g WHERE i.id = g.id AND i.duplicate_of IS DISTINCT FROM NULLIF(g.first, i.id)`.execute(tx);
  }

  // 3. Indicators, upserted: an indicator the item already had keeps its id, first sighting and
  //    hunt status. Keyed as the unique index is (item, type, normalized value cut at 4,096).
  const indicators: Array<{ itemId: string; type: string; value: string; normalizedValue: string; confidence: number; ttlDays: number; intelTitle: string; sourceLabel: string; organizationId: string }> = [];
  for (const { row, result } of batch) {
    const seen = new Set<string>();
    for (const ind of result.indicators) {
      const normalizedValue = ind.normalizedValue.slice(0, 4096);
      const key = `${ind.type}\u001f${normalizedValue}`;
      if (seen.has(key)) continue; // one statement cannot upsert the same row twice
      seen.add(key);
      indicators.push({ itemId: row.id, organizationId: row.organizationId, type: ind.type, value: ind.value.slice(0, 4096), normalizedValue, confidence: ind.confidence, ttlDays: ind.ttlDays, intelTitle: row.title.slice(0, 500), sourceLabel: row.sourceLabel });
    }
  }
  for (let i = 0; i < indicators.length; i += INDICATOR_ROWS_PER_INSERT) {
    await tx
      .insertInto('intelIndicators')
      .values(indicators.slice(i, i + INDICATOR_ROWS_PER_INSERT).map((ind) => ({ id: uuidv7(), ...ind, firstSeen: now, lastSeen: now, createdAt: now })))
      .onConflict((oc) =>
        oc.columns(['itemId', 'type', 'normalizedValue']).doUpdateSet((eb) => ({
          value: eb.ref('excluded.value'),
          confidence: eb.ref('excluded.confidence'),
          ttlDays: eb.ref('excluded.ttlDays'),
          intelTitle: eb.ref('excluded.intelTitle'),
          lastSeen: eb.ref('excluded.lastSeen'),
        })),
      )
      .execute();
  }

  // 4. Indicators the new content no longer carries go (with their checks). Only items enriched
  //    before can have any: new items (most of a sync) skip the statement.
  const reprocessed = batch.filter((b) => b.row.processedAt !== null);
  if (reprocessed.length === 0) return;
  await sql`
    DELETE FROM intel_indicators d
    WHERE d.item_id = ANY(${reprocessed.map((b) => b.row.id)}::uuid[])
      AND NOT EXISTS (
        SELECT 1 FROM unnest(${indicators.map((i) => i.itemId)}::uuid[], ${indicators.map((i) => i.type)}::text[], ${indicators.map((i) => i.normalizedValue)}::text[]) AS k(item_id, type, normalized_value)
        WHERE k.item_id = d.item_id AND k.type = d.type AND k.normalized_value = d.normalized_value
      )`.execute(tx);
}
