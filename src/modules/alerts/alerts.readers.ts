import type { Queryable } from '../../platform/db/database.js';
import { findAlert, listAlerts, listTimeline } from './alerts.repo.js';
import type { AlertDto, TimelineEntryDto } from './alerts.schemas.js';

const CLOSED = ['closed_true_positive', 'closed_false_positive', 'closed_benign'] as const;
/** Timeline kinds that are someone working the alert, as opposed to its arrival (created, duplicate, routed, assigned). */
const TRIAGE_KINDS = new Set(['triage_started', 'triage_finished', 'status_changed', 'escalated', 'closed', 'reopened', 'severity_changed', 'updated', 'comment']);

export interface ClosedAlertCase {
  alert: AlertDto & { payload?: unknown };
  /** The timeline as it was before anyone triaged: its entries up to the first triage action (a triage run starting, a status change, an edit, a comment). */
  timeline: TimelineEntryDto[];
}

/**
 * Alerts a person closed, with their payload and their timeline up to triage: what the
 * evaluations module makes labelled cases of (the person's disposition is the label). `alertIds`
 * (ids or display ids) answers each as found or why not; `filter` takes the newest closed alerts.
 */
export async function closedAlertsForCases(
  db: Queryable,
  organizationId: string,
  sel: { alertIds: string[] } | { filter: { severity?: string[] | undefined; source?: string[] | undefined; createdAfter?: string | undefined; limit: number } },
): Promise<{ found: ClosedAlertCase[]; skipped: Array<{ ref: string; reason: string }> }> {
  const refs = 'alertIds' in sel ? sel.alertIds : (await listAlerts(db, organizationId, { ...sel.filter, offset: 0, status: [...CLOSED] })).alerts.map((a) => a.id);
  const found: ClosedAlertCase[] = [];
  const skipped: Array<{ ref: string; reason: string }> = [];
  for (const ref of refs) {
    const alert = await findAlert(db, organizationId, ref, { withPayload: true });
    if (!alert) skipped.push({ ref, reason: 'no such alert' });
    // A found alert is named by its display id (RMP-42), whichever id was given.
    else if (!(CLOSED as readonly string[]).includes(alert.status)) skipped.push({ ref: alert.displayId, reason: `the alert is ${alert.status}, not closed` });
    else if (!alert.resolvedByUserId) skipped.push({ ref: alert.displayId, reason: 'the alert was not closed by a person' });
    else {
      const { entries } = await listTimeline(db, alert.id, 200, 0);
      const triaged = entries.findIndex((e) => TRIAGE_KINDS.has(e.kind));
      found.push({ alert, timeline: triaged === -1 ? entries : entries.slice(0, triaged) });
    }
  }
  return { found, skipped };
}
