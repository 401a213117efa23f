import type { Queryable } from '../../platform/db/database.js';
import { iso } from '../../platform/time.js';
import type { RoleDto } from './roles.schemas.js';

const COLUMNS = ['id', 'organizationId', 'name', 'description', 'permissions', 'isSystem', 'createdAt', 'updatedAt'] as const;

function toDto(r: { id: string; organizationId: string; name: string; description: string; permissions: string[]; isSystem: boolean; createdAt: Date; updatedAt: Date }): RoleDto {
  return { ...r, permissions: [...r.permissions].sort(), createdAt: iso(r.createdAt), updatedAt: iso(r.updatedAt) };
}

export async function listRoles(db: Queryable, organizationId: string): Promise<RoleDto[]> {
  const rows = await db.selectFrom('roles').select(COLUMNS).where('organizationId', '=', organizationId).orderBy('isSystem', 'desc').orderBy('name').execute();
  return rows.map(toDto);
}

export async function findRole(db: Queryable, organizationId: string, id: string, forUpdate = false): Promise<RoleDto | null> {
  let q = db.selectFrom('roles').select(COLUMNS).where('organizationId', '=', organizationId).where('id', '=', id);
  if (forUpdate) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  return row ? toDto(row) : null;
}
