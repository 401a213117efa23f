import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { Database, Queryable } from '../../../platform/db/database.js';
import { defineJob, type JobDefinition } from '../../../platform/jobs/catalog.js';
import { enqueue } from '../../../platform/jobs/enqueue.js';
import type { StructuredIndicator } from '../connectors/types.js';
import { loadAttackCatalog, refreshAttackCatalog } from './catalog.repo.js';
import { processItem, type ProcessResult } from './process.fns.js';
import { PROCESS_BATCH, processItemsJob } from './process.job-def.js';

const MITRE_SOURCE_KEY = 'mitre-attack-enterprise';

/** Queue enrichment for changed items, in the caller's transaction (the sync's). */
export async function enqueueProcessing(tx: Queryable, itemIds: string[]): Promise<void> {
  for (let i = 0; i < itemIds.length; i += PROCESS_BATCH) {
    await enqueue(tx, processItemsJob, { itemIds: itemIds.slice(i, i + PROCESS_BATCH) });
  }
}

/**
 * Enriches items: pure processing (process.fns.ts), then one transaction per item writing the
 * enrichment, its flattened indicators (keeping the hunt status of indicators it already had)
 * and its duplicate link. Idempotent: re-running gives the same rows.
 */
export function createProcessItemsJob(deps: { db: Database }): JobDefinition<{ itemIds: string[] }> {
  const { db } = deps;
  return defineJob({
    ...processItemsJob,
    async run({ itemIds }, ctx) {
      const rows = await db
        .selectFrom('intelItems as i')
        .innerJoin('intelSources as s', 's.id', 'i.sourceId')
        .select(['i.id', 'i.organizationId', 'i.title', 'i.contentText', 'i.url', 'i.tags', 'i.structuredIndicators', 'i.publishedAt', 'i.createdAt', 'i.raw', 's.displayName as sourceLabel', 's.builtinKey'])
        .where('i.id', 'in', itemIds)
        .execute();
      // ATT&CK objects refresh the catalog first, so the rest of the batch can use the names.
      const attackObjects = rows.filter((r) => r.builtinKey === MITRE_SOURCE_KEY).map((r) => r.raw);
      if (attackObjects.length) await refreshAttackCatalog(db, attackObjects);
      const catalog = await loadAttackCatalog(db);
      for (const row of rows) {
        if (ctx.signal.aborted) throw new Error('Worker shutting down; the batch will be retried');
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
        await db.transaction().execute((tx) => writeResult(tx, row, result));
      }
      ctx.logger.debug({ items: rows.length }, 'items processed');
    },
  });
}

async function writeResult(tx: Queryable, row: { id: string; organizationId: string; title: string; sourceLabel: string }, r: ProcessResult): Promise<void> {
  await tx
    .updateTable('intelItems')
    .set({
      processedAt: new Date(),
      severity: r.severity,
      relevance: r.relevance,
      platforms: r.platforms,
      summary: r.summary,
      tldr: r.tldr,
      abstract: r.abstract,
      attackPath: JSON.stringify(r.attackPath),
      classification: JSON.stringify({ ...r.classification, passages: undefined }),
      affectedProducts: JSON.stringify(r.affectedProducts),
      iocs: JSON.stringify(r.iocs),
      provenance: JSON.stringify({ supportingPassages: r.passages }),
      droppedCandidates: JSON.stringify(r.dropped),
      eventConfidence: r.eventConfidence,
      canonicalKey: r.canonicalKey,
      ...(r.retracted ? { status: 'retracted' } : {}),
    })
    .where('id', '=', row.id)
    .execute();

  // The first item of a story (oldest) stands; every later one points at it. Recomputed for
  // the whole group so the result does not depend on processing order.
  await tx.updateTable('intelItems').set({ duplicateOf: null }).where('id', '=', row.id).execute();
  if (r.canonicalKey) {
    await sql`
      WITH g AS (
        SELECT id, first_value(id) OVER (ORDER BY created_at, id) AS first
        FROM intel_items WHERE organization_id = ${row.organizationId} AND canonical_key = ${r.canonicalKey}
      )
      UPDATE intel_items i SET duplicate_of = NULLIF(g.first, i.id) FROM g WHERE i.id = g.id`.execute(tx);
  }

  const now = new Date();
  if (r.indicators.length) {
    await tx
      .insertInto('intelIndicators')
      .values(
        r.indicators.map((ind) => ({
          id: uuidv7(),
          organizationId: row.organizationId,
          itemId: row.id,
          type: ind.type,
          value: ind.value.slice(0, 4096),
          normalizedValue: ind.normalizedValue.slice(0, 4096),
          confidence: ind.confidence,
          firstSeen: now,
          lastSeen: now,
          ttlDays: ind.ttlDays,
          intelTitle: row.title.slice(0, 500),
          sourceLabel: row.sourceLabel,
          createdAt: now,
        })),
      )
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
  // Indicators the new content no longer carries go (with their checks).
  // Unit separator (0x1f): a NUL cannot travel in a PostgreSQL text parameter.
  const keep = r.indicators.map((i) => `${i.type}\u001f${i.normalizedValue.slice(0, 4096)}`);
  await tx
    .deleteFrom('intelIndicators')
    .where('itemId', '=', row.id)
    .where(sql<boolean>`(type || chr(31) || normalized_value) <> ALL(${keep}::text[])`)
    .execute();
}
