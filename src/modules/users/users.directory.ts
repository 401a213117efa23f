import type { Queryable } from '../../platform/db/database.js';
import { requireAnotherSuperAdmin } from '../../platform/auth/guardians.js';
import { ConflictError } from '../../platform/http/errors.js';
import { isUniqueViolation } from '../../platform/db/errors.js';
import { revokeUserSessions } from '../sessions/index.js';
import { insertUser } from './users.repo.js';

/**
 * The user commands an identity provider drives (sign-in and SCIM, identity-providers module):
 * the same rows and rules as `PATCH /api/users/{id}` — the last active Super Admin is never
 * demoted nor deactivated, and deactivation ends the user's console sessions in the same
 * transaction. The caller calls `authenticator.invalidate()` after commit so that every
 * process drops the user's cached API keys at once, exactly as the users service does.
 */
export interface DirectoryUser {
  id: string;
  email: string;
  name: string;
  roleId: string;
  deactivatedAt: Date | null;
}

const columns = ['id', 'email', 'name', 'roleId', 'deactivatedAt'] as const;

export async function findDirectoryUser(db: Queryable, organizationId: string, userId: string): Promise<DirectoryUser | undefined> {
  return db.selectFrom('users').select(columns).where('organizationId', '=', organizationId).where('id', '=', userId).forUpdate().executeTakeFirst();
}

/** Emails are compared as stored (PATCH/POST /users keep them as given), case-insensitively. */
export async function findDirectoryUserByEmail(db: Queryable, organizationId: string, email: string): Promise<DirectoryUser | undefined> {
  return db
    .selectFrom('users')
    .select(columns)
    .where('organizationId', '=', organizationId)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .forUpdate()
    .executeTakeFirst();
}

export async function createDirectoryUser(tx: Queryable, user: { organizationId: string; email: string; name: string; roleId: string }): Promise<string> {
  return insertUser(tx, user);
}

/**
 * Gives the user `roleId` (and `name`, `email` when given); 409 when that would take away the
 * organization's last active Super Admin. Answers whether the role changed.
 */
export async function updateDirectoryUser(
  tx: Queryable,
  organizationId: string,
  user: DirectoryUser,
  change: { roleId?: string; name?: string; email?: string },
): Promise<{ roleChanged: boolean }> {
  const roleChanged = change.roleId !== undefined && change.roleId !== user.roleId;
  if (roleChanged) await requireAnotherSuperAdmin(tx, organizationId, user.id, 'demote');
  const set = {
    ...(roleChanged ? { roleId: change.roleId } : {}),
    ...(change.name !== undefined && change.name !== user.name ? { name: change.name } : {}),
    ...(change.email !== undefined && change.email !== user.email ? { email: change.email } : {}),
  };
  if (Object.keys(set).length > 0) {
    try {
      await tx.updateTable('users').set({ ...set, updatedAt: new Date() }).where('organizationId', '=', organizationId).where('id', '=', user.id).execute();
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError('A user with this email already exists in the organization');
      throw err;
    }
  }
  return { roleChanged };
}

/** Deactivates or reactivates; deactivation ends every console session. Answers whether anything changed and how many sessions ended. */
export async function setDirectoryUserActive(tx: Queryable, organizationId: string, user: DirectoryUser, active: boolean): Promise<{ changed: boolean; sessionsEnded: number }> {
  if (active === (user.deactivatedAt === null)) return { changed: false, sessionsEnded: 0 };
  if (!active) await requireAnotherSuperAdmin(tx, organizationId, user.id, 'deactivate');
  await tx
    .updateTable('users')
    .set({ deactivatedAt: active ? null : new Date(), updatedAt: new Date() })
    .where('organizationId', '=', organizationId)
    .where('id', '=', user.id)
    .execute();
  const sessionsEnded = active ? 0 : await revokeUserSessions(tx, organizationId, user.id);
  return { changed: true, sessionsEnded };
}
