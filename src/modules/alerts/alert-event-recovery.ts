import type { Database } from '../../platform/db/database.js';
import type { SchedulerPass } from '../../platform/module.js';
import { missingAlertCreatedEvents, queueDeliveries } from '../delivery/index.js';
import { alertCreatedEventId } from './alerts.create.js';
import { findAlert } from './alerts.repo.js';

/**
 * Issue 46 item 4, the group commit's gap: webhook intake's one-statement path writes an alert
 * (with its run) in one statement and its `alert.created` event afterwards, in a transaction of
 * its own, and only when its cache says a destination subscribes. A crash in between, or a
 * destination subscribed by another process within the cache's latency, loses that event. This
 * pass, run by every scheduler tick, queues each `alert.created` delivery that should exist and
 * does not (delivery's `missingAlertCreatedEvents`): the same event (its id is the alert's),
 * with the alert as it is now. Safe from several processes and against the late original: one
 * delivery per (destination, event) (migration 0142), the second insert does nothing.
 */
export async function recoverAlertCreatedEvents(db: Database, opts: { sinceMs?: number; settleMs?: number; limit?: number } = {}): Promise<number> {
  const missing = await missingAlertCreatedEvents(db, { sinceMs: opts.sinceMs ?? 15 * 60_000, settleMs: opts.settleMs ?? 30_000, limit: opts.limit ?? 500 });
  const byAlert = new Map<string, { organizationId: string; destinationIds: string[] }>();
  for (const m of missing) {
    const entry = byAlert.get(m.alertId) ?? { organizationId: m.organizationId, destinationIds: [] };
    entry.destinationIds.push(m.destinationId);
    byAlert.set(m.alertId, entry);
  }
  let queued = 0;
  for (const [alertId, { organizationId, destinationIds }] of byAlert) {
    const alert = await findAlert(db, organizationId, alertId);
    if (!alert) continue;
    const event = { id: alertCreatedEventId(alert), type: 'alert.created', occurredAt: alert.createdAt, organizationId, data: { alert } };
    queued += (await db.transaction().execute((tx) => queueDeliveries(tx, event, destinationIds))).length;
  }
  return queued;
}

export const alertEventRecoveryPass: SchedulerPass = {
  name: 'alert event recovery',
  run: async ({ db, logger }) => {
    const queued = await recoverAlertCreatedEvents(db);
    if (queued > 0) logger.warn({ queued }, 'queued alert.created deliveries a crash or a stale subscription cache had lost');
  },
};
