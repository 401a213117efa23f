import type { EventSink } from '../../platform/events.js';
import { alertsByDedupeKey, createAlert, isOpenStatus, reopenAlertBySystem } from '../alerts/index.js';
import type { HuntAlertPort } from './hunt-alerts.js';

/**
 * The hunt-alert port over the alerts module: a threat's previous hunt alert, when closed, is
 * reopened (and routed again to the hunt response agent); otherwise `createAlert` creates one
 * (routed to `huntAlertRouting`, skipping triage routes) or dedupes into the open one.
 */
export function createHuntAlertPort(deps: { events: EventSink }): HuntAlertPort {
  return {
    async raise(tx, input) {
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
      return { alertId: alert.id, outcome: created ? 'created' : 'deduplicated', open: isOpenStatus(alert.status) };
    },
    async list(db, organizationId, dedupeKey) {
      return (await alertsByDedupeKey(db, organizationId, dedupeKey)) as unknown as Array<Record<string, unknown> & { id: string; status: string }>;
    },
  };
}
