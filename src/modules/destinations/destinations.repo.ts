import type { Queryable } from '../../platform/db/database.js';

export interface DestinationRow {
  id: string;
  organizationId: string;
  name: string;
  type: string;
  config: Record<string, unknown>;
  tokenCiphertext: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = ['id', 'organizationId', 'name', 'type', 'config', 'tokenCiphertext', 'createdAt', 'updatedAt'] as const;

export function listDestinationRows(db: Queryable, organizationId: string): Promise<DestinationRow[]> {
  return db.selectFrom('outputDestinations').select(COLUMNS).where('organizationId', '=', organizationId).orderBy('createdAt').orderBy('id').execute();
}

export async function findDestinationRow(db: Queryable, organizationId: string, id: string, forUpdate = false): Promise<DestinationRow | null> {
  let q = db.selectFrom('outputDestinations').select(COLUMNS).where('organizationId', '=', organizationId).where('id', '=', id);
  if (forUpdate) q = q.forUpdate();
  return (await q.executeTakeFirst()) ?? null;
}

export async function insertDestinationRow(db: Queryable, row: DestinationRow): Promise<void> {
  await db.insertInto('outputDestinations').values({ ...row, config: JSON.stringify(row.config) }).execute();
}

export async function updateDestinationRow(db: Queryable, row: Omit<DestinationRow, 'createdAt'>): Promise<void> {
  await db
    .updateTable('outputDestinations')
    .set({ name: row.name, type: row.type, config: JSON.stringify(row.config), tokenCiphertext: row.tokenCiphertext, updatedAt: row.updatedAt })
    .where('id', '=', row.id)
    .where('organizationId', '=', row.organizationId)
    .execute();
}

export async function deleteDestinationRow(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const res = await db.deleteFrom('outputDestinations').where('organizationId', '=', organizationId).where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

export async function listDeliveries(db: Queryable, organizationId: string, destinationId: string, limit: number, offset: number) {
  const base = db.selectFrom('destinationDeliveries').where('organizationId', '=', organizationId).where('destinationId', '=', destinationId);
  const [rows, count] = await Promise.all([
    base
      .select(['id', 'destinationId', 'eventKind', 'status', 'attemptCount', 'responseStatus', 'error', 'createdAt', 'updatedAt'])
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, totalCount: Number(count.n) };
}
