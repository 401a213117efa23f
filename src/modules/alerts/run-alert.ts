import type { Queryable } from '../../platform/db/database.js';
import type { RunAlertContext } from '../runs/index.js';
import { findAlert } from './alerts.repo.js';

/**
 * What a triage run is told about its alert when it starts (wired into the run job at the
 * composition root: runs must not import alerts). The same fields for every origin.
 */
export async function runAlertContext(db: Queryable, organizationId: string, alertId: string): Promise<RunAlertContext | null> {
  const a = await findAlert(db, organizationId, alertId);
  if (!a) return null;
  return {
    id: a.id,
    displayId: a.displayId,
    title: a.title,
    severity: a.severity,
    status: a.status,
    source: a.source,
    dedupeKey: a.dedupeKey,
    duplicateCount: a.duplicateCount,
    externalRef: a.externalRef,
    externalUrl: a.externalUrl,
  };
}
