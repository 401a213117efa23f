import { uuidv7 } from 'uuidv7';
import type { Database } from '../../platform/db/database.js';
import type { Authenticator } from '../../platform/auth/authenticator.js';
import type { RequestContext } from '../../platform/context.js';
import { writeAudit } from '../../platform/audit.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../platform/http/errors.js';
import { findRole, listRoles } from './roles.repo.js';
import type { RoleDto } from './roles.schemas.js';

export function createRolesService(deps: { db: Database; authenticator: Pick<Authenticator, 'invalidate'> }) {
  const { db } = deps;

  async function mutableRole(tx: Database, ctx: RequestContext, id: string): Promise<RoleDto> {
    const role = await findRole(tx, ctx.actor.organizationId, id, true);
    if (!role) throw new NotFoundError('Role');
    if (role.isSystem) throw new BadRequestError(`The system role "${role.name}" cannot be changed; create a custom role instead`);
    return role;
  }

  async function assertNameFree(tx: Database, orgId: string, name: string, exceptId?: string) {
    let q = tx.selectFrom('roles').select('id').where('organizationId', '=', orgId).where('name', '=', name);
    if (exceptId) q = q.where('id', '!=', exceptId);
    if (await q.executeTakeFirst()) throw new ConflictError(`A role named "${name}" already exists`);
  }

  return {
    list: (ctx: RequestContext) => listRoles(db, ctx.actor.organizationId),

    async get(ctx: RequestContext, id: string) {
      const role = await findRole(db, ctx.actor.organizationId, id);
      if (!role) throw new NotFoundError('Role');
      return role;
    },

    async create(ctx: RequestContext, input: { name: string; description?: string | undefined; permissions: string[] }) {
      const orgId = ctx.actor.organizationId;
      return db.transaction().execute(async (tx) => {
        await assertNameFree(tx, orgId, input.name);
        const id = uuidv7();
        const now = new Date();
        await tx
          .insertInto('roles')
          .values({ id, organizationId: orgId, name: input.name, description: input.description ?? '', permissions: [...new Set(input.permissions)], isSystem: false, createdAt: now, updatedAt: now })
          .execute();
        await writeAudit(tx, ctx, { action: 'role.create', resourceType: 'role', resourceId: id, metadata: { name: input.name, permissions: input.permissions } });
        return (await findRole(tx, orgId, id))!;
      });
    },

    async update(ctx: RequestContext, id: string, input: { name?: string | undefined; description?: string | undefined }) {
      const orgId = ctx.actor.organizationId;
      return db.transaction().execute(async (tx) => {
        await mutableRole(tx, ctx, id);
        if (input.name) await assertNameFree(tx, orgId, input.name, id);
        await tx
          .updateTable('roles')
          .set({ ...(input.name !== undefined ? { name: input.name } : {}), ...(input.description !== undefined ? { description: input.description } : {}), updatedAt: new Date() })
          .where('id', '=', id)
          .execute();
        await writeAudit(tx, ctx, { action: 'role.update', resourceType: 'role', resourceId: id, metadata: { changed: Object.keys(input) } });
        return (await findRole(tx, orgId, id))!;
      });
    },

    async changePermissions(ctx: RequestContext, id: string, change: { toAdd: string[]; toRemove: string[] }) {
      const role = await db.transaction().execute(async (tx) => {
        const role = await mutableRole(tx, ctx, id);
        const next = new Set(role.permissions);
        for (const p of change.toAdd) next.add(p);
        for (const p of change.toRemove) next.delete(p);
        await tx.updateTable('roles').set({ permissions: [...next].sort(), updatedAt: new Date() }).where('id', '=', id).execute();
        await writeAudit(tx, ctx, { action: 'role.permissions.change', resourceType: 'role', resourceId: id, metadata: change });
        return (await findRole(tx, ctx.actor.organizationId, id))!;
      });
      // Keys of users with this role must see the new permissions at once.
      await deps.authenticator.invalidate();
      return { roleId: role.id, permissions: role.permissions };
    },
  };
}

export type RolesService = ReturnType<typeof createRolesService>;
