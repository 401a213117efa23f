import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../platform/db/database.js';
import { iso } from '../../platform/time.js';
import type { UserDto } from './users.schemas.js';

function baseQuery(db: Queryable, organizationId: string) {
  return db
    .selectFrom('users as u')
    .innerJoin('roles as r', 'r.id', 'u.roleId')
    .select(['u.id', 'u.organizationId', 'u.email', 'u.name', 'u.roleId', 'r.name as roleName', 'u.deactivatedAt', 'u.createdAt', 'u.updatedAt'])
    .where('u.organizationId', '=', organizationId);
}

type Row = Awaited<ReturnType<ReturnType<typeof baseQuery>['executeTakeFirstOrThrow']>>;

function toDto(row: Row): UserDto {
  return {
    id: row.id,
    organizationId: row.organizationId,
    email: row.email,
    name: row.name,
    roleId: row.roleId,
    roleName: row.roleName,
    deactivated: row.deactivatedAt !== null,
    deactivatedAt: iso(row.deactivatedAt),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

export async function findUser(db: Queryable, organizationId: string, id: string): Promise<UserDto | null> {
  const row = await baseQuery(db, organizationId).where('u.id', '=', id).executeTakeFirst();
  return row ? toDto(row) : null;
}

export async function listUsers(db: Queryable, organizationId: string, limit: number, offset: number) {
  const [rows, count] = await Promise.all([
    baseQuery(db, organizationId).orderBy('u.createdAt').orderBy('u.id').limit(limit).offset(offset).execute(),
    db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).where('organizationId', '=', organizationId).executeTakeFirstOrThrow(),
  ]);
  return { users: rows.map(toDto), totalCount: Number(count.n) };
}

export interface NewUser {
  organizationId: string;
  email: string;
  name: string;
  roleId: string;
}

/** The one insert of a user (POST /users and an organization's first Super Admin); answers its id. */
export async function insertUser(tx: Queryable, user: NewUser, now = new Date()): Promise<string> {
  const id = uuidv7();
  await tx.insertInto('users').values({ id, ...user, createdAt: now, updatedAt: now }).execute();
  return id;
}
