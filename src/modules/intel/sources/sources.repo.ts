import { sql, type Insertable, type Updateable } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../../platform/db/database.js';
import { seedFingerprint, type ReferenceSeed } from '../../../platform/db/reference-seeds.js';
import type { IntelSourcesTable } from '../intel.tables.js';
import { BUILTIN_SOURCES } from './builtin-sources.js';

/** A source as seen by one organization: the source row, its state there and its latest job. */
export interface SourceView {
  id: string;
  organizationId: string | null;
  builtinKey: string | null;
  name: string;
  displayName: string;
  description: string;
  kind: 'rss' | 'api';
  apiType: 'misp' | 'misp_feed' | 'taxii' | 'osv' | 'cisa_kev' | 'epss' | 'nvd' | 'csaf' | null;
  feedUrl: string | null;
  serverUrl: string | null;
  collectionId: string | null;
  authType: 'bearer' | 'basic' | 'header' | null;
  username: string | null;
  apiKeyCiphertext: string | null;
  sourceEnabled: boolean;
  scheduleCron: string;
  maxEntries: number;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
  subscriptionEnabled: boolean | null;
  lastFetchedAt: Date | null;
  lastStatus: 'ok' | 'not_modified' | 'error' | null;
  lastError: string | null;
  itemCountLast24h: number;
  jobId: string | null;
  jobStatus: 'pending' | 'running' | 'succeeded' | 'failed' | null;
  jobQueuedAt: Date | null;
  jobStartedAt: Date | null;
  jobFinishedAt: Date | null;
  jobUpdatedAt: Date | null;
  jobAttemptCount: number | null;
  jobError: string | null;
}

function viewQuery(db: Queryable, organizationId: string) {
  return db
    .selectFrom('intelSources as s')
    .leftJoin('intelSourceStates as st', (j) => j.onRef('st.sourceId', '=', 's.id').on('st.organizationId', '=', organizationId))
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('intelSyncJobs as j')
          .select(['j.id', 'j.status', 'j.queuedAt', 'j.startedAt', 'j.finishedAt', 'j.updatedAt', 'j.attemptCount', 'j.error'])
          .whereRef('j.sourceId', '=', 's.id')
          .where('j.organizationId', '=', organizationId)
          .orderBy('j.queuedAt', 'desc')
          .limit(1)
          .as('job'),
      (j) => j.onTrue(),
    )
    .selectAll('s')
    .select([
      'st.subscriptionEnabled',
      'st.lastFetchedAt',
      'st.lastStatus',
      'st.lastError',
      'job.id as jobId',
      'job.status as jobStatus',
      'job.queuedAt as jobQueuedAt',
      'job.startedAt as jobStartedAt',
      'job.finishedAt as jobFinishedAt',
      'job.updatedAt as jobUpdatedAt',
      'job.attemptCount as jobAttemptCount',
      'job.error as jobError',
      sql<number>`(SELECT count(*)::int FROM intel_items i WHERE i.source_id = s.id AND i.organization_id = ${organizationId} AND i.created_at > now() - interval '24 hours')`.as('itemCountLast24h'),
    ])
    .where((eb) => eb.or([eb('s.organizationId', '=', organizationId), eb('s.organizationId', 'is', null)]));
}

export async function listSourceViews(db: Queryable, organizationId: string): Promise<SourceView[]> {
  return (await viewQuery(db, organizationId).orderBy('s.organizationId', 'desc').orderBy('s.createdAt').orderBy('s.id').execute()) as SourceView[];
}

export async function findSourceView(db: Queryable, organizationId: string, id: string): Promise<SourceView | null> {
  return ((await viewQuery(db, organizationId).where('s.id', '=', id).executeTakeFirst()) as SourceView | undefined) ?? null;
}

export async function insertSource(db: Queryable, row: Insertable<IntelSourcesTable>) {
  await db.insertInto('intelSources').values(row).execute();
}

export async function updateSource(db: Queryable, id: string, changes: Omit<Updateable<IntelSourcesTable>, 'id' | 'organizationId' | 'builtinKey' | 'createdAt'>) {
  await db.updateTable('intelSources').set({ ...changes, updatedAt: new Date() }).where('id', '=', id).execute();
}

/** Creates the state row on first use; `subscriptionEnabled` defaults per source. */
export async function upsertSubscription(db: Queryable, organizationId: string, sourceId: string, enabled: boolean) {
  await db
    .insertInto('intelSourceStates')
    .values({ organizationId, sourceId, subscriptionEnabled: enabled, updatedAt: new Date() })
    .onConflict((oc) => oc.columns(['organizationId', 'sourceId']).doUpdateSet({ subscriptionEnabled: enabled, updatedAt: new Date() }))
    .execute();
}

/** Built-in sources are rows too (organization_id null), upserted by key at every start. */
export async function seedBuiltinSources(db: Queryable): Promise<void> {
  const now = new Date();
  for (const b of BUILTIN_SOURCES) {
    const values = {
      name: b.name,
      displayName: b.displayName,
      description: b.description,
      kind: b.kind,
      apiType: b.apiType ?? null,
      feedUrl: b.feedUrl ?? null,
      serverUrl: b.serverUrl ?? null,
      collectionId: b.collectionId ?? null,
      scheduleCron: b.scheduleCron,
      maxEntries: b.maxEntries,
    };
    await db
      .insertInto('intelSources')
      .values({ id: uuidv7(), organizationId: null, builtinKey: b.key, ...values, authType: null, username: null, apiKeyCiphertext: null, createdBy: null, createdAt: now, updatedAt: now })
      .onConflict((oc) => oc.column('builtinKey').doUpdateSet(values))
      .execute();
  }
}

/**
 * The built-in sources as a reference seed (src/seed.ts): upserted at a start only when
 * BUILTIN_SOURCES changed since the last one applied. Bump the version when seedBuiltinSources
 * writes the same data differently (a new column).
 */
export const builtinSourcesSeed: ReferenceSeed = { name: 'intel.builtin-sources', fingerprint: seedFingerprint(1, BUILTIN_SOURCES), apply: seedBuiltinSources };

export function defaultSubscription(view: Pick<SourceView, 'builtinKey'>): boolean {
  if (!view.builtinKey) return true;
  return BUILTIN_SOURCES.find((b) => b.key === view.builtinKey)?.defaultSubscribed ?? false;
}
