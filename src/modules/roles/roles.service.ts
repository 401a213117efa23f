import { uuidv7 } from 'uuidv7';
import type { Database } from '../../platform/db/database.js';
import type { Authenticator } from '../../platform/auth/authenticator.js';
import type { RequestContext } from '../../platform/context.js';
import { PERMISSIONS } from '../../platform/auth/permissions.js';
import { writeAudit } from '../../platform/audit.js';
import { ConflictError, NotFoundError, requirePermissions, ValidationError } from '../../platform/http/errors.js';
import { findRole, listRoles } from './roles.repo.js';
import type { RoleDto } from './roles.schemas.js';
import { isUniqueViolation } from '../../platform/db/errors.js';

/** PostgreSQL unique_violation: two concurrent writes passed the "is the name free?" check together. */
/** Catalog order, duplicates dropped: the stored and the reported order never depend on the caller's. */
function catalogOrder(perms: readonly string[]) {
  return PERMISSIONS.filter((p) => perms.includes(p));
}

export function createRolesService(deps: { db: Database; authenticator: Pick<Authenticator, 'invalidate'> }) {
  const { db } = deps;

  async function mutableRole(tx: Database, ctx: RequestContext, id: string): Promise<RoleDto> {
    const role = await findRole(tx, ctx.actor.organizationId, id, true);
    if (!role) throw new NotFoundError('Role');
    if (role.isSystem) {
      throw ValidationError.single('id', `The system role "${role.name}" cannot be changed; create a custom role instead`, 'system_role', 'params');
    }
    return role;
  }

  async function assertNameFree(tx: Database, orgId: string, name: string, exceptId?: string) {
    let q = tx.selectFrom('roles').select('id').where('organizationId', '=', orgId).where('name', '=', name);
    if (exceptId) q = q.where('id', '!=', exceptId);
    if (await q.executeTakeFirst()) throw new ConflictError(nameTaken(name));
  }

  function nameTaken(name: string) {
    return `A role named "${name}" already exists`;
  }

  async function conflictOnDuplicateName<T>(name: string | undefined, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (name !== undefined && isUniqueViolation(err)) throw new ConflictError(nameTaken(name));
      throw err;
    }
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
      const permissions = catalogOrder(input.permissions);
      // No escalation by delegation: a role can only grant what its author holds.
      requirePermissions(ctx.actor, ...permissions);
      return conflictOnDuplicateName(input.name, () =>
        db.transaction().execute(async (tx) => {
          await assertNameFree(tx, orgId, input.name);
          const id = uuidv7();
          const now = new Date();
          await tx
            .insertInto('roles')
            .values({ id, organizationId: orgId, name: input.name, description: input.description ?? '', permissions, isSystem: false, createdAt: now, updatedAt: now })
            .execute();
          await writeAudit(tx, ctx, { action: 'role.create', resourceType: 'role', resourceId: id, metadata: { name: input.name, permissions } });
          return (await findRole(tx, orgId, id))!;
        }),
      );
    },

    async update(ctx: RequestContext, id: string, input: { name?: string | undefined; description?: string | undefined }) {
      const orgId = ctx.actor.organizationId;
      return conflictOnDuplicateName(input.name, () =>
        db.transaction().execute(async (tx) => {
          const role = await mutableRole(tx, ctx, id);
          // Renaming or redescribing a role stronger than you is acting on it too.
          requirePermissions(ctx.actor, ...catalogOrder(role.permissions));
          if (input.name) await assertNameFree(tx, orgId, input.name, role.id);
          await tx
            .updateTable('roles')
            .set({ ...(input.name !== undefined ? { name: input.name } : {}), ...(input.description !== undefined ? { description: input.description } : {}), updatedAt: new Date() })
            .where('id', '=', role.id)
            .execute();
          await writeAudit(tx, ctx, { action: 'role.update', resourceType: 'role', resourceId: role.id, metadata: { changed: Object.keys(input) } });
          return (await findRole(tx, orgId, role.id))!;
        }),
      );
    },

    async changePermissions(ctx: RequestContext, id: string, change: { toAdd: string[]; toRemove: string[] }) {
      const toAdd = catalogOrder(change.toAdd);
      const toRemove = catalogOrder(change.toRemove);
      // Hold every permission involved: adding, removing, and those the role already grants.
      requirePermissions(ctx.actor, ...catalogOrder([...toAdd, ...toRemove]));
      const role = await db.transaction().execute(async (tx) => {
        const role = await mutableRole(tx, ctx, id);
        requirePermissions(ctx.actor, ...catalogOrder(role.permissions));
        const next = new Set(role.permissions);
        for (const p of toAdd) next.add(p);
        for (const p of toRemove) next.delete(p);
        await tx.updateTable('roles').set({ permissions: [...next].sort(), updatedAt: new Date() }).where('id', '=', role.id).execute();
        await writeAudit(tx, ctx, { action: 'role.permissions.change', resourceType: 'role', resourceId: role.id, metadata: { toAdd, toRemove } });
        return (await findRole(tx, ctx.actor.organizationId, role.id))!;
      });
      // Keys of users with this role must see the new permissions at once.
      await deps.authenticator.invalidate();
      return { roleId: role.id, permissions: role.permissions };
    },
  };
}

export type RolesService = ReturnType<typeof createRolesService>;
