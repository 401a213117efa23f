import { sql, type SelectQueryBuilder } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../platform/db/database.js';
import type { DB, AlertStatus } from '../../platform/db/schema.js';
import { iso } from '../../platform/time.js';
import { dispositionOf, displayIdOf, numberOfDisplayId } from './alerts.fns.js';
import type { AlertDto, TimelineEntryDto } from './alerts.schemas.js';
import { containsPattern } from '../../platform/db/like.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Every column but the payload: lists never need it, and reading a jsonb through the CamelCasePlugin would rename its keys. */
const COLUMNS = [
  'id', 'organizationId', 'number', 'title', 'description', 'severity', 'status', 'duplicateCount', 'sourceCategory', 'sourceName',
  'triggerType', 'createdBy', 'createdByUserId', 'codeDetectionId', 'originCodeDetectionHitId', 'originAgentId', 'originTriggerId',
  'originRunId', 'assignedAgentId', 'triageRunId', 'externalProvider', 'externalRef', 'externalUrl', 'dedupeKey', 'routing',
  'routingDepth', 'huntQualifiedBy', 'createdAt', 'updatedAt', 'firstTriagedAt', 'resolvedAt', 'resolvedByType', 'resolvedByUserId',
  'resolvedByAgentName', 'resolvedReason',
] as const satisfies ReadonlyArray<Exclude<keyof DB['alerts'], 'payload'>>;

function baseQuery(db: Queryable) {
  return db
    .selectFrom('alerts as a')
    .innerJoin('organizations as o', 'o.id', 'a.organizationId')
    .leftJoin('agents as origin', 'origin.id', 'a.originAgentId')
    .leftJoin('agents as assigned', 'assigned.id', 'a.assignedAgentId')
    .leftJoin('codeDetections as cd', 'cd.id', 'a.codeDetectionId')
    .select(COLUMNS.map((c) => `a.${c}` as const))
    .select(['o.name as organizationName', 'origin.name as originAgentName', 'assigned.name as assignedAgentName', 'cd.name as detectionName', 'cd.ruleId as detectionRuleId']);
}
type AlertRow = Awaited<ReturnType<ReturnType<typeof baseQuery>['executeTakeFirstOrThrow']>>;

export function toAlertDto(r: AlertRow): AlertDto {
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
  };
}

/**
 * An alert of the organization by uuid or display id (`RMP-42`); null for unknown and foreign ids
 * alike. The payload is read only when asked for (as text: kept exactly as received).
 */
export async function findAlert(db: Queryable, organizationId: string, idOrDisplayId: string, opts: { forUpdate?: boolean; withPayload?: boolean } = {}) {
  let q = baseQuery(db)
    .where('a.organizationId', '=', organizationId)
    .$if(opts.withPayload === true, (qb) => qb.select(sql<string>`a.payload::text`.as('payloadText')));
  const number = numberOfDisplayId(idOrDisplayId);
  if (number !== null) q = q.where('a.number', '=', number);
  else if (UUID.test(idOrDisplayId)) q = q.where('a.id', '=', idOrDisplayId.toLowerCase());
  else return null;
  if (opts.forUpdate) q = q.forUpdate('a');
  const row = await q.executeTakeFirst();
  if (!row) return null;
  const dto: AlertDto & { payload?: unknown } = toAlertDto(row);
  if (row.payloadText !== undefined) dto.payload = JSON.parse(row.payloadText) as unknown;
  return dto;
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
      const pattern = containsPattern(f.search.toLowerCase());
      out = out.where(sql<boolean>`lower(a.title || ' ' || a.description || ' ' || coalesce(a.external_ref, '') || ' ' || a.source_name) LIKE ${pattern}`);
    }
    return out;
  };
  const [rows, count] = await Promise.all([
    filter(baseQuery(db)).orderBy('a.createdAt', 'desc').orderBy('a.id', 'desc').limit(f.limit).offset(f.offset).execute(),
    filter(db.selectFrom('alerts as a').select((eb) => eb.fn.countAll<string>().as('n'))).executeTakeFirstOrThrow(),
  ]);
  return { alerts: rows.map(toAlertDto), totalCount: Number(count.n) };
}

/**
 * The next display number of the organization, from a sequence of its own. A sequence, not a
 * counter row: `nextval` holds no lock until commit, so concurrent alert intake in one
 * organization does not queue behind each transaction's commit (a counter row serialised every
 * trigger delivery of the organization). A rolled-back alert leaves a gap, as issue trackers do.
 * The sequence is created with the organization (a database trigger, migration 0014).
 */
export async function nextAlertNumber(tx: Queryable, organizationId: string): Promise<number> {
  const row = await sql<{ n: string }>`SELECT nextval(rampart_alert_numbers_sequence(${organizationId}::uuid)::regclass) AS n`.execute(tx);
  return Number(row.rows[0]!.n);
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

/** The entry as stored (data as its JSON text) and as answered. */
function timelineEntry(e: NewTimelineEntry, createdAt: Date) {
  const row = {
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
    createdAt,
  };
  const { organizationId: _org, ...dto } = row;
  return { row: { ...row, data: JSON.stringify(row.data) }, dto: { ...dto, createdAt: iso(createdAt)! } as TimelineEntryDto };
}

export async function addTimelineEntry(tx: Queryable, e: NewTimelineEntry): Promise<TimelineEntryDto> {
  const { row, dto } = timelineEntry(e, new Date());
  await tx.insertInto('alertTimeline').values(row).execute();
  return dto;
}

/** Several entries in one statement (an alert's first entries are written together). */
export async function addTimelineEntries(tx: Queryable, entries: NewTimelineEntry[]): Promise<void> {
  const base = Date.now();
  // A millisecond apart, so the timeline's order is the order given.
  await tx.insertInto('alertTimeline').values(entries.map((e, i) => timelineEntry(e, new Date(base + i)).row)).execute();
}

export async function listTimeline(db: Queryable, alertId: string, limit: number, offset: number) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('alertTimeline as t')
      // Who acted, by name: the console shows people and agents, not ids (null when deleted).
      .leftJoin('users as u', 'u.id', 't.actorUserId')
      .leftJoin('agents as ag', 'ag.id', 't.actorAgentId')
      .selectAll('t')
      .select([sql<string>`t.data::text`.as('dataText'), sql<string | null>`coalesce(nullif(u.name, ''), u.email, ag.name)`.as('actorName')])
      .where('t.alertId', '=', alertId)
      .orderBy('t.createdAt')
      .orderBy('t.id')
      .limit(limit)
      .offset(offset)
      .execute(),
    db.selectFrom('alertTimeline').select((eb) => eb.fn.countAll<string>().as('n')).where('alertId', '=', alertId).executeTakeFirstOrThrow(),
  ]);
  const entries: TimelineEntryDto[] = rows.map(({ organizationId: _org, dataText, ...r }) => ({ ...r, data: JSON.parse(dataText) as Record<string, unknown>, createdAt: iso(r.createdAt)! }));
  return { entries, totalCount: Number(count.n) };
}
