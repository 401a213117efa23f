import { sql, type InsertObject, type OperationNodeSource, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../platform/db/database.js';
import type { DB } from '../../platform/db/schema.js';
import type { AlertStatus } from './alerts.tables.js';
import { iso } from '../../platform/time.js';
import { DISPLAY_PREFIX, OPEN_STATUSES, dispositionOf, displayIdOf, numberOfDisplayId } from './alerts.fns.js';
import type { AlertDto, TimelineEntryDto } from './alerts.schemas.js';
import { containsPattern } from '../../platform/db/like.js';
import { agentNameOf } from '../agents/index.js';
import { prepared } from '../../platform/db/prepared.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Every column but the payload (parsed and raw): lists never need it, and reading a jsonb through the CamelCasePlugin would rename its keys. */
const COLUMNS = [
  'id', 'organizationId', 'number', 'title', 'description', 'severity', 'status', 'duplicateCount', 'sourceCategory', 'sourceName',
  'triggerType', 'createdBy', 'createdByUserId', 'codeDetectionId', 'originCodeDetectionHitId', 'originAgentId', 'originTriggerId',
  'originRunId', 'assignedAgentId', 'triageRunId', 'externalProvider', 'externalRef', 'externalUrl', 'dedupeKey', 'routing',
  'routingDepth', 'huntQualifiedBy', 'duplicateOfAlertId', 'createdAt', 'updatedAt', 'firstTriagedAt', 'resolvedAt', 'resolvedByType', 'resolvedByUserId',
  'resolvedByAgentName', 'resolvedReason',
] as const satisfies ReadonlyArray<Exclude<keyof DB['alerts'], 'payload' | 'payloadRaw'>>;

function baseQuery(db: Queryable) {
  return db
    .selectFrom('alerts as a')
    .innerJoin('organizations as o', 'o.id', 'a.organizationId')
    .leftJoin('codeDetections as cd', 'cd.id', 'a.codeDetectionId')
    .select(COLUMNS.map((c) => `a.${c}` as const))
    .select(['o.name as organizationName', 'cd.name as detectionName', 'cd.ruleId as detectionRuleId'])
    .select([agentNameOf('a.originAgentId').as('originAgentName'), agentNameOf('a.assignedAgentId').as('assignedAgentName')]);
}
export type AlertRow = Awaited<ReturnType<ReturnType<typeof baseQuery>['executeTakeFirstOrThrow']>>;

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
    duplicateOfAlertId: r.duplicateOfAlertId,
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
 * alike. The payload is read only when asked for (as text: kept exactly as received); the raw body
 * (`payloadRaw`) only for the API's GET, never for agents, whose input it would double.
 */
export async function findAlert(db: Queryable, organizationId: string, idOrDisplayId: string, opts: { forUpdate?: boolean; withPayload?: boolean | 'and raw' } = {}) {
  let q = baseQuery(db)
    .where('a.organizationId', '=', organizationId)
    .$if(opts.withPayload !== undefined && opts.withPayload !== false, (qb) => qb.select(sql<string>`a.payload::text`.as('payloadText')))
    .$if(opts.withPayload === 'and raw', (qb) => qb.select('a.payloadRaw'));
  const number = numberOfDisplayId(idOrDisplayId);
  if (number !== null) q = q.where('a.number', '=', number);
  else if (UUID.test(idOrDisplayId)) q = q.where('a.id', '=', idOrDisplayId.toLowerCase());
  else return null;
  if (opts.forUpdate) q = q.forUpdate('a');
  const row = await q.executeTakeFirst();
  if (!row) return null;
  const dto: AlertDto & { payload?: unknown; payloadRaw?: string | null } = toAlertDto(row);
  if (row.payloadText !== undefined) dto.payload = JSON.parse(row.payloadText) as unknown;
  if ('payloadRaw' in row) dto.payloadRaw = row.payloadRaw ?? null;
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

/** An entry written with the alert's own statement; `numbered`: its body follows the alert's display id ("RMP-42 created from …"). */
export type AlertStatementEntry = Omit<NewTimelineEntry, 'organizationId' | 'alertId'> & { numbered?: boolean };

// Camel-cased names: the CamelCasePlugin writes them in snake_case, in raw SQL as in builders.
const RETURNED_COLUMNS = sql.join(COLUMNS.map((c) => sql.ref(`ins.${c}`)));

/**
 * What another owner writes in an alert's statement (a flow's part, src/flows/): its CTEs, after
 * the alert's (`ins`, the alert row with `inserted`; `tl`, its timeline), and the column that
 * reads them (a data-modifying CTE that only SELECTs runs only when the statement reads it).
 */
export interface AlongWithAlert {
  ctes: RawBuilder<unknown>;
  read: RawBuilder<unknown>;
}

/**
 * One statement that writes an alert row (the `ins` CTE: an INSERT or UPDATE returning the row
 * and whether it was inserted), its timeline entries (`entries`: a JSON array, those whose
 * `on_insert` matches), and reads the alert back with the names findAlert joins: on the intake
 * path, every round trip costs more CPU (socket writes on both sides) than the statement it
 * carries. With `along`, what a flow writes with the alert (the trigger firing: the run that
 * triages the new alert and its job). Built once per kind and prepared (platform/db/prepared.ts).
 * `pre`: CTEs before `ins` (`pre.with`: the dedupe count, or the rows of a group commit), and
 * what the entries are read beside (`pre.from`: `ins`, or the group's rows joined to it;
 * `entries` then an expression over it).
 */
export function alertStatement(ins: OperationNodeSource | RawBuilder<unknown>, entries: string | RawBuilder<unknown>, along?: AlongWithAlert, pre?: { with: RawBuilder<unknown>; from: RawBuilder<unknown> }) {
  return sql<AlertRow & { inserted: boolean }>`
    WITH ${pre ? sql`${pre.with}, ` : sql``}ins AS (${ins}),
    tl AS (
      INSERT INTO alert_timeline (id, organization_id, alert_id, kind, actor_type, actor_user_id, actor_agent_id, run_id, body, data, created_at)
      SELECT e.id, ins.organization_id, ins.id, e.kind, e.actor_type, e.actor_user_id, e.actor_agent_id, e.run_id,
        CASE WHEN e.numbered THEN ${`${DISPLAY_PREFIX}-`} || ins.number || e.body ELSE e.body END, e.data, e.created_at
      FROM ${pre ? pre.from : sql`ins`}, jsonb_to_recordset(${typeof entries === 'string' ? sql`${entries}::jsonb` : entries}) AS e(id uuid, kind text, actor_type text, actor_user_id uuid, actor_agent_id uuid, run_id uuid, body text, data jsonb, created_at timestamptz, numbered boolean, on_insert boolean)
      WHERE e.on_insert = ins.inserted
    )${along ? sql`, ${along.ctes}` : sql``}
    SELECT ${RETURNED_COLUMNS}, ins.inserted, ${along ? sql`${along.read}, ` : sql``}o.name AS organization_name, ${agentNameOf('ins.origin_agent_id')} AS origin_agent_name, ${agentNameOf('ins.assigned_agent_id')} AS assigned_agent_name, cd.name AS detection_name, cd.rule_id AS detection_rule_id
    FROM ins
    JOIN organizations o ON o.id = ins.organization_id
    LEFT JOIN code_detections cd ON cd.id = ins.code_detection_id`;
}

/** The new alert's display id (`RMP-42`) as SQL over `ins`, for what a flow writes with it. */
export const insertedDisplayId = sql<string>`${`${DISPLAY_PREFIX}-`} || ins.number`;

/** The timeline entries of an alert statement, as its `entries` parameter. */
export function entriesJson(entries: Array<AlertStatementEntry & { onInsert: boolean }>): string {
  const base = Date.now();
  // A millisecond apart, so the timeline's order is the order given (as addTimelineEntries).
  return JSON.stringify(
    entries.map((e, i) => ({
      id: uuidv7(),
      kind: e.kind,
      actor_type: e.actorType,
      actor_user_id: e.actorUserId ?? null,
      actor_agent_id: e.actorAgentId ?? null,
      run_id: e.runId ?? null,
      body: e.body ?? '',
      data: e.data ?? {},
      created_at: new Date(base + i).toISOString(),
      numbered: e.numbered === true,
      on_insert: e.onInsert,
    })),
  );
}

export function answered(rows: Array<AlertRow & { inserted: boolean }>): { alert: AlertDto; inserted: boolean } | null {
  const row = rows[0];
  return row ? { alert: toAlertDto(row), inserted: row.inserted } : null;
}

/** The columns insertAlert writes (the others keep their defaults); the number and `duplicateOfAlertId` are drawn in the statement. */
const NEW_ALERT_COLUMNS = [
  'id', 'organizationId', 'title', 'description', 'severity', 'status', 'sourceCategory', 'sourceName', 'triggerType', 'createdBy',
  'createdByUserId', 'codeDetectionId', 'originCodeDetectionHitId', 'originAgentId', 'originTriggerId', 'originRunId', 'externalProvider',
  'externalRef', 'externalUrl', 'dedupeKey', 'payload', 'routingDepth', 'huntQualifiedBy', 'createdAt', 'updatedAt', 'assignedAgentId',
  'triageRunId', 'firstTriagedAt', 'routing', 'payloadRaw',
] as const satisfies ReadonlyArray<keyof DB['alerts']>;

/** A new alert's row: every column of NEW_ALERT_COLUMNS (`payload` and `routing` as JSON text). */
export type NewAlertRow = { [K in (typeof NEW_ALERT_COLUMNS)[number]]-?: Exclude<InsertObject<DB, 'alerts'>[K], undefined> };

export type AlertInsertParam = (typeof NEW_ALERT_COLUMNS)[number] | 'entries';
type InsertParam = AlertInsertParam;

/** The `ins` of a new alert's statement (its parameters: the row's columns, `p(column)`), as alertStatement takes it. */
export function alertInsert(db: Queryable, p: <T>(k: InsertParam) => T) {
  const orgId = p<string>('organizationId');
  const dedupeKey = p<string | null>('dedupeKey');
  return db
    .insertInto('alerts')
    .values({
      ...(Object.fromEntries(NEW_ALERT_COLUMNS.map((c) => [c, p(c)])) as NewAlertRow),
      number: sql<number>`nextval(rampart_alert_numbers_sequence(${orgId}::uuid)::regclass)`,
      // Open alerts with this key were counted on before: any alert with it now is closed, and this one recurs it.
      duplicateOfAlertId: sql<string>`CASE WHEN ${dedupeKey}::text IS NULL THEN NULL ELSE (SELECT id FROM alerts WHERE organization_id = ${orgId}::uuid AND dedupe_key = ${dedupeKey}::text ORDER BY number DESC LIMIT 1) END`,
    })
    // The conflict target is the partial index alerts_open_dedupe_idx: its columns and its
    // predicate, in literals (PostgreSQL infers the index from the predicate when it plans, before parameters).
    .onConflict((oc) =>
      oc
        .columns(['organizationId', 'dedupeKey'])
        .where('dedupeKey', 'is not', null)
        .where('status', 'in', OPEN_STATUSES.map((s) => sql.lit(s)))
        .doUpdateSet((eb) => ({ duplicateCount: eb('alerts.duplicateCount', '+', 1), updatedAt: sql<Date>`now()` })),
    )
    .returningAll()
    .returning(sql<boolean>`(xmax = 0)`.as('inserted'));
}

export const insertAlertStatement = prepared('insert_alert', (db, p: <T>(k: InsertParam) => T) => alertStatement(alertInsert(db, p), p('entries')));

/**
 * A new alert (`row`: its columns but `number`, drawn here from the organization's sequence)
 * with `onInsert` timeline entries. A sequence, not a counter row: `nextval` holds no lock until
 * commit, so concurrent alert intake in one organization does not queue behind each
 * transaction's commit; a rolled-back alert leaves a gap, as issue trackers do. The sequence is
 * created with the organization (a database trigger, migration 0014). When an open alert with
 * the same dedupe key won a race (the partial unique index `alerts_open_dedupe_idx`), that alert
 * counts the signal instead and gets `onDuplicate`. Answers the alert as findAlert does. (A
 * trigger's alert is written with its run by the trigger firing's statement: src/flows/.)
 */
export async function insertAlert(tx: Queryable, row: NewAlertRow, onInsert: AlertStatementEntry[], onDuplicate: AlertStatementEntry): Promise<{ alert: AlertDto; inserted: boolean }> {
  const rows = await insertAlertStatement.execute(tx, { ...row, entries: newAlertEntries(onInsert, onDuplicate) });
  return answered(rows)!;
}

/** A new alert statement's `entries`: `onInsert` written when the alert is inserted, `onDuplicate` on the alert that won a race. */
export function newAlertEntries(onInsert: AlertStatementEntry[], onDuplicate: AlertStatementEntry): string {
  return entriesJson([...onInsert.map((e) => ({ ...e, onInsert: true })), { ...onDuplicate, onInsert: false }]);
}

export const countDuplicateStatement = prepared('count_duplicate_alert', (db, p: <T>(k: 'organizationId' | 'dedupeKey' | 'now' | 'entries') => T) => {
  const ins = db
    .updateTable('alerts')
    .set((eb) => ({ duplicateCount: eb('duplicateCount', '+', 1), updatedAt: p<Date>('now') }))
    .where('organizationId', '=', p<string>('organizationId'))
    .where('dedupeKey', '=', p<string>('dedupeKey'))
    .where('status', 'in', OPEN_STATUSES.map((s) => sql.lit(s)))
    .returningAll()
    .returning(sql<boolean>`false`.as('inserted'));
  return alertStatement(ins, p('entries'));
});

/** The open alert with this dedupe key counts one more signal and gets `entry`; null when there is none. */
export async function countDuplicate(tx: Queryable, organizationId: string, dedupeKey: string, entry: AlertStatementEntry): Promise<AlertDto | null> {
  const rows = await countDuplicateStatement.execute(tx, { organizationId, dedupeKey, now: new Date(), entries: entriesJson([{ ...entry, onInsert: false }]) });
  return answered(rows)?.alert ?? null;
}

/** NEW_ALERT_COLUMNS in snake_case: the keys of a row given to jsonb_populate_record. */
const SNAKE_COLUMNS = NEW_ALERT_COLUMNS.map((c) => [c, c.replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`)] as const);

/**
 * The `ins` of many new alerts in one statement (a group commit's: platform/db/group-commit.ts),
 * from the rows of `d` (`d.x`: one element of a JSON array, its alert row under `a`, as
 * `groupedAlertJson` writes it). Only alerts without a dedupe key: nothing to conflict with,
 * each is inserted. `groupedAlertRows` joins each element to its alert, for the timeline entries
 * (under `e`) and what a flow writes with each.
 */
export function groupedAlertsInsert(): RawBuilder<unknown> {
  // A JSON null becomes SQL NULL in jsonb_populate_record; the payload of a `null` body is the JSON null.
  const payload = sql`d.x->'a'->'payload'`;
  return sql`
    INSERT INTO alerts (${sql.join(SNAKE_COLUMNS.map(([, s]) => sql.ref(s)))}, number)
    SELECT ${sql.join(SNAKE_COLUMNS.map(([c, s]) => (c === 'payload' ? payload : sql.ref(`a.${s}`))))}, nextval(rampart_alert_numbers_sequence(a.organization_id)::regclass)
    FROM d, jsonb_populate_record(NULL::alerts, d.x->'a') AS a
    RETURNING *, true AS inserted`;
}

/** Each element of `d` beside its inserted alert (groupedAlertsInsert). */
export const groupedAlertRows = sql`d JOIN ins ON ins.id = (d.x->'a'->>'id')::uuid`;

/** Each element's timeline entries, as alertStatement's `entries` beside groupedAlertRows. */
export const groupedAlertEntries = sql`d.x->'e'`;

/**
 * The alert and its entries as one element's members (`"a":…,"e":…`; the caller adds its own and
 * the braces): the row's JSON with the payload's and routing's JSON text spliced in (not parsed again).
 */
export function groupedAlertJson(row: NewAlertRow, onInsert: AlertStatementEntry[]): string {
  const a: Record<string, unknown> = {};
  for (const [c, s] of SNAKE_COLUMNS) if (c !== 'payload' && c !== 'routing') a[s] = row[c];
  const alert = `${JSON.stringify(a).slice(0, -1)},"payload":${row.payload},"routing":${row.routing ?? 'null'}}`;
  return `"a":${alert},"e":${entriesJson(onInsert.map((e) => ({ ...e, onInsert: true })))}`;
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

export async function listTimeline(db: Queryable, alertId: string, limit: number, offset: number) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('alertTimeline as t')
      // Who acted, by name: the console shows people and agents, not ids (null when deleted).
      .leftJoin('users as u', 'u.id', 't.actorUserId')
      .selectAll('t')
      .select([sql<string>`t.data::text`.as('dataText'), sql<string | null>`coalesce(nullif(u.name, ''), u.email, ${agentNameOf('t.actorAgentId')})`.as('actorName')])
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
