import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../platform/db/database.js';
import { addJobs } from '../../platform/jobs/enqueue.js';
import type { DeclaredEvent } from './detect-match.fns.js';
import type { StoredBatchEvents } from './detect.tables.js';
import { declaredLogsource } from './events-body.fns.js';
import { drainEventsJob, drainKeyOf } from './detect.job-def.js';

/** Matched events kept per detection (the rolling sample of evidence). */
export const SAMPLE_SIZE = 50;

/**
 * A batch and its organization's drain job in one statement: a batch never exists without a job
 * that will take it. The job is keyed per organization: while it waits, more batches only touch
 * its row (graphile-worker's `add_jobs` upsert), so a burst of batches is drained by one job.
 * The events are written as one JSON text, kept as text (`json`, migration 0157): the batch is read
 * back whole once, so building and printing `jsonb` was PostgreSQL CPU for nothing.
 */
export async function insertBatch(db: Queryable, b: { organizationId: string; eventsJson: string; eventCount: number; triggerId: string | null; receivedAt: Date }): Promise<string> {
  const id = uuidv7();
  await sql`
    WITH b AS (
      INSERT INTO detect_event_batches (id, organization_id, events, event_count, received_at, trigger_id)
      VALUES (${id}, ${b.organizationId}, ${b.eventsJson}::json, ${b.eventCount}, ${b.receivedAt}, ${b.triggerId})
      RETURNING id
    )
    SELECT j.id FROM b, ${addJobs(drainEventsJob, { organizationId: b.organizationId }, { jobKey: drainKeyOf(b.organizationId) })} j`.execute(db);
  return id;
}

/**
 * A stored batch's events with their logsource. Two shapes: `[{logsource, event}]` (the full path,
 * and batches stored before the fast path), or `{logsource, events: [event, …]}` (NDJSON kept as
 * sent: an event's own `logsource` object, checked when it came in, wins over the batch's).
 */
export function declaredEventsOf(stored: StoredBatchEvents): DeclaredEvent[] {
  if (Array.isArray(stored)) return stored;
  const batch = stored.logsource;
  return stored.events.map((event) => ({ logsource: (event.logsource !== undefined && declaredLogsource(event.logsource, '')) || batch, event }));
}

/** The organization of a batch (a job enqueued before the drain names a batch, not an organization). */
export async function organizationOfBatch(db: Queryable, id: string): Promise<string | null> {
  const r = await db.selectFrom('detectEventBatches').select('organizationId').where('id', '=', id).executeTakeFirst();
  return r?.organizationId ?? null;
}

export interface ClaimedBatch {
  id: string;
  events: DeclaredEvent[];
  receivedAt: Date;
}

/**
 * The organization's oldest waiting batches, read and deleted by one statement inside the caller's
 * transaction: at most `maxBatches`, and no more after `maxEvents` events (the first batch always,
 * whatever its size). The rows stay locked until the transaction ends: a concurrent drain skips
 * them (`SKIP LOCKED`) rather than waiting or taking them twice, and a rollback (a crash
 * mid-drain) puts them back, claimable by the next attempt; a commit removes them together with
 * everything their matching wrote.
 */
export async function claimBatches(tx: Queryable, organizationId: string, limits: { maxBatches: number; maxEvents: number }): Promise<ClaimedBatch[]> {
  const { rows } = await sql<{ id: string; events: StoredBatchEvents; receivedAt: Date }>`
    WITH locked AS (
      SELECT id, event_count FROM detect_event_batches WHERE organization_id = ${organizationId}
      ORDER BY id LIMIT ${limits.maxBatches} FOR UPDATE SKIP LOCKED
    ), within AS (
      SELECT id FROM (SELECT id, sum(event_count) OVER (ORDER BY id) - event_count AS before FROM locked) x WHERE before < ${limits.maxEvents}
    )
    DELETE FROM detect_event_batches d USING within WHERE d.id = within.id
    RETURNING d.id, d.events, d.received_at AS "receivedAt"`.execute(tx);
  // uuidv7 ids sort by arrival: the batches are matched in the order they came (correlation windows).
  return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((r) => ({ id: r.id, receivedAt: r.receivedAt, events: declaredEventsOf(r.events) }));
}

export async function countMatches(tx: Queryable, organizationId: string, rows: Array<{ detectionId: string; matches: number }>, at: Date): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    INSERT INTO detect_match_days (organization_id, code_detection_id, day, matches, last_matched_at)
    SELECT ${organizationId}, r.id, (${at}::timestamptz AT TIME ZONE 'UTC')::date, r.n, ${at}
    FROM jsonb_to_recordset(${JSON.stringify(rows.map((r) => ({ id: r.detectionId, n: r.matches })))}::jsonb) AS r(id uuid, n bigint)
    ON CONFLICT (code_detection_id, day) DO UPDATE
      SET matches = detect_match_days.matches + EXCLUDED.matches, last_matched_at = greatest(detect_match_days.last_matched_at, EXCLUDED.last_matched_at)`.execute(tx);
}

/** New evidence in, and each of these detections' sample cut back to its latest SAMPLE_SIZE events. */
export async function keepSamples(
  tx: Queryable,
  organizationId: string,
  rows: Array<{ detectionId: string; ruleTitle: string; alertId: string | null; event: Record<string, unknown> }>,
  at: Date,
): Promise<void> {
  if (rows.length === 0) return;
  await tx
    .insertInto('detectMatches')
    .values(rows.map((r) => ({ id: uuidv7(), organizationId, codeDetectionId: r.detectionId, ruleTitle: r.ruleTitle, alertId: r.alertId, event: JSON.stringify(r.event), matchedAt: at })))
    .execute();
  const ids = [...new Set(rows.map((r) => r.detectionId))];
  await sql`
    DELETE FROM detect_matches d USING (
      SELECT id, row_number() OVER (PARTITION BY code_detection_id ORDER BY matched_at DESC, id DESC) AS rn
      FROM detect_matches WHERE code_detection_id = ANY(${ids}::uuid[])
    ) x WHERE d.id = x.id AND x.rn > ${SAMPLE_SIZE}`.execute(tx);
}

/** Serializes the workers that feed one correlation rule's windows (held until the transaction ends). */
export async function lockCorrelation(tx: Queryable, detectionId: string, correlation: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`detect-correlation:${detectionId}:${correlation}`}, 0))`.execute(tx);
}

export type WindowEntries = Array<{ ts: number; rule: number; event: Record<string, unknown> }>;

export async function loadWindows(tx: Queryable, detectionId: string, correlation: string, groupKeys: string[]): Promise<Map<string, WindowEntries>> {
  if (groupKeys.length === 0) return new Map();
  const rows = await tx
    .selectFrom('detectCorrelationWindows')
    .select(['groupKey', 'entries'])
    .where('codeDetectionId', '=', detectionId)
    .where('correlation', '=', correlation)
    .where('groupKey', 'in', groupKeys)
    .execute();
  return new Map(rows.map((r) => [r.groupKey, r.entries]));
}

export async function saveWindow(tx: Queryable, w: { organizationId: string; detectionId: string; correlation: string; groupKey: string; entries: WindowEntries }): Promise<void> {
  const last = Math.max(...w.entries.map((e) => e.ts));
  await tx
    .insertInto('detectCorrelationWindows')
    .values({ codeDetectionId: w.detectionId, organizationId: w.organizationId, correlation: w.correlation, groupKey: w.groupKey, entries: JSON.stringify(w.entries), lastEventAt: new Date(last) })
    .onConflict((oc) => oc.columns(['codeDetectionId', 'correlation', 'groupKey']).doUpdateSet((eb) => ({ entries: eb.ref('excluded.entries'), lastEventAt: eb.ref('excluded.lastEventAt') })))
    .execute();
}

export async function deleteWindow(tx: Queryable, detectionId: string, correlation: string, groupKey: string): Promise<void> {
  await tx.deleteFrom('detectCorrelationWindows').where('codeDetectionId', '=', detectionId).where('correlation', '=', correlation).where('groupKey', '=', groupKey).execute();
}

/** Windows whose latest event is older than any timespan Rampart keeps (a day by default): nothing can complete them. */
export async function pruneWindows(db: Queryable, olderThan: Date): Promise<number> {
  const r = await db.deleteFrom('detectCorrelationWindows').where('lastEventAt', '<', olderThan).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Per detection, its matches since `since` (a UTC day) and its latest match. */
export async function matchTotals(db: Queryable, organizationId: string, since: string) {
  const { rows } = await sql<{ id: string; matches: string; last: Date }>`
    SELECT code_detection_id AS id, sum(matches)::text AS matches, max(last_matched_at) AS last
    FROM detect_match_days WHERE organization_id = ${organizationId} AND day >= ${since}::date
    GROUP BY code_detection_id`.execute(db);
  return new Map(rows.map((r) => [r.id, { matches: Number(r.matches), lastMatchedAt: r.last }]));
}

export async function matchDays(db: Queryable, detectionId: string, since: string) {
  const { rows } = await sql<{ day: string; matches: string; last: Date }>`
    SELECT day::text AS day, matches::text AS matches, last_matched_at AS last
    FROM detect_match_days WHERE code_detection_id = ${detectionId} AND day >= ${since}::date ORDER BY day`.execute(db);
  return rows;
}

export async function lastMatch(db: Queryable, detectionId: string): Promise<Date | null> {
  const r = await db.selectFrom('detectMatchDays').select((eb) => eb.fn.max('lastMatchedAt').as('last')).where('codeDetectionId', '=', detectionId).executeTakeFirst();
  return (r?.last as Date | null | undefined) ?? null;
}

export async function samples(db: Queryable, detectionId: string, limit: number) {
  return db
    .selectFrom('detectMatches')
    .select(['ruleTitle', 'alertId', 'event', 'matchedAt'])
    .where('codeDetectionId', '=', detectionId)
    .orderBy('matchedAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
