import { sql } from 'kysely';
import type { Database } from '../../platform/db/database.js';
import { DISPLAY_PREFIX } from '../alerts/index.js';

export interface AuditFilters {
  action?: string | undefined;
  resourceType?: string | undefined;
  resourceId?: string | undefined;
  actorUserId?: string | undefined;
}

/**
 * The names an entry's ids stand for, read at listing time (reads only; the tables of users,
 * agents, destinations, roles, API keys, alerts, sources and code detections): the actor's name
 * (else email), and the resource's name — the one recorded in the entry's metadata when there is
 * one (it survives deletion), else the current one; null when neither exists.
 */
const RESOURCE_NAME = sql<string | null>`coalesce(a.metadata->>'name', CASE a.resource_type
  WHEN 'agent' THEN (SELECT name FROM agents WHERE id::text = a.resource_id AND organization_id = a.organization_id)
  WHEN 'destination' THEN (SELECT name FROM output_destinations WHERE id::text = a.resource_id AND organization_id = a.organization_id)
  WHEN 'user' THEN (SELECT coalesce(nullif(name, ''), email) FROM users WHERE id::text = a.resource_id AND organization_id = a.organization_id)
  WHEN 'role' THEN (SELECT name FROM roles WHERE id::text = a.resource_id AND organization_id = a.organization_id)
  WHEN 'apiKey' THEN (SELECT name FROM api_keys WHERE id::text = a.resource_id AND organization_id = a.organization_id)
  WHEN 'intelSource' THEN (SELECT display_name FROM intel_sources WHERE id::text = a.resource_id AND organization_id = a.organization_id)
  WHEN 'codeDetection' THEN (SELECT name FROM code_detections WHERE id::text = a.resource_id AND organization_id = a.organization_id)
  WHEN 'alert' THEN (SELECT ${DISPLAY_PREFIX} || '-' || number || ' ' || title FROM alerts WHERE id::text = a.resource_id AND organization_id = a.organization_id)
END)`;

export async function listAuditLogs(db: Database, organizationId: string, f: AuditFilters, limit: number, offset: number) {
  let base = db.selectFrom('auditLogs as a').where('a.organizationId', '=', organizationId);
  if (f.action) base = base.where('a.action', '=', f.action);
  if (f.resourceType) base = base.where('a.resourceType', '=', f.resourceType);
  if (f.resourceId) base = base.where('a.resourceId', '=', f.resourceId);
  if (f.actorUserId) base = base.where('a.actorUserId', '=', f.actorUserId);
  const [rows, count] = await Promise.all([
    base
      .leftJoin('users as u', 'u.id', 'a.actorUserId')
      .selectAll('a')
      .select([sql<string | null>`coalesce(nullif(u.name, ''), u.email)`.as('actorName'), RESOURCE_NAME.as('resourceName')])
      .orderBy('a.createdAt', 'desc')
      .orderBy('a.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, totalCount: Number(count.n) };
}

/** The actions and resource types the organization's log holds, for the console's filters. */
export async function auditFacets(db: Database, organizationId: string) {
  const [actions, resourceTypes, actors] = await Promise.all([
    db.selectFrom('auditLogs').select('action').distinct().where('organizationId', '=', organizationId).orderBy('action').execute(),
    db.selectFrom('auditLogs').select('resourceType').distinct().where('organizationId', '=', organizationId).orderBy('resourceType').execute(),
    db
      .selectFrom('users as u')
      .select(['u.id as userId', sql<string>`coalesce(nullif(u.name, ''), u.email)`.as('name')])
      .where('u.organizationId', '=', organizationId)
      .where((eb) => eb.exists(eb.selectFrom('auditLogs as a').select('a.id').whereRef('a.actorUserId', '=', 'u.id')))
      .orderBy('name')
      .execute(),
  ]);
  return { actions: actions.map((r) => r.action), resourceTypes: resourceTypes.map((r) => r.resourceType), actors };
}
