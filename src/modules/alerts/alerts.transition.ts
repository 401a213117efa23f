import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../platform/db/database.js';
import type { AlertStatus } from './alerts.tables.js';
import { historyColumns, resolutionColumns, statusChangeKind, timelineActor, type StatusActor } from './alerts.fns.js';
import { addTimelineEntry, findAlert } from './alerts.repo.js';
import type { AlertDeps } from './alerts.create.js';
import type { AlertDto, TimelineEntryDto } from './alerts.schemas.js';

/**
 * The one write of an alert status change, whoever makes it (a person over the API, an agent's
 * tool, hunt reopening a closed alert): the status and resolution columns, one timeline entry
 * whose kind tells reopening and closing apart, and one `alert.status_changed` event. `alert` is
 * the row as read FOR UPDATE by the caller, which has checked its own preconditions (the rules of
 * alerts.fns.ts for people and agents; "is closed" for hunt's reopening). `set`: further columns
 * written with the status; `afterWrite`: work that the event's alert must already show (hunt's
 * triage run).
 */
export async function transition(
  tx: Queryable,
  deps: AlertDeps,
  alert: AlertDto,
  change: { status: AlertStatus; reason?: string | null | undefined },
  actor: StatusActor,
  opts: { runId?: string | null; set?: { huntQualifiedBy?: string }; afterWrite?: () => Promise<unknown> } = {},
): Promise<{ alert: AlertDto; entry: TimelineEntryDto }> {
  const now = new Date();
  const reason = change.reason ?? null;
  await tx
    .updateTable('alerts')
    .set({ status: change.status, updatedAt: now, ...resolutionColumns(change.status, actor, reason, now), ...historyColumns(change.status, actor, now), ...opts.set })
    .where('id', '=', alert.id)
    .execute();
  const kind = statusChangeKind(alert.status, change.status);
  const entry = await addTimelineEntry(tx, {
    organizationId: alert.organizationId,
    alertId: alert.id,
    kind,
    ...timelineActor(actor),
    runId: opts.runId ?? null,
    body: reason ?? '',
    data: { from: alert.status, to: change.status },
  });
  await opts.afterWrite?.();
  const updated = (await findAlert(tx, alert.organizationId, alert.id))!;
  await deps.events.emit(tx, 'alert.status_changed', {
    id: uuidv7(),
    type: 'alert.status_changed',
    occurredAt: entry.createdAt,
    organizationId: alert.organizationId,
    data: { alert: updated, from: alert.status, to: change.status, change: kind, reason },
  });
  return { alert: updated, entry };
}
