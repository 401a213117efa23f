import type { Queryable } from '../../platform/db/database.js';
import { OPEN_STATUSES, isClosed } from './alerts.fns.js';
import { addTimelineEntry, findAlert } from './alerts.repo.js';
import { startTriage, type AlertDeps } from './alerts.create.js';
import type { AlertDto } from './alerts.schemas.js';
import { runStatus } from '../runs/index.js';
import { transition } from './alerts.transition.js';
import { alertUpdated } from './alerts.follow.js';

/**
 * Reopening by the system (hunt): a closed alert whose signal came back is reopened rather than
 * duplicated, the resolution cleared, a `reopened` timeline entry and `alert.status_changed`
 * event recorded, and it is routed again to the hunt response agent (`huntAlertRouting`).
 * Returns null when the alert is not closed (the caller then creates or dedupes as usual).
 */
export async function reopenAlertBySystem(
  tx: Queryable,
  deps: AlertDeps,
  organizationId: string,
  alertId: string,
  change: { reason: string; huntQualifiedBy?: string | null; routeToHuntAgent: boolean },
): Promise<AlertDto | null> {
  const alert = await findAlert(tx, organizationId, alertId, { forUpdate: true });
  if (!alert || !isClosed(alert.status)) return null;
  const { alert: updated } = await transition(tx, deps, alert, { status: 'open', reason: change.reason }, { type: 'system' }, {
    ...(change.huntQualifiedBy ? { set: { huntQualifiedBy: change.huntQualifiedBy } } : {}),
    afterWrite: async () => {
      if (!change.routeToHuntAgent) return;
      const settings = await tx.selectFrom('alertRouting').select(['huntResponseAgentId', 'updatedBy']).where('organizationId', '=', organizationId).executeTakeFirst();
      if (settings?.huntResponseAgentId) await startTriage(tx, { alertId: alert.id, organizationId, agentId: settings.huntResponseAgentId, actorUserId: settings.updatedBy, cause: 'routed' });
    },
  });
  return updated;
}

const SEVERITY_ORDER = ['low', 'medium', 'high', 'critical'] as const;
type Severity = (typeof SEVERITY_ORDER)[number];

/**
 * Raising an open alert by the system (hunt): the signal behind it got worse, so the alert
 * follows — its severity rises (never lowered here: a person may have raised it), its title,
 * description and `huntQualifiedBy` take the signal's, and an `updated` timeline entry says
 * what changed. Crossing into critical starts a fresh triage run of the hunt response agent
 * (unless a triage run is still waiting or running: it reads the alert when it starts, and the
 * timeline shows the change). Returns null when the alert is not open or nothing changed.
 */
export async function raiseAlertBySystem(
  tx: Queryable,
  deps: AlertDeps,
  organizationId: string,
  alertId: string,
  signal: { title: string; description: string; severity: Severity; huntQualifiedBy: string | null; reason: string },
): Promise<AlertDto | null> {
  const alert = await findAlert(tx, organizationId, alertId, { forUpdate: true });
  if (!alert || isClosed(alert.status)) return null;
  const rises = SEVERITY_ORDER.indexOf(signal.severity) > SEVERITY_ORDER.indexOf(alert.severity as Severity);
  const set = {
    ...(rises ? { severity: signal.severity } : {}),
    ...(rises && signal.title !== alert.title ? { title: signal.title } : {}),
    ...(rises && signal.description !== alert.description ? { description: signal.description } : {}),
    ...(signal.huntQualifiedBy && signal.huntQualifiedBy !== alert.huntQualifiedBy ? { huntQualifiedBy: signal.huntQualifiedBy } : {}),
  };
  if (!Object.keys(set).length) return null;
  await tx.updateTable('alerts').set({ ...set, updatedAt: new Date() }).where('id', '=', alert.id).execute();
  const changes = [
    ...(set.severity ? [`severity ${alert.severity} → ${set.severity}`] : []),
    ...(set.title ? [`title "${alert.title}" → "${set.title}"`] : []),
    ...(set.huntQualifiedBy ? [`qualified by ${alert.huntQualifiedBy ?? 'nothing'} → ${set.huntQualifiedBy}`] : []),
  ];
  const body = `${signal.reason}: ${changes.join('; ') || 'description updated'}`;
  const from = { severity: alert.severity, title: alert.title, huntQualifiedBy: alert.huntQualifiedBy };
  await addTimelineEntry(tx, { organizationId, alertId: alert.id, kind: 'updated', actorType: 'system', body, data: { changed: Object.keys(set), from, to: set } });
  if (set.severity === 'critical') {
    const settings = await tx.selectFrom('alertRouting').select(['huntResponseAgentId', 'updatedBy']).where('organizationId', '=', organizationId).executeTakeFirst();
    const current = alert.triageRunId ? await runStatus(tx, alert.triageRunId) : undefined;
    const active = current === 'waiting' || current === 'running';
    if (settings?.huntResponseAgentId && !active) await startTriage(tx, { alertId: alert.id, organizationId, agentId: settings.huntResponseAgentId, actorUserId: settings.updatedBy, cause: 'routed' });
  }
  const updated = (await findAlert(tx, organizationId, alert.id))!;
  // A severity change is news for the destinations (PagerDuty's incident takes the new severity).
  if (set.severity) await alertUpdated(tx, deps.events, updated, { changed: Object.keys(set), from, to: set, reason: body });
  return updated;
}

/** Alerts carrying one dedupe key (e.g. one threat's hunt alerts), newest first, without payloads. */
export async function alertsByDedupeKey(db: Queryable, organizationId: string, dedupeKey: string, limit = 50): Promise<AlertDto[]> {
  const ids = await db.selectFrom('alerts').select('id').where('organizationId', '=', organizationId).where('dedupeKey', '=', dedupeKey).orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(limit).execute();
  const out: AlertDto[] = [];
  for (const { id } of ids) {
    const a = await findAlert(db, organizationId, id);
    if (a) out.push(a);
  }
  return out;
}

export const isOpenStatus = (status: string) => (OPEN_STATUSES as readonly string[]).includes(status);
