import { sql, type Selectable } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../platform/db/database.js';
import type { EvaluationCasesTable, EvaluationDatasetsTable } from './evaluations.tables.js';
import type { CaseInputT } from './evaluations.schemas.js';

export type DatasetRow = Selectable<EvaluationDatasetsTable>;
export type CaseRow = Selectable<EvaluationCasesTable>;

export async function findDataset(db: Queryable, organizationId: string, id: string, forUpdate = false): Promise<DatasetRow | undefined> {
  let q = db.selectFrom('evaluationDatasets').selectAll().where('organizationId', '=', organizationId).where('id', '=', id);
  if (forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function datasetNameTaken(db: Queryable, organizationId: string, name: string, exceptId: string | null): Promise<boolean> {
  let q = db.selectFrom('evaluationDatasets').select('id').where('organizationId', '=', organizationId).where('name', '=', name);
  if (exceptId) q = q.where('id', '!=', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

/** Datasets with their case counts per label (one query). */
export async function listDatasets(db: Queryable, organizationId: string, limit: number, offset: number) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('evaluationDatasets as d')
      .selectAll('d')
      .select(labelCountsSql.as('labels'))
      .where('d.organizationId', '=', organizationId)
      .orderBy('d.createdAt', 'desc')
      .orderBy('d.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    db.selectFrom('evaluationDatasets').select((eb) => eb.fn.countAll<string>().as('n')).where('organizationId', '=', organizationId).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export interface LabelCounts {
  escalate: number;
  false_positive: number;
  benign: number;
  unlabelled: number;
}

const labelCountsSql = sql<LabelCounts>`(SELECT jsonb_build_object(
    'escalate', count(*) FILTER (WHERE c.expected->>'disposition' = 'escalate'),
    'false_positive', count(*) FILTER (WHERE c.expected->>'disposition' = 'false_positive'),
    'benign', count(*) FILTER (WHERE c.expected->>'disposition' = 'benign'),
    'unlabelled', count(*) FILTER (WHERE c.expected->>'disposition' IS NULL))
  FROM evaluation_cases c WHERE c.dataset_id = d.id)`;

export async function labelCounts(db: Queryable, datasetId: string): Promise<LabelCounts> {
  const r = await db.selectFrom('evaluationDatasets as d').select(labelCountsSql.as('labels')).where('d.id', '=', datasetId).executeTakeFirstOrThrow();
  return r.labels;
}

export async function listCases(db: Queryable, datasetId: string): Promise<CaseRow[]> {
  // jsonb read as text: the CamelCasePlugin must not rename the keys of a case's payload.
  const rows = await db
    .selectFrom('evaluationCases')
    .select(['id', 'organizationId', 'datasetId', 'position', 'tags', 'sourceAlertId', 'createdAt'])
    .select([sql<string | null>`alert::text`.as('alertText'), sql<string | null>`input::text`.as('inputText'), sql<string>`expected::text`.as('expectedText')])
    .where('datasetId', '=', datasetId)
    .orderBy('position')
    .execute();
  return rows.map(({ alertText, inputText, expectedText, ...r }) => ({
    ...r,
    alert: alertText === null ? null : (JSON.parse(alertText) as Record<string, unknown>),
    input: inputText === null ? null : (JSON.parse(inputText) as unknown),
    expected: JSON.parse(expectedText) as Record<string, unknown>,
  }));
}

export async function deleteCases(tx: Queryable, datasetId: string): Promise<void> {
  await tx.deleteFrom('evaluationCases').where('datasetId', '=', datasetId).execute();
}

/**
 * Appends cases after the dataset's last; a case from an alert already in the dataset is skipped.
 * Answers how many were added and the source alerts of those added (to name the skipped ones).
 */
export async function appendCases(
  tx: Queryable,
  organizationId: string,
  datasetId: string,
  cases: ReadonlyArray<CaseInputT & { sourceAlertId?: string | null }>,
): Promise<{ added: number; addedAlertIds: Set<string> }> {
  const addedAlertIds = new Set<string>();
  if (cases.length === 0) return { added: 0, addedAlertIds };
  const last = await tx.selectFrom('evaluationCases').select((eb) => eb.fn.max('position').as('p')).where('datasetId', '=', datasetId).executeTakeFirst();
  const start = (last?.p ?? 0) + 1;
  const now = new Date();
  const rows = cases.map((c, i) => ({
    id: uuidv7(),
    organizationId,
    datasetId,
    position: start + i,
    alert: c.alert ? JSON.stringify(c.alert) : null,
    input: c.alert ? null : JSON.stringify(c.input ?? null),
    expected: JSON.stringify(c.expected),
    tags: c.tags,
    sourceAlertId: c.sourceAlertId ?? null,
    createdAt: now,
  }));
  let added = 0;
  // Chunks keep each statement under PostgreSQL's parameter limit.
  for (let i = 0; i < rows.length; i += 500) {
    const r = await tx
      .insertInto('evaluationCases')
      .values(rows.slice(i, i + 500))
      .onConflict((oc) => oc.columns(['datasetId', 'sourceAlertId']).where('sourceAlertId', 'is not', null).doNothing())
      .returning(['id', 'sourceAlertId'])
      .execute();
    added += r.length;
    for (const x of r) if (x.sourceAlertId) addedAlertIds.add(x.sourceAlertId);
  }
  return { added, addedAlertIds };
}

export async function touchDataset(tx: Queryable, id: string): Promise<void> {
  await tx.updateTable('evaluationDatasets').set({ updatedAt: new Date() }).where('id', '=', id).execute();
}
