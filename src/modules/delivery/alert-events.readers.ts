import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';

/** An `alert.created` event a subscribed destination has no delivery of. */
export interface MissingAlertEvent {
  organizationId: string;
  alertId: string;
  destinationId: string;
}

/**
 * The `alert.created` deliveries that should exist and do not: alerts created between `sinceMs`
 * and `settleMs` ago, for each destination subscribed to `alert.created` since before the alert
 * (its `updated_at`, a lower bound of when it subscribed: an alert from before a destination
 * subscribed is never sent to it), without a delivery of the alert's event (whose id is the
 * alert's id: alerts' alertCreatedEventId). What webhook intake's one-statement path can leave
 * behind: it writes the alert and then the event in a transaction of its own, and a crash in
 * between, or a destination subscribed by another process within the cache's latency, loses the
 * event. One set-based read across alerts and destinations (a READ_EXCEPTION,
 * scripts/table-owners.ts).
 */
export async function missingAlertCreatedEvents(db: Queryable, opts: { sinceMs: number; settleMs: number; limit: number }): Promise<MissingAlertEvent[]> {
  const { rows } = await sql<MissingAlertEvent>`
    SELECT a.organization_id::text AS organization_id, a.id::text AS alert_id, d.id::text AS destination_id
    FROM output_destinations d
    JOIN alerts a ON a.organization_id = d.organization_id
      AND a.created_at >= greatest(d.updated_at, now() - make_interval(secs => ${opts.sinceMs / 1000}))
      AND a.created_at < now() - make_interval(secs => ${opts.settleMs / 1000})
    WHERE 'alert.created' = ANY(d.event_subscriptions)
      AND NOT EXISTS (
        SELECT 1 FROM destination_deliveries x
        WHERE x.destination_id = d.id AND x.event_kind = 'alert.created' AND x.event_id = a.id
      )
    ORDER BY a.created_at
    LIMIT ${opts.limit}`.execute(db);
  return rows;
}
