import { uuidv7 } from 'uuidv7';
import type { Selectable } from 'kysely';
import type { Database, Queryable } from '../../platform/db/database.js';
import type { CoverageLayersTable } from './coverage.tables.js';
import type { DeclaredTechnique } from './navigator.fns.js';
import type { NavigatorLayerDto } from './navigator.schemas.js';

/** Imported Navigator layers (declared external coverage), one per organization and name. */
export const listLayers = (db: Database, organizationId: string) =>
  db.selectFrom('coverageLayers').selectAll().where('organizationId', '=', organizationId).orderBy('name').execute();

export const findLayer = (db: Database, organizationId: string, id: string) =>
  db.selectFrom('coverageLayers').selectAll().where('organizationId', '=', organizationId).where('id', '=', id.toLowerCase()).executeTakeFirst();

/** Insert, or replace the layer of the same name (re-import). */
export async function upsertLayer(q: Queryable, v: { organizationId: string; userId: string | null; layer: NavigatorLayerDto; techniques: DeclaredTechnique[] }): Promise<{ row: Selectable<CoverageLayersTable>; replaced: boolean }> {
  const now = new Date();
  const row = await q
    .insertInto('coverageLayers')
    .values({ id: uuidv7(), organizationId: v.organizationId, name: v.layer.name, description: v.layer.description ?? '', techniques: JSON.stringify(v.techniques), layer: JSON.stringify(v.layer), createdBy: v.userId, createdAt: now, updatedAt: now })
    .onConflict((oc) => oc.columns(['organizationId', 'name']).doUpdateSet((eb) => ({ description: eb.ref('excluded.description'), techniques: eb.ref('excluded.techniques'), layer: eb.ref('excluded.layer'), updatedAt: now })))
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, replaced: row.createdAt.getTime() !== now.getTime() };
}

export const deleteLayer = (q: Queryable, organizationId: string, id: string) =>
  q.deleteFrom('coverageLayers').where('organizationId', '=', organizationId).where('id', '=', id).execute();
