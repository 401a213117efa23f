import { sql } from 'kysely';
import type { Queryable } from '../db/database.js';
import type { Actor } from './actor.js';
import { PERMISSIONS, SUPER_ADMIN_ROLE } from './permissions.js';
import { ConflictError, requirePermissions } from '../http/errors.js';

/**
 * Who may act on whom. Nobody acts on a user — changing their role, deactivating or
 * reactivating them, creating or revoking their keys — who holds a permission the actor lacks
 * (403 naming what is missing): a user manager cannot disarm a stronger user. And an
 * organization always keeps a working Super Admin: its last active Super Admin can never be
 * demoted, deactivated or left without a working key (409 saying why).
 */
export async function requireAuthorityOver(db: Queryable, actor: Actor, targetUserId: string): Promise<void> {
  const target = await db
    .selectFrom('users as u')
    .innerJoin('roles as r', 'r.id', 'u.roleId')
    .select('r.permissions')
    .where('u.id', '=', targetUserId)
    .where('u.organizationId', '=', actor.organizationId)
    .executeTakeFirst();
  if (target) requirePermissions(actor, ...PERMISSIONS.filter((p) => target.permissions.includes(p)));
}

/** Active users of the organization whose role is the system Super Admin role (locked: one change at a time). */
async function activeSuperAdmins(db: Queryable, organizationId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('users as u')
    .innerJoin('roles as r', 'r.id', 'u.roleId')
    .select('u.id')
    .where('u.organizationId', '=', organizationId)
    .where('r.isSystem', '=', true)
    .where('r.name', '=', SUPER_ADMIN_ROLE)
    .where('u.deactivatedAt', 'is', null)
    .forUpdate('u')
    .execute();
  return rows.map((r) => r.id);
}

/** 409 when `userId` is the organization's last active Super Admin and the change would take that away. */
export async function requireAnotherSuperAdmin(db: Queryable, organizationId: string, userId: string, change: 'demote' | 'deactivate'): Promise<void> {
  const admins = await activeSuperAdmins(db, organizationId);
  if (admins.length === 1 && admins[0] === userId) {
    throw new ConflictError(
      `This user is the organization's last active Super Admin and cannot be ${change === 'demote' ? 'given another role' : 'deactivated'}; make another user Super Admin first`,
    );
  }
}

/** 409 when revoking `keyId` would leave the organization's last active Super Admin without a working key. */
export async function requireWorkingSuperAdminKey(db: Queryable, organizationId: string, keyOwnerId: string, keyId: string): Promise<void> {
  const admins = await activeSuperAdmins(db, organizationId);
  if (!admins.includes(keyOwnerId)) return;
  const others = await db
    .selectFrom('apiKeys')
    .select('id')
    .where('userId', 'in', admins)
    .where('id', '!=', keyId)
    .where('revokedAt', 'is', null)
    .where((eb) => eb.or([eb('expiresAt', 'is', null), eb('expiresAt', '>', sql<Date>`now()`)]))
    .limit(1)
    .executeTakeFirst();
  if (!others) {
    throw new ConflictError("This is the last working key of the organization's Super Admins; create another key for a Super Admin before revoking it");
  }
}
