import { sql, type Selectable } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';
import { redactSecrets } from '../../platform/outbound/url-secrets.js';
import type { DestinationDeliveriesTable } from './delivery.tables.js';
import type { DestinationRow } from '../destinations/index.js';

export type DeliveryRow = Selectable<DestinationDeliveriesTable>;
export type DeliveryStatus = 'pending' | 'sending' | 'succeeded' | 'retrying' | 'failed' | 'skipped';
/** An attempt's outcome is the status it left its delivery in. */
export type AttemptOutcome = 'succeeded' | 'retrying' | 'failed' | 'skipped';

export interface NewDelivery {
  id: string;
  organizationId: string;
  destinationId: string;
  destinationName: string;
  destinationType: string;
  eventKind: string;
  eventId: string;
  payload: Record<string, unknown>;
  runId: string | null;
  createdAt: Date;
}

/** Inserts a pending delivery. false: the run's output was already queued for this destination. */
export async function insertDelivery(db: Queryable, d: NewDelivery): Promise<boolean> {
  const r = await db
    .insertInto('destinationDeliveries')
    .values({ ...d, status: 'pending', responseStatus: null, error: null, payload: JSON.stringify(d.payload), updatedAt: d.createdAt })
    // One delivery per (destination, run) and per (destination, `alert.created` event): a retried
    // run completion, or the recovery of an alert event a crash may have lost, never queues twice.
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return r !== undefined;
}

/** What an attempt reads of its destination. */
export type ClaimedDestination = Pick<DestinationRow, 'id' | 'organizationId' | 'name' | 'type' | 'config' | 'tokenCiphertext' | 'signingSecretCiphertext' | 'previousSigningSecretCiphertext' | 'previousSigningSecretExpiresAt'>;

/** What a later claim writes on an attempt that was still in flight: its worker died. */
export const INTERRUPTED_ATTEMPT_ERROR =
  'The worker stopped during this attempt (crashed or lost): whether the receiver got it is unknown; the next attempt sends the same idempotency id';

/**
 * Takes a delivery for an attempt, in one statement (one round trip: this runs for every
 * attempt): `sending`, one more attempt; its destination (null when deleted) read alongside;
 * and, when there is a destination to send to, the attempt recorded *before* anything is sent
 * (outcome `sending`, completed by `recordAttempt`), so a crash mid-send leaves it in the log.
 * A row already `sending` is taken again: its worker died mid-attempt and the job came back
 * (the receiver sees the same idempotency id); that attempt, still `sending`, becomes
 * `interrupted`. A `retrying` row is taken only once its time has come.
 */
export async function claimDelivery(db: Queryable, id: string, now: Date, attemptId: string): Promise<{ row: DeliveryRow; destination: ClaimedDestination | null } | undefined> {
  const r = await db
    .with('c', (qc) =>
      qc
        .updateTable('destinationDeliveries')
        .set((eb) => ({
          status: 'sending',
          attemptCount: eb('attemptCount', '+', 1),
          firstAttemptAt: eb.fn.coalesce('firstAttemptAt', sql<Date>`${now}`),
          lastAttemptAt: now,
          updatedAt: now,
        }))
        .where('id', '=', id)
        .where((eb) => eb.or([eb('status', 'in', ['pending', 'sending']), eb.and([eb('status', '=', 'retrying'), eb('nextAttemptAt', '<=', new Date(now.getTime() + 1_000))])]))
        .returningAll(),
    )
    .with('cut', (qc) =>
      qc
        .updateTable('destinationDeliveryAttempts')
        .set({ outcome: 'interrupted', error: INTERRUPTED_ATTEMPT_ERROR })
        .where('deliveryId', 'in', qc.selectFrom('c').select('c.id'))
        .where('outcome', '=', 'sending'),
    )
    .with('a', (qc) =>
      qc.insertInto('destinationDeliveryAttempts').columns(['id', 'organizationId', 'deliveryId', 'destinationId', 'attempt', 'outcome', 'startedAt']).expression(
        qc
          .selectFrom('c')
          .innerJoin('outputDestinations as d', (j) => j.onRef('d.id', '=', 'c.destinationId').onRef('d.organizationId', '=', 'c.organizationId'))
          .select((eb) => [sql<string>`${attemptId}::uuid`.as('id'), 'c.organizationId', 'c.id', 'c.destinationId', 'c.attemptCount', sql<string>`'sending'`.as('outcome'), eb.val(now).as('startedAt')]),
      ),
    )
    .selectFrom('c')
    .leftJoin('outputDestinations as d', (j) => j.onRef('d.id', '=', 'c.destinationId').onRef('d.organizationId', '=', 'c.organizationId'))
    .selectAll('c')
    .select(['d.id as dId', 'd.name as dName', 'd.type as dType', 'd.config as dConfig', 'd.tokenCiphertext as dToken', 'd.signingSecretCiphertext as dSigning', 'd.previousSigningSecretCiphertext as dPrevSigning', 'd.previousSigningSecretExpiresAt as dPrevSigningUntil'])
    .executeTakeFirst();
  if (!r) return undefined;
  const { dId, dName, dType, dConfig, dToken, dSigning, dPrevSigning, dPrevSigningUntil, ...row } = r;
  const destination = dId
    ? { id: dId, organizationId: row.organizationId, name: dName!, type: dType!, config: dConfig!, tokenCiphertext: dToken ?? null, signingSecretCiphertext: dSigning ?? null, previousSigningSecretCiphertext: dPrevSigning ?? null, previousSigningSecretExpiresAt: dPrevSigningUntil ?? null }
    : null;
  return { row: row as DeliveryRow, destination };
}

export interface AttemptRecord {
  /** The id `claimDelivery` recorded the attempt under. */
  id: string;
  organizationId: string;
  deliveryId: string;
  outcome: AttemptOutcome;
  responseStatus: number | null;
  responseExcerpt: string | null;
  error: string | null;
  durationMs: number;
}

/** The attempt's outcome and the delivery's new state, in one statement (atomic on its own). */
export async function recordAttempt(db: Queryable, a: AttemptRecord, next: { nextAttemptAt: Date | null; progress?: Record<string, unknown> }): Promise<void> {
  const finished = a.outcome !== 'retrying';
  const now = new Date();
  await db
    .with('a', (qc) =>
      qc
        .updateTable('destinationDeliveryAttempts')
        .set({ outcome: a.outcome, responseStatus: a.responseStatus, responseExcerpt: a.responseExcerpt, error: a.error, durationMs: a.durationMs })
        .where('id', '=', a.id)
        .where('deliveryId', '=', a.deliveryId),
    )
    .updateTable('destinationDeliveries')
    .set({
      status: a.outcome,
      responseStatus: a.responseStatus,
      responseExcerpt: a.responseExcerpt,
      error: a.error,
      nextAttemptAt: next.nextAttemptAt,
      finishedAt: finished ? now : null,
      updatedAt: now,
      ...(next.progress ? { progress: JSON.stringify(next.progress) } : {}),
    })
    .where('id', '=', a.deliveryId)
    .where('organizationId', '=', a.organizationId)
    .execute();
}

/**
 * A delivery whose job failed for good while it was `sending` (its worker died on every
 * attempt): `failed` with the reason, its attempt in flight `interrupted`. Other states are
 * left alone (the job's own attempts recorded them).
 */
export async function failAbandonedDelivery(db: Queryable, id: string, reason: string): Promise<boolean> {
  const now = new Date();
  const r = await db
    .with('cut', (qc) =>
      qc.updateTable('destinationDeliveryAttempts').set({ outcome: 'interrupted', error: INTERRUPTED_ATTEMPT_ERROR }).where('deliveryId', '=', id).where('outcome', '=', 'sending'),
    )
    .updateTable('destinationDeliveries')
    .set({ status: 'failed', error: reason, nextAttemptAt: null, finishedAt: now, updatedAt: now })
    .where('id', '=', id)
    .where('status', 'in', ['pending', 'sending'])
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** Ends a delivery without an attempt (its destination is gone). */
export async function skipDelivery(db: Queryable, row: DeliveryRow, reason: string): Promise<void> {
  await db
    .updateTable('destinationDeliveries')
    .set({ status: 'skipped', error: reason, nextAttemptAt: null, finishedAt: new Date(), updatedAt: new Date() })
    .where('id', '=', row.id)
    .where('organizationId', '=', row.organizationId)
    .execute();
}

export async function listDeliveryRows(db: Queryable, organizationId: string, destinationId: string, limit: number, offset: number, statuses?: readonly string[]) {
  let base = db.selectFrom('destinationDeliveries').where('organizationId', '=', organizationId).where('destinationId', '=', destinationId);
  if (statuses?.length) base = base.where('status', 'in', statuses);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, totalCount: Number(count.n) };
}

/** The deliveries of one run's output (one per destination), oldest first: what the run detail shows (errors redacted). */
export async function deliveriesOfRun(db: Queryable, organizationId: string, runId: string) {
  const rows = await db
    .selectFrom('destinationDeliveries')
    .select(['id', 'destinationId', 'destinationName', 'destinationType', 'eventKind', 'status', 'attemptCount', 'error', 'createdAt', 'lastAttemptAt', 'nextAttemptAt', 'finishedAt'])
    .where('organizationId', '=', organizationId)
    .where('runId', '=', runId)
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...r, error: redactSecrets(r.error) }));
}

export async function hasDeliveries(db: Queryable, organizationId: string, destinationId: string): Promise<boolean> {
  const r = await db.selectFrom('destinationDeliveries').select('id').where('organizationId', '=', organizationId).where('destinationId', '=', destinationId).limit(1).executeTakeFirst();
  return r !== undefined;
}

export function attemptsOf(db: Queryable, organizationId: string, deliveryIds: readonly string[]) {
  if (deliveryIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('destinationDeliveryAttempts')
    .selectAll()
    .where('organizationId', '=', organizationId)
    .where('deliveryId', 'in', deliveryIds)
    .orderBy('deliveryId')
    .orderBy('attempt')
    .execute();
}

export async function findDelivery(db: Queryable, organizationId: string, destinationId: string, id: string, forUpdate = false): Promise<DeliveryRow | undefined> {
  let q = db.selectFrom('destinationDeliveries').selectAll().where('organizationId', '=', organizationId).where('destinationId', '=', destinationId).where('id', '=', id);
  if (forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

/**
 * Back to `pending` for another round of attempts (redeliver): the same event id, a fresh send
 * (Slack posts to every channel again). `roundStart` keeps the retry budget per round.
 */
export async function resetForRedelivery(db: Queryable, row: DeliveryRow): Promise<void> {
  await db
    .updateTable('destinationDeliveries')
    .set({ status: 'pending', error: null, nextAttemptAt: null, finishedAt: null, progress: JSON.stringify({ roundStart: row.attemptCount }), updatedAt: new Date() })
    .where('id', '=', row.id)
    .where('organizationId', '=', row.organizationId)
    .execute();
}

/** The latest attempts of a destination, newest first (its health). */
export function latestAttempts(db: Queryable, organizationId: string, destinationId: string, limit: number) {
  return db
    .selectFrom('destinationDeliveryAttempts')
    .select(['outcome', 'error', 'startedAt'])
    .where('organizationId', '=', organizationId)
    .where('destinationId', '=', destinationId)
    // In flight, or cut off by a crash: says nothing about the receiver's health.
    .where('outcome', 'not in', ['sending', 'interrupted'])
    .orderBy('startedAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export async function countByStatus(db: Queryable): Promise<Array<{ status: string; n: number }>> {
  const { rows } = await sql<{ status: string; n: number }>`SELECT status, count(*)::int AS n FROM destination_deliveries GROUP BY status`.execute(db);
  return rows;
}
