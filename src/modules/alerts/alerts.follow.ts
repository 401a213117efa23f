import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../platform/db/database.js';
import type { AlertSeverity } from './alerts.tables.js';
import type { EventBus } from '../../platform/events.js';
import { isClosed } from './alerts.fns.js';
import { addTimelineEntry, findAlert } from './alerts.repo.js';
import type { AlertDeps } from './alerts.create.js';
import type { AlertDto } from './alerts.schemas.js';
import { transition } from './alerts.transition.js';

/**
 * An open alert follows the signal behind it down as well as up (hunt: the threat's exposure fell).
 * Raising is `raiseAlertBySystem` (alerts.reopen.ts); these are the two ways down, each with a
 * timeline entry and an event, so a destination (PagerDuty's incident, a Slack channel) follows too.
 */

/** The status a system close sets: the signal is gone (nothing left to act on); it is no person's verdict. */
export const SYSTEM_CLOSE_STATUS = 'closed_benign' as const;

/**
 * `alert.updated`: an open alert's severity, title or description changed without a status change
 * (delivery: PagerDuty re-triggers the same `dedup_key` with the new severity; Slack/Teams post it).
 */
export async function alertUpdated(
  tx: Queryable,
  events: EventBus,
  alert: AlertDto,
  change: { changed: string[]; from: Record<string, unknown>; to: Record<string, unknown>; reason: string },
): Promise<void> {
  await events.emit(tx, 'alert.updated', {
    id: uuidv7(),
    type: 'alert.updated',
    occurredAt: new Date().toISOString(),
    organizationId: alert.organizationId,
    data: { alert, ...change },
  });
}

/**
 * Closing an open alert by the system: its signal is gone (a hunt threat whose exposure fell to
 * `not_affected`). One `closed` timeline entry with the reason and one `alert.status_changed`
 * event (PagerDuty resolves the incident). The resolution names no person or agent. Returns null
 * when the alert is not open.
 */
export async function resolveAlertBySystem(tx: Queryable, deps: AlertDeps, organizationId: string, alertId: string, reason: string): Promise<AlertDto | null> {
  const alert = await findAlert(tx, organizationId, alertId, { forUpdate: true });
  if (!alert || isClosed(alert.status)) return null;
  return (await transition(tx, deps, alert, { status: SYSTEM_CLOSE_STATUS, reason }, { type: 'system' })).alert;
}

const ORDER: readonly AlertSeverity[] = ['low', 'medium', 'high', 'critical'];

/**
 * Lowering an open alert's severity by the system (a hunt threat fell to a lower band, still
 * present). Only a severity the system set itself is lowered (`from`: the band the previous
 * assessment gave): a person who raised it keeps their choice. The title and description take
 * the signal's; a `severity_changed` timeline entry and an `alert.updated` event say so.
 */
export async function lowerAlertBySystem(
  tx: Queryable,
  deps: AlertDeps,
  organizationId: string,
  alertId: string,
  signal: { severity: AlertSeverity; from: AlertSeverity; title: string; description: string; reason: string },
): Promise<AlertDto | null> {
  const alert = await findAlert(tx, organizationId, alertId, { forUpdate: true });
  if (!alert || isClosed(alert.status)) return null;
  if (alert.severity !== signal.from || ORDER.indexOf(signal.severity) >= ORDER.indexOf(alert.severity)) return null;
  const set = {
    severity: signal.severity,
    ...(signal.title !== alert.title ? { title: signal.title } : {}),
    ...(signal.description !== alert.description ? { description: signal.description } : {}),
  };
  await tx.updateTable('alerts').set({ ...set, updatedAt: new Date() }).where('id', '=', alert.id).execute();
  const body = `${signal.reason}: severity ${alert.severity} → ${signal.severity}${set.title ? `; title "${alert.title}" → "${set.title}"` : ''}`;
  await addTimelineEntry(tx, { organizationId, alertId: alert.id, kind: 'severity_changed', actorType: 'system', body, data: { from: alert.severity, to: signal.severity } });
  const updated = (await findAlert(tx, organizationId, alert.id))!;
  await alertUpdated(tx, deps.events, updated, { changed: Object.keys(set), from: { severity: alert.severity, title: alert.title }, to: set, reason: body });
  return updated;
}
