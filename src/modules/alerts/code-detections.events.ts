import { sql, type Selectable } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';
import type { AlertSeverity, CodeDetectionsTable } from './alerts.tables.js';
import { createAlert, type AlertDeps } from './alerts.create.js';

/**
 * What the detect module (events matched against Sigma detections) reads of code detections
 * and how its matches become alerts, through alerts' index.ts: the same path as a hit reported
 * to `POST /api/code-detections/{id}/hits` (createAlert, routed by the triage routes).
 */

/** The detections that run on events: a Sigma rule as query, and not deprecated. */
export interface EventDetection {
  id: string;
  name: string;
  description: string;
  severity: AlertSeverity;
  logTable: { source: string; stream: string } | null;
  query: string;
  attackTechniques: string[];
  attackTactics: string[];
}

const SIGMA_QUERY = sql<boolean>`query ~ '(^|\n)\\s*detection\\s*:'`;

export async function eventDetectionsOf(db: Queryable, organizationId: string): Promise<EventDetection[]> {
  const rows = await db
    .selectFrom('codeDetections')
    .select(['id', 'name', 'description', 'severity', 'logSource', 'logStream', 'query', 'attackTechniques', 'attackTactics'])
    .where('organizationId', '=', organizationId)
    .where('status', '<>', 'deprecated')
    .where(SIGMA_QUERY)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    severity: r.severity,
    logTable: r.logSource && r.logStream ? { source: r.logSource, stream: r.logStream } : null,
    query: r.query ?? '',
    attackTechniques: r.attackTechniques,
    attackTactics: r.attackTactics,
  }));
}

/**
 * A cheap fingerprint of an organization's detections: it changes whenever one is created,
 * changed or deleted (count and latest change), so a process can keep the compiled rules and
 * recompile only then, without listening for notifications.
 */
export async function eventDetectionsVersion(db: Queryable, organizationId: string): Promise<string> {
  const row = await db
    .selectFrom('codeDetections')
    .select([sql<string>`count(*)::text`.as('n'), sql<string | null>`max(updated_at)::text`.as('latest')])
    .where('organizationId', '=', organizationId)
    .executeTakeFirstOrThrow();
  return `${row.n}:${row.latest ?? ''}`;
}

/** The detection as an alert's origin (the fields `hit` and event matches share). */
export function detectionAlertOrigin(row: Pick<Selectable<CodeDetectionsTable>, 'id' | 'name' | 'logSource' | 'logStream'>) {
  return {
    source: { category: 'detection' as const, name: row.name },
    createdBy: 'detection' as const,
    codeDetectionId: row.id,
    logTable: row.logSource && row.logStream ? { source: row.logSource, stream: row.logStream } : null,
  };
}

/**
 * An alert for events a detection matched: created, or counted as a duplicate of the open alert
 * with the same `dedupeKey` (scoped to the detection). Routed like any detection hit.
 */
export async function raiseDetectionMatch(
  tx: Queryable,
  detection: EventDetection & { organizationId: string },
  match: { title: string; severity: AlertSeverity; dedupeKey: string; payload: unknown; hitId: string },
  deps: AlertDeps,
) {
  return createAlert(
    tx,
    {
      organizationId: detection.organizationId,
      title: match.title,
      description: detection.description,
      severity: match.severity,
      ...detectionAlertOrigin({ id: detection.id, name: detection.name, logSource: detection.logTable?.source ?? null, logStream: detection.logTable?.stream ?? null }),
      createdByUserId: null,
      dedupeKey: `detection:${detection.id}:${match.dedupeKey}`,
      payload: match.payload,
      originCodeDetectionHitId: match.hitId,
      triage: { kind: 'route', actorUserId: null },
    },
    deps,
  );
}

/** The detection's name when it exists in the organization (for routes of other modules about it). */
export async function codeDetectionName(db: Queryable, organizationId: string, id: string): Promise<string | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
  const row = await db.selectFrom('codeDetections').select('name').where('organizationId', '=', organizationId).where('id', '=', id.toLowerCase()).executeTakeFirst();
  return row?.name ?? null;
}

/** The detection's rule text when it exists in the organization (undefined: no such detection; null: no query). */
export async function codeDetectionQuery(db: Queryable, organizationId: string, id: string): Promise<string | null | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return undefined;
  const row = await db.selectFrom('codeDetections').select('query').where('organizationId', '=', organizationId).where('id', '=', id.toLowerCase()).executeTakeFirst();
  return row ? row.query : undefined;
}
