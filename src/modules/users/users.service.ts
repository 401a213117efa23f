import { uuidv7 } from 'uuidv7';
import type { Database } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import type { Authenticator } from '../../platform/auth/authenticator.js';
import { writeAudit } from '../../platform/audit.js';
import { BadRequestError, ConflictError, NotFoundError, ValidationError } from '../../platform/http/errors.js';
import { findUser, listUsers } from './users.repo.js';
import type { UserDto } from './users.schemas.js';

export function createUsersService(deps: { db: Database; authenticator: Pick<Authenticator, 'invalidate'> }) {
  const { db } = deps;

  async function assertRoleInOrg(tx: Database, organizationId: string, roleId: string): Promise<void> {
    const role = await tx.selectFrom('roles').select('id').where('id', '=', roleId).where('organizationId', '=', organizationId).executeTakeFirst();
    if (!role) throw ValidationError.single('roleId', 'No such role in this organization', 'not_found');
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
      return db.transaction().execute(async (tx) => {
        await assertRoleInOrg(tx, orgId, input.roleId);
        const taken = await tx.selectFrom('users').select('id').where('organizationId', '=', orgId).where('email', '=', input.email).executeTakeFirst();
        if (taken) throw new ConflictError('A user with this email already exists in the organization');
        const id = uuidv7();
        const now = new Date();
        await tx
          .insertInto('users')
          .values({ id, organizationId: orgId, email: input.email, name: input.name ?? input.email.split('@')[0]!, roleId: input.roleId, createdAt: now, updatedAt: now })
          .execute();
        await writeAudit(tx, ctx, { action: 'user.create', resourceType: 'user', resourceId: id, metadata: { email: input.email, roleId: input.roleId } });
        return (await findUser(tx, orgId, id))!;
      });
    },

    async update(ctx: RequestContext, id: string, input: { name?: string | undefined; roleId?: string | undefined; deactivated?: boolean | undefined }): Promise<UserDto> {
      const orgId = ctx.actor.organizationId;
      if (id === ctx.actor.userId && (input.deactivated === true || input.roleId !== undefined)) {
        // Guard against locking yourself out; another administrator can do it.
        throw new BadRequestError('You cannot deactivate yourself or change your own role');
      }
      const updated = await db.transaction().execute(async (tx) => {
        const existing = await findUser(tx, orgId, id);
        if (!existing) throw new NotFoundError('User');
        if (input.roleId) await assertRoleInOrg(tx, orgId, input.roleId);
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
        await writeAudit(tx, ctx, {
          action: input.deactivated === true ? 'user.deactivate' : input.deactivated === false ? 'user.reactivate' : 'user.update',
          resourceType: 'user',
          resourceId: id,
          metadata: { changed: Object.keys(input), ...(input.roleId ? { roleId: input.roleId } : {}) },
        });
        return (await findUser(tx, orgId, id))!;
      });
      await deps.authenticator.invalidate();
      return updated;
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
