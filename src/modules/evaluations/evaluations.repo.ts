import { sql, type Selectable } from 'kysely';
import type { Database, Queryable } from '../../platform/db/database.js';
import type { EvaluationResultsTable, EvaluationsTable } from './evaluations.tables.js';
import { shadowOfCase, type Shadow } from './shadow.fns.js';
import type { CaseInputT } from './evaluations.schemas.js';

export type EvaluationRow = Selectable<EvaluationsTable>;
export type ResultRow = Omit<Selectable<EvaluationResultsTable>, 'shadow'> & { shadow: Shadow | null };

export interface ToolCallRecordT {
  toolName: string;
  args: unknown;
  effect: 'shadow' | 'recorded' | 'called' | 'refused' | 'approval';
  /** The call's place in the run's calls, from 1, taken when the model's call starts (records are appended when known, which may be later). */
  order?: number;
}

/** A case's calls in the order the agent made them (records written before `order` existed keep their stored order). */
export function inCallOrder(calls: ToolCallRecordT[]): ToolCallRecordT[] {
  return [...calls].sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
}

export async function findEvaluation(db: Queryable, organizationId: string, id: string, forUpdate = false): Promise<EvaluationRow | undefined> {
  let q = db.selectFrom('evaluations').selectAll().where('organizationId', '=', organizationId).where('id', '=', id);
  if (forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function listEvaluations(db: Queryable, organizationId: string, agentId: string, limit: number, offset: number) {
  const q = db.selectFrom('evaluations').where('organizationId', '=', organizationId).where('agentId', '=', agentId);
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function listResults(db: Queryable, evaluationIds: readonly string[]): Promise<ResultRow[]> {
  if (evaluationIds.length === 0) return [];
  return (await db.selectFrom('evaluationResults').selectAll().where('evaluationId', 'in', [...evaluationIds]).orderBy('position').execute()) as ResultRow[];
}

export async function findResult(db: Queryable, id: string, forUpdate = false): Promise<ResultRow | undefined> {
  let q = db.selectFrom('evaluationResults').selectAll().where('id', '=', id);
  if (forUpdate) q = q.forUpdate();
  return (await q.executeTakeFirst()) as ResultRow | undefined;
}

export async function findResultOfRun(db: Queryable, organizationId: string, runId: string, forUpdate = false): Promise<ResultRow | undefined> {
  let q = db.selectFrom('evaluationResults').selectAll().where('organizationId', '=', organizationId).where('runId', '=', runId);
  if (forUpdate) q = q.forUpdate();
  return (await q.executeTakeFirst()) as ResultRow | undefined;
}

/** A sandboxed tool call, appended in one statement (parallel calls of one step do not race). */
export async function appendToolCall(db: Queryable, resultId: string, call: ToolCallRecordT): Promise<void> {
  await sql`UPDATE evaluation_results SET recorded = recorded || ${JSON.stringify([call])}::jsonb WHERE id = ${resultId}`.execute(db);
}

/** The case's shadow as the case gives it, and no tool calls: what each attempt of the case's run starts from. */
export async function resetShadow(db: Queryable, row: ResultRow): Promise<Shadow | null> {
  const alert = (row.testCase as unknown as CaseInputT).alert;
  const shadow = alert ? shadowOfCase(alert, row.id, row.position, new Date()) : null;
  await db.updateTable('evaluationResults').set({ shadow: shadow ? JSON.stringify(shadow) : null, recorded: '[]' }).where('id', '=', row.id).where('status', '=', 'running').execute();
  return shadow;
}

/** Read-modify-write of a shadow alert under its row lock; `fn` throws to refuse (nothing written). */
export async function updateShadow<T>(db: Database, resultId: string, fn: (s: Shadow) => { shadow: Shadow; answer: T; changed?: boolean }): Promise<T> {
  return db.transaction().execute(async (tx) => {
    const row = await tx.selectFrom('evaluationResults').select('shadow').where('id', '=', resultId).forUpdate().executeTakeFirst();
    const shadow = row?.shadow as Shadow | null | undefined;
    if (!shadow) throw new Error('This evaluation case has no alert: give the agent an alert case to use the alert tools');
    const out = fn(shadow);
    if (out.changed) await tx.updateTable('evaluationResults').set({ shadow: JSON.stringify(out.shadow) }).where('id', '=', resultId).execute();
    return out.answer;
  });
}

/** The next `n` pending cases of an evaluation, locked (concurrent run ends claim different ones). */
export async function pendingResults(tx: Queryable, evaluationId: string, n: number) {
  if (n <= 0) return [];
  return tx
    .selectFrom('evaluationResults')
    .select(['id', 'organizationId', 'testCase'])
    .where('evaluationId', '=', evaluationId)
    .where('status', '=', 'pending')
    .orderBy('position')
    .limit(n)
    .forUpdate()
    .skipLocked()
    .execute();
}

export async function countActive(tx: Queryable, evaluationId: string): Promise<{ running: number; unfinished: number }> {
  const r = await tx
    .selectFrom('evaluationResults')
    .select([
      sql<number>`count(*) FILTER (WHERE status = 'running')::int`.as('running'),
      sql<number>`count(*) FILTER (WHERE status IN ('pending', 'running', 'judging'))::int`.as('unfinished'),
    ])
    .where('evaluationId', '=', evaluationId)
    .executeTakeFirstOrThrow();
  return r;
}

export async function readJudgeModel(db: Queryable, organizationId: string): Promise<string | null> {
  const row = await db.selectFrom('evaluationSettings').select('judgeModelAlias').where('organizationId', '=', organizationId).executeTakeFirst();
  return row?.judgeModelAlias ?? null;
}

export async function writeJudgeModel(db: Queryable, organizationId: string, alias: string | null): Promise<void> {
  await db
    .insertInto('evaluationSettings')
    .values({ organizationId, judgeModelAlias: alias, updatedAt: new Date() })
    .onConflict((oc) => oc.column('organizationId').doUpdateSet({ judgeModelAlias: alias, updatedAt: new Date() }))
    .execute();
}
