import { sql, type RawBuilder } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';

export interface TriggerRow {
  id: string;
  organizationId: string;
  agentId: string;
  source: string;
  name: string;
  status: 'draft' | 'active';
  enabled: boolean;
  secretCiphertext: string | null;
  signingSecretCiphertext: string | null;
  additionalFields: Record<string, unknown>;
  cronSchedule: string | null;
  /** The IANA time zone the schedule is read in; null: UTC. */
  cronTimezone: string | null;
  input: unknown;
  /** null: the source's default (alerts' createsAlertByDefault). */
  createAlert: boolean | null;
  alertMapping: Record<string, string> | null;
  /** Agent input name → JSON pointer into the payload. */
  inputMapping: Record<string, string> | null;
  /** JSON pointer to the payload's id, the dedupe key when no delivery header came. */
  deliveryIdPointer: string | null;
  /** Its alerts go through triage routing (and its own run is not started) instead of to its agent. */
  routeAlerts: boolean;
  /** 'code' when written by config apply (platform/managed.ts). */
  managedBy: 'code' | null;
  managedSource: string | null;
  nextRunAt: Date | null;
  lastRunAttemptedAt: Date | null;
  lastRunSucceededAt: Date | null;
  createdBy: string | null;
  updatedBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = [
  'id',
  'organizationId',
  'agentId',
  'source',
  'name',
  'status',
  'enabled',
  'secretCiphertext',
  'signingSecretCiphertext',
  'cronSchedule',
  'cronTimezone',
  'nextRunAt',
  'lastRunAttemptedAt',
  'lastRunSucceededAt',
  'createdBy',
  'updatedBy',
  'createdAt',
  'updatedAt',
  'additionalFields',
  'input',
  'createAlert',
  'alertMapping',
  'inputMapping',
  'deliveryIdPointer',
  'routeAlerts',
  'managedBy',
  'managedSource',
] as const;

/** The JSON columns of a trigger row as PostgreSQL takes them. */
function jsonColumns(row: TriggerRow) {
  return {
    additionalFields: JSON.stringify(row.additionalFields),
    input: row.input == null ? null : JSON.stringify(row.input),
    alertMapping: row.alertMapping ? JSON.stringify(row.alertMapping) : null,
    inputMapping: row.inputMapping ? JSON.stringify(row.inputMapping) : null,
  };
}

export async function insertTriggerRow(db: Queryable, row: TriggerRow): Promise<void> {
  await db
    .insertInto('agentTriggers')
    .values({ ...row, ...jsonColumns(row) })
    .execute();
}

export async function findTriggerRow(db: Queryable, organizationId: string, agentId: string, id: string, forUpdate = false): Promise<TriggerRow | null> {
  let q = db
    .selectFrom('agentTriggers')
    .select(COLUMNS)
    .where('organizationId', '=', organizationId)
    .where('agentId', '=', agentId)
    .where('id', '=', id);
  if (forUpdate) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  return row ?? null;
}

/** Intake: the trigger by its id alone (the caller proves which organization it acts in). */
/**
 * Whom a trigger's runs act as: the last of the trigger and its agent to change was changed by
 * this user (their creator when never changed). Whoever can rotate the trigger's secret or
 * change the agent's tools must not make its runs act with someone else's permissions.
 */
const RUN_AS = sql<string | null>`CASE WHEN a.updated_at > t.updated_at THEN coalesce(a.updated_by, a.created_by) ELSE coalesce(t.updated_by, t.created_by) END`;

export type IntakeTrigger = TriggerRow & { runAs: string | null };

export async function findTriggerForIntake(db: Queryable, id: string): Promise<IntakeTrigger | null> {
  const row = await db
    .selectFrom('agentTriggers as t')
    .innerJoin('agents as a', 'a.id', 't.agentId')
    .select(COLUMNS.map((c) => `t.${c}` as const))
    .select(RUN_AS.as('runAs'))
    .where('t.id', '=', id)
    .executeTakeFirst();
  // Frozen: intake shares it from its cache between concurrent requests.
  return row ? Object.freeze(row) : null;
}

export async function listActiveTriggerRows(db: Queryable, organizationId: string, agentId: string): Promise<TriggerRow[]> {
  const rows = await db
    .selectFrom('agentTriggers')
    .select(COLUMNS)
    .where('organizationId', '=', organizationId)
    .where('agentId', '=', agentId)
    .where('status', '=', 'active')
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
  return rows;
}

/** The organization's active triggers, every agent's (config plan and export). */
export async function listOrganizationTriggerRows(db: Queryable, organizationId: string): Promise<TriggerRow[]> {
  return db.selectFrom('agentTriggers').select(COLUMNS).where('organizationId', '=', organizationId).where('status', '=', 'active').orderBy('createdAt').orderBy('id').execute();
}

export async function updateTriggerRow(db: Queryable, row: TriggerRow): Promise<void> {
  await db
    .updateTable('agentTriggers')
    .set({
      name: row.name,
      status: row.status,
      enabled: row.enabled,
      signingSecretCiphertext: row.signingSecretCiphertext,
      ...jsonColumns(row),
      cronSchedule: row.cronSchedule,
      cronTimezone: row.cronTimezone,
      createAlert: row.createAlert,
      routeAlerts: row.routeAlerts,
      managedBy: row.managedBy,
      managedSource: row.managedSource,
      secretCiphertext: row.secretCiphertext,
      updatedBy: row.updatedBy,
      deliveryIdPointer: row.deliveryIdPointer,
      nextRunAt: row.nextRunAt,
      updatedAt: row.updatedAt,
    })
    .where('id', '=', row.id)
    .where('organizationId', '=', row.organizationId)
    .execute();
}

/** Replaces the trigger secret (rotation); the rest of the row is written by updateTriggerRow. */
export async function setTriggerSecret(db: Queryable, organizationId: string, id: string, secretCiphertext: string, now: Date, updatedBy: string): Promise<void> {
  await db.updateTable('agentTriggers').set({ secretCiphertext, updatedBy, updatedAt: now }).where('id', '=', id).where('organizationId', '=', organizationId).execute();
}

export async function deleteTriggerRow(db: Queryable, organizationId: string, agentId: string, id: string): Promise<boolean> {
  const res = await db
    .deleteFrom('agentTriggers')
    .where('organizationId', '=', organizationId)
    .where('agentId', '=', agentId)
    .where('id', '=', id)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/**
 * Claims a delivery id for the run `runId` about to be queued in the same transaction. `null`:
 * claimed now; a string: an earlier delivery with this id started that run.
 * A concurrent duplicate waits on the unique key until the first transaction ends.
 */
/**
 * Claims a delivery id for `runId`. Null when claimed; for an id already received, the run it
 * recorded (null when that delivery started none).
 */
export async function claimDelivery(db: Queryable, triggerId: string, deliveryKey: string, runId: string): Promise<{ runId: string | null } | null> {
  for (let attempt = 0; ; attempt++) {
    const inserted = await db
      .insertInto('triggerDeliveries')
      .values({ triggerId, deliveryKey, runId, receivedAt: new Date() })
      .onConflict((oc) => oc.columns(['triggerId', 'deliveryKey']).doNothing())
      .returning('runId')
      .executeTakeFirst();
    if (inserted) return null;
    const existing = await db
      .selectFrom('triggerDeliveries')
      .select('runId')
      .where('triggerId', '=', triggerId)
      .where('deliveryKey', '=', deliveryKey)
      .executeTakeFirst();
    if (existing) return existing;
    // Deleted between the two statements (retention cleanup): claim it again.
    if (attempt >= 2) throw new Error('Could not claim a trigger delivery id');
  }
}

/** The delivery started another run than the one it was claimed for (its alert's triage run), or none. */
export async function setDeliveryRun(db: Queryable, triggerId: string, deliveryKey: string, runId: string | null): Promise<void> {
  await db.updateTable('triggerDeliveries').set({ runId }).where('triggerId', '=', triggerId).where('deliveryKey', '=', deliveryKey).execute();
}

/** Moves `last_run_attempted_at` forward (never back: writers of several processes race). */
export async function markAttempted(db: Queryable, triggerId: string, at: Date): Promise<void> {
  await db
    .updateTable('agentTriggers')
    .set({ lastRunAttemptedAt: at })
    .where('id', '=', triggerId)
    .where((eb) => eb.or([eb('lastRunAttemptedAt', 'is', null), eb('lastRunAttemptedAt', '<', at)]))
    .execute();
}

export interface DueCronTrigger {
  id: string;
  organizationId: string;
  agentId: string;
  name: string;
  cronSchedule: string;
  cronTimezone: string | null;
  input: unknown;
  createAlert: boolean | null;
  alertMapping: Record<string, string> | null;
  routeAlerts: boolean;
  nextRunAt: Date;
  /** Whom the run acts as (see findTriggerForIntake). */
  runAs: string | null;
}

/** One due cron trigger, locked for this transaction; other schedulers skip it. */
export async function takeDueCronTrigger(db: Queryable, now: Date): Promise<DueCronTrigger | null> {
  const { rows } = await sql<DueCronTrigger>`
    SELECT t.id, t.organization_id AS "organizationId", t.agent_id AS "agentId", t.name, t.cron_schedule AS "cronSchedule",
           t.cron_timezone AS "cronTimezone", t.input, t.create_alert AS "createAlert", t.alert_mapping AS "alertMapping", t.route_alerts AS "routeAlerts",
           t.next_run_at AS "nextRunAt", ${RUN_AS} AS "runAs"
    FROM agent_triggers t JOIN agents a ON a.id = t.agent_id
    WHERE t.source = 'cron' AND t.status = 'active' AND t.enabled AND t.next_run_at <= ${now}
    ORDER BY t.next_run_at
    LIMIT 1
    FOR UPDATE OF t SKIP LOCKED`.execute(db);
  return rows[0] ?? null;
}

export async function advanceCronTrigger(db: Queryable, id: string, attemptedAt: Date, nextRunAt: Date): Promise<void> {
  await db.updateTable('agentTriggers').set({ lastRunAttemptedAt: attemptedAt, nextRunAt }).where('id', '=', id).execute();
}

export async function deleteDraftsCreatedBefore(db: Queryable, before: Date): Promise<number> {
  const res = await db.deleteFrom('agentTriggers').where('status', '=', 'draft').where('createdAt', '<', before).executeTakeFirst();
  return Number(res.numDeletedRows);
}

export async function deleteDeliveriesReceivedBefore(db: Queryable, before: Date): Promise<number> {
  const res = await db.deleteFrom('triggerDeliveries').where('receivedAt', '<', before).executeTakeFirst();
  return Number(res.numDeletedRows);
}

/**
 * An agent's saved triggers' settings (drafts are only a URL handed out), oldest first, as a jsonb array expression: what each agent
 * version records of its triggers (agents' agent-versions.repo.ts places it in the statement that
 * appends the version). Secrets are never in it.
 */
export function triggerSettingsSql(organizationId: string, agentId: string): RawBuilder<unknown> {
  return sql`coalesce((
    SELECT jsonb_agg(jsonb_build_object(
        'id', t.id, 'name', t.name, 'source', t.source, 'enabled', t.enabled,
        'cronSchedule', t.cron_schedule, 'input', t.input, 'createAlert', t.create_alert, 'routeAlerts', t.route_alerts,
        'alertMapping', t.alert_mapping, 'inputMapping', t.input_mapping, 'deliveryIdPointer', t.delivery_id_pointer,
        'additionalFields', t.additional_fields) ORDER BY t.created_at, t.id)
    FROM agent_triggers t WHERE t.agent_id = ${agentId} AND t.organization_id = ${organizationId} AND t.status = 'active'), '[]'::jsonb)`;
}

/** A run the trigger started ended `done`: the trigger's `lastRunSucceededAt` (triggers.subscriptions.ts, on `run.ended`). */
export async function stampTriggerRunSucceeded(tx: Queryable, triggerId: string): Promise<void> {
  await tx.updateTable('agentTriggers').set({ lastRunSucceededAt: new Date() }).where('id', '=', triggerId).execute();
}
