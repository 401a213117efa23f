import { Cron } from 'croner';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../../platform/db/database.js';
import { BUILTIN_SOURCES } from './builtin-sources.js';
import { requestSync } from './sources.service.js';
import { runTriggerSchedulerPass } from '../../triggers/cron.js';

/**
 * Runs every source on its `scheduleCron`. Each tick (every 30 s by default) takes the due
 * (organization, source) pairs with FOR UPDATE SKIP LOCKED, so several worker processes share
 * the work without double-scheduling, and enqueues each sync in the same transaction that
 * moves `next_sync_at` forward: a crash either does both or neither.
 */
export function startSourceScheduler(deps: { db: Database; logger: Logger; intervalMs?: number }): { stop(): Promise<void> } {
  const { db, logger } = deps;
  let running: Promise<void> | null = null;

  const timer = setInterval(() => {
    // Agent cron triggers (and trigger housekeeping) share the tick: one timer, one stop().
    running ??= Promise.all([
      scheduleDueSyncs(db).catch((err) => logger.warn({ err }, 'source scheduler tick failed')),
      runTriggerSchedulerPass(db).catch((err) => logger.warn({ err }, 'trigger scheduler tick failed')),
    ])
      .then(() => undefined)
      .finally(() => (running = null));
  }, deps.intervalMs ?? 30_000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/** One scheduler pass: enqueue every due sync and move its next run forward. Returns how many. */
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
          .set({ nextSyncAt: nextRun(row.scheduleCron) })
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

export function nextRun(cron: string, from = new Date()): Date {
  // Schedules are evaluated in UTC, whatever the server's time zone.
  const next = new Cron(cron, { paused: true, timezone: 'UTC' }).nextRun(from);
  // A valid 5-field cron always has a next run; fall back to an hour rather than never.
  return next ?? new Date(from.getTime() + 3_600_000);
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
