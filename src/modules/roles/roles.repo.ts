import { uuidv7 } from 'uuidv7';
import { SYSTEM_ROLES } from '../../platform/auth/permissions.js';
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

/** A new organization's system roles (organizations' bootstrap); answers their ids by name. */
export async function insertSystemRoles(tx: Queryable, organizationId: string, now: Date): Promise<Map<string, string>> {
  const rows = SYSTEM_ROLES.map((r) => ({
    id: uuidv7(),
    organizationId,
    name: r.name,
    description: r.description,
    permissions: [...r.permissions],
    isSystem: true,
    createdAt: now,
    updatedAt: now,
  }));
  await tx.insertInto('roles').values(rows).execute();
  return new Map(rows.map((r) => [r.name, r.id]));
}
