import type { Queryable } from '../../../platform/db/database.js';
import { defaultSubscription, listSourceViews } from './sources.repo.js';

/**
 * What an organization's intel rests on, for readers that must say when there is nothing to
 * compare with (coverage, issue 47 item 12): how many sources it takes intel from, how many of
 * them ever synced, and those whose last sync failed, with the error it left.
 */
export interface IntelSourceHealth {
  /** Sources enabled for the organization (its own, and the built-in ones it subscribes to). */
  enabled: number;
  /** Enabled sources whose last sync succeeded (`ok` or `not_modified`). */
  synced: number;
  /** Enabled sources whose last sync failed, most recent failure first. */
  failing: Array<{ id: string; name: string; lastError: string; lastFailedAt: Date | null }>;
}

export async function intelSourceHealth(db: Queryable, organizationId: string): Promise<IntelSourceHealth> {
  const enabled = (await listSourceViews(db, organizationId)).filter((v) => v.sourceEnabled && (v.subscriptionEnabled ?? defaultSubscription(v)));
  const failing = enabled
    .filter((v) => v.lastStatus === 'error')
    .map((v) => ({ id: v.id, name: v.displayName || v.name, lastError: v.lastError ?? v.jobError ?? 'the sync failed', lastFailedAt: v.lastFetchedAt }))
    .sort((a, b) => (b.lastFailedAt?.getTime() ?? 0) - (a.lastFailedAt?.getTime() ?? 0) || a.name.localeCompare(b.name));
  return { enabled: enabled.length, synced: enabled.filter((v) => v.lastStatus === 'ok' || v.lastStatus === 'not_modified').length, failing };
}
