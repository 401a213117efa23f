import { sql, type SelectQueryBuilder } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../platform/db/database.js';
import type { DB, AlertStatus } from '../../platform/db/schema.js';
import { iso } from '../../platform/time.js';
import { dispositionOf, displayIdOf, numberOfDisplayId } from './alerts.fns.js';
import type { AlertDto, TimelineEntryDto } from './alerts.schemas.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function baseQuery(db: Queryable) {
  return db
    .selectFrom('alerts as a')
    .innerJoin('organizations as o', 'o.id', 'a.organizationId')
    .leftJoin('agents as origin', 'origin.id', 'a.originAgentId')
    .leftJoin('agents as assigned', 'assigned.id', 'a.assignedAgentId')
    .leftJoin('codeDetections as cd', 'cd.id', 'a.codeDetectionId')
    .selectAll('a')
    .select(['o.name as organizationName', 'origin.name as originAgentName', 'assigned.name as assignedAgentName', 'cd.name as detectionName', 'cd.ruleId as detectionRuleId'])
    // As text: the CamelCasePlugin would rename keys inside the jsonb (the payload is kept as received).
    .select(sql<string>`a.payload::text`.as('payloadText'));
}
type AlertRow = Awaited<ReturnType<ReturnType<typeof baseQuery>['executeTakeFirstOrThrow']>>;

export function toAlertDto(r: AlertRow): AlertDto & { payload: unknown } {
  const routing = r.routing as AlertDto['routing'] | null;
  return {
    id: r.id,
    organizationId: r.organizationId,
    displayId: displayIdOf(Number(r.number)),
    organizationName: r.organizationName,
    title: r.title,
    description: r.description,
    severity: r.severity,
    status: r.status,
    duplicateCount: r.duplicateCount,
    source: { category: r.sourceCategory, name: r.sourceName, triggerType: r.triggerType },
    detection: r.codeDetectionId
      ? { id: r.codeDetectionId, agentId: null, ruleId: r.detectionRuleId ?? null, codeDetectionId: r.codeDetectionId, name: r.detectionName ?? '', kind: 'code', origin: 'user' }
      : null,
    createdBy: r.createdBy,
    originAgentId: r.originAgentId,
    originTriggerId: r.originTriggerId,
    originRunId: r.originRunId,
    originDetectionHitId: r.originCodeDetectionHitId,
    codeDetectionId: r.codeDetectionId,
    originCodeDetectionHitId: r.originCodeDetectionHitId,
    assignedAgentId: r.assignedAgentId,
    triageRunId: r.triageRunId,
    duplicateOfAlertId: null,
    resolvedByUserId: r.resolvedByUserId,
    externalProvider: r.externalProvider,
    externalRef: r.externalRef,
    externalUrl: r.externalUrl,
    dedupeKey: r.dedupeKey,
    originAgentName: r.originAgentName ?? null,
    assignedAgentName: r.assignedAgentName ?? null,
    resolvedByAgentName: r.resolvedByAgentName,
    resolvedReason: r.resolvedReason,
    createdAt: iso(r.createdAt)!,
    updatedAt: iso(r.updatedAt)!,
    firstTriagedAt: iso(r.firstTriagedAt),
    resolvedAt: iso(r.resolvedAt),
    derivedDisposition: dispositionOf(r.status),
    triggerSource: r.triggerType,
    resolvedByType: r.resolvedByType,
    huntQualifiedBy: r.huntQualifiedBy,
    routing: routing ? { outcome: routing.outcome, routeId: routing.routeId ?? null, routeName: routing.routeName ?? null, reason: routing.reason } : null,
    payload: JSON.parse(r.payloadText) as unknown,
  };
}

/** An alert of the organization by uuid or display id (`RMP-42`); null for unknown and foreign ids alike. */
export async function findAlert(db: Queryable, organizationId: string, idOrDisplayId: string, forUpdate = false) {
  let q = baseQuery(db).where('a.organizationId', '=', organizationId);
  const number = numberOfDisplayId(idOrDisplayId);
  if (number !== null) q = q.where('a.number', '=', number);
  else if (UUID.test(idOrDisplayId)) q = q.where('a.id', '=', idOrDisplayId.toLowerCase());
  else return null;
  if (forUpdate) q = q.forUpdate('a');
  const row = await q.executeTakeFirst();
  return row ? toAlertDto(row) : null;
}

export interface AlertFilters {
  limit: number;
  offset: number;
  status?: AlertStatus[] | undefined;
  severity?: string[] | undefined;
  source?: string[] | undefined;
  assignedAgentId?: string | undefined;
  search?: string | undefined;
  createdAfter?: string | undefined;
}

export async function listAlerts(db: Queryable, organizationId: string, f: AlertFilters) {
  const filter = <O>(q: SelectQueryBuilder<DB & { a: DB['alerts'] }, 'a' | any, O>) => {
    let out = q.where('a.organizationId', '=', organizationId);
    if (f.status?.length) out = out.where('a.status', 'in', f.status);
    if (f.severity?.length) out = out.where('a.severity', 'in', f.severity as never[]);
    if (f.source?.length) out = out.where((eb) => eb.or([eb('a.triggerType', 'in', f.source!), eb('a.sourceCategory', 'in', f.source!)]));
    if (f.assignedAgentId) out = out.where('a.assignedAgentId', '=', f.assignedAgentId.toLowerCase());
    if (f.createdAfter) out = out.where('a.createdAt', '>', new Date(f.createdAfter));
    if (f.search) {
      // The same expression as alerts_search_idx (a trigram GIN index), so LIKE can use it.
      const pattern = `%${f.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      out = out.where(sql<boolean>`lower(a.title || ' ' || a.description || ' ' || coalesce(a.external_ref, '') || ' ' || a.source_name) LIKE ${pattern}`);
    }
    return out;
  };
  const [rows, count] = await Promise.all([
    filter(baseQuery(db)).orderBy('a.createdAt', 'desc').orderBy('a.id', 'desc').limit(f.limit).offset(f.offset).execute(),
    filter(db.selectFrom('alerts as a').select((eb) => eb.fn.countAll<string>().as('n'))).executeTakeFirstOrThrow(),
  ]);
  return { alerts: rows.map((r) => { const { payload: _payload, ...dto } = toAlertDto(r); return dto; }), totalCount: Number(count.n) };
}

/** The next display number of the organization (a row lock per organization serialises creators briefly). */
export async function nextAlertNumber(tx: Queryable, organizationId: string): Promise<number> {
  const row = await sql<{ lastNumber: string }>`
    INSERT INTO alert_counters (organization_id, last_number) VALUES (${organizationId}, 1)
    ON CONFLICT (organization_id) DO UPDATE SET last_number = alert_counters.last_number + 1
    RETURNING last_number AS "lastNumber"`.execute(tx);
  return Number(row.rows[0]!.lastNumber);
}

export interface NewTimelineEntry {
  organizationId: string;
  alertId: string;
  kind: string;
  actorType: 'human' | 'agent' | 'system';
  actorUserId?: string | null;
  actorAgentId?: string | null;
  runId?: string | null;
  body?: string;
  data?: Record<string, unknown>;
}

export async function addTimelineEntry(tx: Queryable, e: NewTimelineEntry): Promise<TimelineEntryDto> {
  const entry = {
    id: uuidv7(),
    organizationId: e.organizationId,
    alertId: e.alertId,
    kind: e.kind,
    actorType: e.actorType,
    actorUserId: e.actorUserId ?? null,
    actorAgentId: e.actorAgentId ?? null,
    runId: e.runId ?? null,
    body: e.body ?? '',
    data: e.data ?? {},
    createdAt: new Date(),
  };
  await tx.insertInto('alertTimeline').values({ ...entry, data: JSON.stringify(entry.data) }).execute();
  const { organizationId: _org, ...dto } = entry;
  return { ...dto, createdAt: iso(entry.createdAt)! };
}

export async function listTimeline(db: Queryable, alertId: string, limit: number, offset: number) {
  const [rows, count] = await Promise.all([
    db.selectFrom('alertTimeline').selectAll().select(sql<string>`data::text`.as('dataText')).where('alertId', '=', alertId).orderBy('createdAt').orderBy('id').limit(limit).offset(offset).execute(),
    db.selectFrom('alertTimeline').select((eb) => eb.fn.countAll<string>().as('n')).where('alertId', '=', alertId).executeTakeFirstOrThrow(),
  ]);
  const entries: TimelineEntryDto[] = rows.map(({ organizationId: _org, dataText, ...r }) => ({ ...r, data: JSON.parse(dataText) as Record<string, unknown>, createdAt: iso(r.createdAt)! }));
  return { entries, totalCount: Number(count.n) };
}
