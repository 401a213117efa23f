import type { Database } from '../../platform/db/database.js';
import { nextCronRun } from '../../platform/cron.js';
import { enqueueRun } from '../runs/index.js';
import { advanceCronTrigger, deleteDeliveriesReceivedBefore, deleteDraftsCreatedBefore, takeDueCronTrigger } from './triggers.repo.js';

/** Drafts from `…/fields` that nobody saved within a day are deleted. */
export const DRAFT_TTL_MS = 24 * 3600_000;
/** Delivery ids are remembered this long: longer than any sender's retry schedule (Svix: ~5 days). */
export const DELIVERY_RETENTION_MS = 14 * 24 * 3600_000;

/**
 * One scheduler pass over cron triggers: every active, enabled trigger whose `next_run_at` has
 * come gets exactly one run, in its own transaction that also moves `next_run_at` to the first
 * time after `now` (a schedule that missed several times while the service was down runs once,
 * not once per missed time). `FOR UPDATE SKIP LOCKED` lets several schedulers share the work
 * without running a trigger twice. Returns the number of runs queued.
 */
export async function scheduleDueCronTriggers(db: Database, now = new Date()): Promise<number> {
  let queued = 0;
  for (;;) {
    const done = await db.transaction().execute(async (tx) => {
      const due = await takeDueCronTrigger(tx, now);
      if (!due) return true;
      await enqueueRun(tx, {
        organizationId: due.organizationId,
        agentId: due.agentId,
        mode: 'cron',
        input: due.input ?? { trigger: 'cron', scheduledAt: due.nextRunAt.toISOString() },
        actorUserId: due.runAs,
        triggerId: due.id,
        triggerSource: 'cron',
      });
      await advanceCronTrigger(tx, due.id, now, nextCronRun(due.cronSchedule, now));
      return false;
    });
    if (done) break;
    queued++;
  }
  return queued;
}

/** Housekeeping of the same pass: unsaved drafts and old delivery ids. */
export async function cleanUpTriggers(db: Database, now = new Date()): Promise<{ drafts: number; deliveries: number }> {
  const drafts = await deleteDraftsCreatedBefore(db, new Date(now.getTime() - DRAFT_TTL_MS));
  const deliveries = await deleteDeliveriesReceivedBefore(db, new Date(now.getTime() - DELIVERY_RETENTION_MS));
  return { drafts, deliveries };
}

/** What the scheduler tick calls. */
export async function runTriggerSchedulerPass(db: Database, now = new Date()): Promise<number> {
  const queued = await scheduleDueCronTriggers(db, now);
  await cleanUpTriggers(db, now);
  return queued;
}
