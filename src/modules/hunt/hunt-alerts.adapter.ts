import type { Queryable } from '../../platform/db/database.js';
import type { EventBus } from '../../platform/events.js';
import { alertsByDedupeKey, createAlert, isOpenStatus, lowerAlertBySystem, raiseAlertBySystem, reopenAlertBySystem, resolveAlertBySystem } from '../alerts/index.js';
import type { HuntAlertInput, HuntAlertOutcome, HuntAlertRecession, HuntAlertRecessionOutcome } from './hunt-alerts.js';

/**
 * Hunt alerts over the alerts module: a threat's previous hunt alert, when closed, is reopened
 * (and routed again to the hunt response agent); otherwise `createAlert` creates one (routed to
 * `huntAlertRouting`, skipping triage routes) or dedupes into the open one, which then follows
 * its threat: a higher band raises its severity and retitles it, a new qualification is
 * recorded, and crossing into critical starts a fresh triage run.
 */
export async function raiseHuntAlert(tx: Queryable, input: HuntAlertInput, events: EventBus): Promise<HuntAlertOutcome> {
  const deps = { events };
  if (input.previousAlertId) {
    const reopened = await reopenAlertBySystem(tx, deps, input.organizationId, input.previousAlertId, {
      reason: `Hunt: new evidence for the threat (${input.huntQualifiedBy}). ${input.title}`,
      huntQualifiedBy: input.huntQualifiedBy,
      routeToHuntAgent: true,
    });
    if (reopened) return { alertId: reopened.id, outcome: 'reopened', open: true };
  }
  const { alert, created } = await createAlert(tx, {
    organizationId: input.organizationId,
    title: input.title.slice(0, 500),
    description: input.description,
    severity: input.severity,
    source: { category: 'hunt', name: 'hunt' },
    createdBy: 'hunt',
    dedupeKey: input.dedupeKey,
    huntQualifiedBy: input.huntQualifiedBy,
    payload: { threatId: input.threatId, runId: input.runId },
    triage: { kind: 'hunt' },
  }, deps);
  if (!created && isOpenStatus(alert.status)) {
    await raiseAlertBySystem(tx, deps, input.organizationId, alert.id, {
      title: input.title.slice(0, 500),
      description: input.description,
      severity: input.severity,
      huntQualifiedBy: input.huntQualifiedBy,
      reason: `Hunt: the threat's exposure rose (${input.huntQualifiedBy})`,
    });
  }
  return { alertId: alert.id, outcome: created ? 'created' : 'deduplicated', open: isOpenStatus(alert.status) };
}

/**
 * The open hunt alert follows its threat down: resolved by the system when nothing is exposed any
 * more (a `closed` timeline entry, `alert.status_changed`: PagerDuty resolves), or its severity
 * lowered with the band (a `severity_changed` entry, `alert.updated`: PagerDuty re-triggers the
 * incident with the new severity) unless a person set it.
 */
export async function recedeHuntAlert(tx: Queryable, input: HuntAlertRecession, events: EventBus): Promise<HuntAlertRecessionOutcome> {
  const deps = { events };
  if (input.change === 'resolve') {
    const resolved = await resolveAlertBySystem(tx, deps, input.organizationId, input.alertId, input.reason);
    return { alertId: input.alertId, outcome: resolved ? 'resolved' : 'unchanged' };
  }
  const lowered = await lowerAlertBySystem(tx, deps, input.organizationId, input.alertId, {
    severity: input.severity, from: input.fromSeverity, title: input.title.slice(0, 500), description: input.description, reason: input.reason,
  });
  return { alertId: input.alertId, outcome: lowered ? 'lowered' : 'unchanged' };
}


/** The alert objects (the API spec's "Alert") of a threat's hunt alerts, newest first, with their status. */
export async function huntAlertsOf(db: Queryable, organizationId: string, dedupeKey: string): Promise<Array<Record<string, unknown> & { id: string; status: string }>> {
  return (await alertsByDedupeKey(db, organizationId, dedupeKey)) as unknown as Array<Record<string, unknown> & { id: string; status: string }>;
}
