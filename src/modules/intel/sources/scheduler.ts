import { sql } from 'kysely';
import type { Database } from '../../../platform/db/database.js';
import { BUILTIN_SOURCES } from './builtin-sources.js';
import { requestSync } from './sources.service.js';
import { nextCronRun } from '../../../platform/cron.js';

/**
 * One scheduler pass over sources: each due (organization, source) pair is taken with FOR UPDATE
 * SKIP LOCKED, so several workers share the work without double-scheduling, and its sync is
 * enqueued in the same transaction that moves `next_sync_at` forward (a crash does both or
 * neither). Returns how many syncs were enqueued.
 */
export async function scheduleDueSyncs(db: Database): Promise<number> {
  await ensureBuiltinStates(db);
  let total = 0;
  for (;;) {
    const n = await db.transaction().execute(async (tx) => {
      const due = await sql<{ organizationId: string; sourceId: string; scheduleCron: string }>`
        SELECT st.organization_id AS "organizationId", st.source_id AS "sourceId", s.schedule_cron AS "scheduleCron"
        FROM intel_source_states st JOIN intel_sources s ON s.id = st.source_id
        WHERE st.subscription_enabled AND s.source_enabled
          AND (st.next_sync_at IS NULL OR st.next_sync_at <= now())
        ORDER BY st.next_sync_at NULLS FIRST
        LIMIT 50
        FOR UPDATE OF st SKIP LOCKED`.execute(tx);
      for (const row of due.rows) {
        await requestSync(tx, row.organizationId, row.sourceId, 'schedule');
        await tx
          .updateTable('intelSourceStates')
          .set({ nextSyncAt: nextCronRun(row.scheduleCron) })
          .where('organizationId', '=', row.organizationId)
          .where('sourceId', '=', row.sourceId)
          .execute();
      }
      return due.rows.length;
    });
    total += n;
    if (n < 50) return total;
  }
}

/** Every organization gets a state row for every built-in source, subscribed per its default. */
async function ensureBuiltinStates(db: Database): Promise<void> {
  const keys = BUILTIN_SOURCES.map((b) => b.key);
  const subscribed = BUILTIN_SOURCES.filter((b) => b.defaultSubscribed).map((b) => b.key);
  await sql`
    INSERT INTO intel_source_states (organization_id, source_id, subscription_enabled)
    SELECT o.id, s.id, s.builtin_key = ANY(${subscribed}::text[])
    FROM organizations o CROSS JOIN intel_sources s
    WHERE s.builtin_key = ANY(${keys}::text[])
    ON CONFLICT DO NOTHING`.execute(db);
}
