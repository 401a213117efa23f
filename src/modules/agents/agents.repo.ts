import type { Selectable } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';
import type { AgentsTable } from '../../platform/db/schema.js';

export type AgentRow = Selectable<AgentsTable>;

export async function findAgentRow(db: Queryable, organizationId: string, id: string, forUpdate = false): Promise<AgentRow | undefined> {
  let q = db.selectFrom('agents').selectAll().where('organizationId', '=', organizationId).where('id', '=', id);
  if (forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function listAgentRows(db: Queryable, organizationId: string, limit: number, offset: number): Promise<{ rows: AgentRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    db.selectFrom('agents').selectAll().where('organizationId', '=', organizationId).orderBy('createdAt').orderBy('id').limit(limit).offset(offset).execute(),
    db.selectFrom('agents').select((eb) => eb.fn.countAll<number>().as('n')).where('organizationId', '=', organizationId).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}
