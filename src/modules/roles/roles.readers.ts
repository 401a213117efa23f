import type { Queryable } from '../../platform/db/database.js';

/** The roles of an organization among `ids`, with their permissions (identity providers map groups to them). */
export async function rolesOfOrganization(db: Queryable, organizationId: string, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return db.selectFrom('roles').select(['id', 'name', 'permissions']).where('organizationId', '=', organizationId).where('id', 'in', ids).execute();
}
