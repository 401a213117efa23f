import { sql } from 'kysely';
import type { Database } from '../../../platform/db/database.js';
import { BUILTIN_SOURCES } from './builtin-sources.js';
import { requestSync } from './sources.service.js';
import { nextCronRun } from '../../../platform/cron.js';

/**
 * One scheduler pass over sources: each due (organization, source) pair is taken with FOR UPDATE
 * SKIP LOCKED, so several workers share the work without double-scheduling, and its sync is
 * enqueued in the same transaction that moves `next_sync_at` forward (a crash does both or
 * neither); one synced recently only has `next_sync_at` moved (recentlySyncedUntil). Returns how
 * many syncs were enqueued.
 */
export async function scheduleDueSyncs(db: Database): Promise<number> {
  await ensureBuiltinStates(db);
  let total = 0;
  for (;;) {
    const n = await db.transaction().execute(async (tx) => {
      const due = await sql<{ organizationId: string; sourceId: string; scheduleCron: string; nextSyncAt: Date | null; lastFetchedAt: Date | null }>`
        SELECT st.organization_id AS "organizationId", st.source_id AS "sourceId", s.schedule_cron AS "scheduleCron",
          st.next_sync_at AS "nextSyncAt", st.last_fetched_at AS "lastFetchedAt"
        FROM intel_source_states st JOIN intel_sources s ON s.id = st.source_id
        WHERE st.subscription_enabled AND s.source_enabled
          AND (st.next_sync_at IS NULL OR st.next_sync_at <= now())
        ORDER BY st.next_sync_at NULLS FIRST
        LIMIT 50
        FOR UPDATE OF st SKIP LOCKED`.execute(tx);
      let enqueued = 0;
      for (const row of due.rows) {
        const missed = row.nextSyncAt !== null && row.nextSyncAt.getTime() < Date.now() - MISSED_AFTER_MS;
        const recentUntil = missed ? recentlySyncedUntil(row.scheduleCron, row.lastFetchedAt) : null;
        if (!recentUntil) {
          await requestSync(tx, row.organizationId, row.sourceId, 'schedule');
          enqueued++;
        }
        await tx
          .updateTable('intelSourceStates')
          .set({ nextSyncAt: nextCronRun(row.scheduleCron, recentUntil ?? new Date()) })
          .where('organizationId', '=', row.organizationId)
          .where('sourceId', '=', row.sourceId)
          .execute();
      }
      return { taken: due.rows.length, enqueued };
    });
    total += n.enqueued;
    if (n.taken < 50) return total;
  }
}

/**
 * A cron run overdue by more than this fell due while no scheduler ran (the service stopped or
 * starting; passes are 30 s apart): only such a missed run is checked against the last sync. A
 * run picked up on time always syncs, even soon after a sync that ended late (a long sync, a
 * manual one), so a feed whose sync takes more than half its interval is not skipped every
 * other run.
 */
const MISSED_AFTER_MS = 5 * 60_000;

/**
 * A source whose missed cron run (MISSED_AFTER_MS) came due but that synced less than half its interval ago (the gap
 * between two runs of its cron) is not synced again: the end of that half is returned, and the
 * source syncs at its first run after it. That is a run soon after the first sync of a new
 * installation (synced at 10:25, `27 * * * *` falls due at 10:27 while the service is stopped),
 * or any run that fell due while the service was stopped for a moment: every restart of a service that had run a few minutes synced
 * the hourly feeds again (offline: a burst of DNS errors at every start). A sync a whole interval
 * ago, the steady state, is not recent, even when it ended late. null: sync now. A source never
 * scheduled or rescheduled (`next_sync_at` NULL: a new subscription, an edited cron) is not asked.
 */
export function recentlySyncedUntil(cron: string, lastFetchedAt: Date | null, now = new Date()): Date | null {
  if (!lastFetchedAt) return null;
  const first = nextCronRun(cron, lastFetchedAt);
  const interval = nextCronRun(cron, first).getTime() - first.getTime();
  const until = new Date(lastFetchedAt.getTime() + interval / 2);
  return until > now ? until : null;
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
