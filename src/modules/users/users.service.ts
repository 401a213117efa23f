import type { Database } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import type { Authenticator } from '../../platform/auth/authenticator.js';
import { PERMISSIONS } from '../../platform/auth/permissions.js';
import { writeAudit } from '../../platform/audit.js';
import { ConflictError, NotFoundError, requirePermissions, ValidationError, type ValidationIssue } from '../../platform/http/errors.js';
import { findUser, insertUser, listUsers } from './users.repo.js';
import type { UserDto } from './users.schemas.js';
import { isUniqueViolation } from '../../platform/db/errors.js';
import { requireAnotherSuperAdmin, requireAuthorityOver } from '../../platform/auth/guardians.js';
import { revokeUserSessions } from '../sessions/index.js';

const EMAIL_TAKEN = 'A user with this email already exists in the organization';

/** PostgreSQL unique_violation: two concurrent creates passed the "is it free?" check together. */
export function createUsersService(deps: { db: Database; authenticator: Pick<Authenticator, 'invalidate'> }) {
  const { db } = deps;

  /**
   * The role must be of this organization, and the caller must hold every permission it grants:
   * whoever manages users cannot hand out more power than they have (no escalation by delegation).
   */
  async function assertAssignableRole(tx: Database, ctx: RequestContext, roleId: string): Promise<void> {
    const role = await tx
      .selectFrom('roles')
      .select(['id', 'permissions'])
      .where('id', '=', roleId)
      .where('organizationId', '=', ctx.actor.organizationId)
      .executeTakeFirst();
    if (!role) throw ValidationError.single('roleId', 'No such role in this organization', 'not_found');
    requirePermissions(ctx.actor, ...PERMISSIONS.filter((p) => role.permissions.includes(p)));
  }

  return {
    list(ctx: RequestContext, limit: number, offset: number) {
      return listUsers(db, ctx.actor.organizationId, limit, offset);
    },

    async get(ctx: RequestContext, id: string): Promise<UserDto> {
      const user = await findUser(db, ctx.actor.organizationId, id);
      if (!user) throw new NotFoundError('User');
      return user;
    },

    async create(ctx: RequestContext, input: { email: string; name?: string | undefined; roleId: string }): Promise<UserDto> {
      const orgId = ctx.actor.organizationId;
      try {
        return await db.transaction().execute(async (tx) => {
          await assertAssignableRole(tx, ctx, input.roleId);
          const taken = await tx.selectFrom('users').select('id').where('organizationId', '=', orgId).where('email', '=', input.email).executeTakeFirst();
          if (taken) throw new ConflictError(EMAIL_TAKEN);
          const id = await insertUser(tx, { organizationId: orgId, email: input.email, name: input.name ?? input.email.split('@')[0]!, roleId: input.roleId });
          await writeAudit(tx, ctx, { action: 'user.create', resourceType: 'user', resourceId: id, metadata: { email: input.email, roleId: input.roleId.toLowerCase() } });
          return (await findUser(tx, orgId, id))!;
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw new ConflictError(EMAIL_TAKEN);
        throw err;
      }
    },

    async update(ctx: RequestContext, id: string, input: { name?: string | undefined; roleId?: string | undefined; deactivated?: boolean | undefined }): Promise<UserDto> {
      const orgId = ctx.actor.organizationId;
      // UUIDs are case-insensitive (PostgreSQL matches `01AB…` to `01ab…`): compare them lowercased,
      // or an upper-case path would slip past the self-lockout guard.
      if (id.toLowerCase() === ctx.actor.userId) {
        // Guard against locking yourself out; another administrator can do it.
        const issues: ValidationIssue[] = [];
        if (input.deactivated === true) {
          issues.push({ path: 'deactivated', message: 'You cannot deactivate yourself; another user with setting.users.manage can', code: 'self_change', location: 'body' });
        }
        if (input.roleId !== undefined && input.roleId.toLowerCase() !== ctx.actor.roleId) {
          issues.push({ path: 'roleId', message: 'You cannot change your own role; another user with setting.users.manage can', code: 'self_change', location: 'body' });
        }
        if (issues.length > 0) throw new ValidationError(issues);
      }
      const updated = await db.transaction().execute(async (tx) => {
        const existing = await findUser(tx, orgId, id);
        if (!existing) throw new NotFoundError('User');
        const roleChanges = input.roleId !== undefined && input.roleId.toLowerCase() !== existing.roleId;
        const activationChanges = input.deactivated !== undefined && input.deactivated !== (existing.deactivatedAt !== null);
        if (input.roleId) await assertAssignableRole(tx, ctx, input.roleId);
        if (roleChanges || activationChanges) await requireAuthorityOver(tx, ctx.actor, existing.id);
        if (roleChanges) await requireAnotherSuperAdmin(tx, orgId, existing.id, 'demote');
        if (activationChanges && input.deactivated) await requireAnotherSuperAdmin(tx, orgId, existing.id, 'deactivate');
        await tx
          .updateTable('users')
          .set({
            ...(input.name !== undefined ? { name: input.name } : {}),
            ...(input.roleId !== undefined ? { roleId: input.roleId } : {}),
            ...(input.deactivated !== undefined ? { deactivatedAt: input.deactivated ? (existing.deactivatedAt ?? new Date()) : null } : {}),
            updatedAt: new Date(),
          })
          .where('id', '=', id)
          .where('organizationId', '=', orgId)
          .execute();
        // Deactivation ends their console sessions in the database, not only in the check:
        // reactivating the user restores their keys, never an old cookie.
        const sessionsEnded = activationChanges && input.deactivated ? await revokeUserSessions(tx, orgId, existing.id) : 0;
        await writeAudit(tx, ctx, {
          action: input.deactivated === true ? 'user.deactivate' : input.deactivated === false ? 'user.reactivate' : 'user.update',
          resourceType: 'user',
          resourceId: existing.id,
          metadata: { changed: Object.keys(input), ...(input.roleId ? { roleId: input.roleId.toLowerCase() } : {}), ...(sessionsEnded ? { sessionsEnded } : {}) },
        });
        return (await findUser(tx, orgId, id))!;
      });
      await deps.authenticator.invalidate();
      return updated;
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
