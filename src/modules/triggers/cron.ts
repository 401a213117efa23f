import type { Database } from '../../platform/db/database.js';
import { latestCronRunAtOrBefore, nextCronRun } from '../../platform/cron.js';
import { uuidv7 } from 'uuidv7';
import { noEvents } from '../../platform/events.js';
import { alertFieldsFromPayload, type AlertDeps } from '../alerts/index.js';
import { fireTrigger } from './trigger-alert.js';
import { advanceCronTrigger, type DueCronTrigger, deleteDeliveriesReceivedBefore, deleteDraftsCreatedBefore, takeDueCronTrigger } from './triggers.repo.js';

/** Drafts from `…/fields` that nobody saved within a day are deleted. */
export const DRAFT_TTL_MS = 24 * 3600_000;
/** Delivery ids are remembered this long: longer than any sender's retry schedule (Svix: ~5 days). */
export const DELIVERY_RETENTION_MS = 14 * 24 * 3600_000;

/**
 * One scheduler pass over cron triggers: every active, enabled trigger whose `next_run_at` has
 * come gets exactly one run, in its own transaction that also moves `next_run_at` to the first
 * time after `now` (a schedule that missed several times while the service was down runs once,
 * not once per missed time, for the latest missed time — as Kubernetes CronJob and systemd's
 * Persistent= timers do). The run's `scheduledAt` (its trigger context, and its default input)
 * is that time, in the trigger's time zone's schedule. `FOR UPDATE SKIP LOCKED` lets several schedulers share the work
 * without running a trigger twice. A trigger with `createAlert` creates one alert per firing
 * (dedupe key per trigger and minute, unless its `alertMapping` names one), triaged by the run
 * or, with `routeAlerts`, routed. Returns the number of triggers fired.
 */
export async function scheduleDueCronTriggers(db: Database, now = new Date(), deps: AlertDeps = { events: noEvents }): Promise<number> {
  let queued = 0;
  for (;;) {
    const done = await db.transaction().execute(async (tx) => {
      const due = await takeDueCronTrigger(tx, now);
      if (!due) return true;
      const scheduledAt = latestCronRunAtOrBefore(due.cronSchedule, due.nextRunAt, now, due.cronTimezone).toISOString();
      const input = due.input ?? { trigger: 'cron', scheduledAt };
      await fireTrigger(tx, deps, { ...due, source: 'cron' }, {
        runId: uuidv7(),
        mode: 'cron',
        payload: input,
        input,
        // The schedule's context, whatever the input: a run with its own `input` still knows which time it is for.
        triggerContext: { source: 'cron', deliveryId: null, eventType: null, headers: {}, receivedAt: now.toISOString(), scheduledAt, ...(due.cronTimezone ? { timezone: due.cronTimezone } : {}) },
        caller: { userId: due.runAs, apiKeyId: null },
        alert: due.createAlert ? cronAlertFields(due, scheduledAt) : null,
      });
      await advanceCronTrigger(tx, due.id, now, nextCronRun(due.cronSchedule, now, due.cronTimezone));
      return false;
    });
    if (done) break;
    queued++;
  }
  return queued;
}

/** A cron firing's alert: fields from its input (as a webhook body would give them), one per trigger and minute. */
function cronAlertFields(due: DueCronTrigger, scheduledAt: string) {
  const fields = alertFieldsFromPayload('cron', due.input ?? {}, due.alertMapping, due.name || 'Cron trigger');
  const minute = scheduledAt.slice(0, 16);
  return { ...fields, dedupeKey: fields.dedupeKey ?? `cron:${due.id}:${minute}` };
}

/** Housekeeping of the same pass: unsaved drafts and old delivery ids. */
export async function cleanUpTriggers(db: Database, now = new Date()): Promise<{ drafts: number; deliveries: number }> {
  const drafts = await deleteDraftsCreatedBefore(db, new Date(now.getTime() - DRAFT_TTL_MS));
  const deliveries = await deleteDeliveriesReceivedBefore(db, new Date(now.getTime() - DELIVERY_RETENTION_MS));
  return { drafts, deliveries };
}

/** What the scheduler tick calls. */
export async function runTriggerSchedulerPass(db: Database, now = new Date(), deps?: AlertDeps): Promise<number> {
  const queued = await scheduleDueCronTriggers(db, now, deps);
  await cleanUpTriggers(db, now);
  return queued;
}
