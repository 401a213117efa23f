import type { Queryable } from '../../../platform/db/database.js';

/**
 * A sync job's rows, as intel-ingest's sync job (sync.jobs.ts) reads and records them: the job,
 * its source and the source's state (validators, cursor, last status). One function per query;
 * the job decides when each runs (which transaction, in which order).
 */

export async function findSyncJob(db: Queryable, syncJobId: string) {
  return db.selectFrom('intelSyncJobs').selectAll().where('id', '=', syncJobId).executeTakeFirst();
}

export async function findSyncedSource(db: Queryable, sourceId: string) {
  return db.selectFrom('intelSources').selectAll().where('id', '=', sourceId).executeTakeFirst();
}

export async function findSourceState(db: Queryable, organizationId: string, sourceId: string) {
  return db.selectFrom('intelSourceStates').selectAll().where('organizationId', '=', organizationId).where('sourceId', '=', sourceId).executeTakeFirst();
}

/** The job of a source deleted since it was queued: failed, with the reason. */
export async function failSyncOfDeletedSource(db: Queryable, syncJobId: string): Promise<void> {
  await db.updateTable('intelSyncJobs').set({ status: 'failed', error: 'The source was deleted', finishedAt: new Date(), updatedAt: new Date() }).where('id', '=', syncJobId).execute();
}

export async function markSyncRunning(db: Queryable, syncJobId: string, startedAt: Date, attempt: number): Promise<void> {
  await db.updateTable('intelSyncJobs').set({ status: 'running', startedAt, attemptCount: attempt, updatedAt: new Date() }).where('id', '=', syncJobId).execute();
}

/** A streamed sync's counts so far, kept on its job. */
export async function recordSyncProgress(db: Queryable, syncJobId: string, stats: object): Promise<void> {
  await db.updateTable('intelSyncJobs').set({ stats: JSON.stringify({ ...stats, inProgress: true }), updatedAt: new Date() }).where('id', '=', syncJobId).execute();
}

/** A failed sync: the source's state says why, and the job goes back to pending (a retry follows) or fails. */
export async function recordSyncFailure(tx: Queryable, job: { id: string; organizationId: string; sourceId: string }, message: string, retry: boolean, now: Date): Promise<void> {
  const stateValues = { lastFetchedAt: now, lastStatus: 'error' as const, lastError: message, updatedAt: now };
  await tx
    .insertInto('intelSourceStates')
    .values({ organizationId: job.organizationId, sourceId: job.sourceId, ...stateValues })
    .onConflict((oc) => oc.columns(['organizationId', 'sourceId']).doUpdateSet(stateValues))
    .execute();
  await tx
    .updateTable('intelSyncJobs')
    .set({ status: retry ? 'pending' : 'failed', error: message, finishedAt: retry ? null : now, updatedAt: now })
    .where('id', '=', job.id)
    .execute();
}

/** What a successful fetch leaves for the next one (the connector's `FetchResult`). */
export interface FetchedState {
  status: 'ok' | 'not_modified';
  etag?: string | null;
  lastModified?: string | null;
  cursor?: Record<string, unknown>;
}

/** The outcome of a successful sync: the source's state (validators, cursor, status) and the job's. */
export async function recordSyncSuccess(tx: Queryable, job: { id: string; organizationId: string; sourceId: string }, result: FetchedState, state: { cursor: unknown } | undefined, stats: object): Promise<void> {
  const now = new Date();
  const stateValues = {
    lastFetchedAt: now,
    lastStatus: result.status,
    lastError: null,
    etag: result.etag ?? null,
    lastModified: result.lastModified ?? null,
    cursor: JSON.stringify(result.cursor ?? state?.cursor ?? {}),
    updatedAt: now,
  };
  await tx
    .insertInto('intelSourceStates')
    .values({ organizationId: job.organizationId, sourceId: job.sourceId, ...stateValues })
    .onConflict((oc) => oc.columns(['organizationId', 'sourceId']).doUpdateSet(stateValues))
    .execute();
  await tx.updateTable('intelSyncJobs').set({ status: 'succeeded', error: null, finishedAt: now, updatedAt: now, stats: JSON.stringify(stats) }).where('id', '=', job.id).execute();
}
