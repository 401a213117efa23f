import { insertApiKey } from './api-keys.repo.js';
import { uuidv7 } from 'uuidv7';
import type { Database, Queryable } from '../../platform/db/database.js';
import type { Authenticator } from '../../platform/auth/authenticator.js';
import { generateApiKey } from '../../platform/auth/api-keys.js';
import { PERMISSIONS } from '../../platform/auth/permissions.js';
import type { RequestContext } from '../../platform/context.js';
import { writeAudit } from '../../platform/audit.js';
import { NotFoundError, requirePermissions, ValidationError } from '../../platform/http/errors.js';
import { requireAuthorityOver, requireWorkingSuperAdminKey } from '../../platform/auth/guardians.js';
import { iso } from '../../platform/time.js';
import type { ApiKeyDto } from './api-keys.schemas.js';

const COLUMNS = ['id', 'organizationId', 'userId', 'name', 'prefix', 'createdAt', 'lastUsedAt', 'expiresAt', 'revokedAt'] as const;

function toDto(r: { id: string; organizationId: string; userId: string; name: string; prefix: string; createdAt: Date; lastUsedAt: Date | null; expiresAt: Date | null; revokedAt: Date | null }): ApiKeyDto {
  return { ...r, createdAt: iso(r.createdAt), lastUsedAt: iso(r.lastUsedAt), expiresAt: iso(r.expiresAt), revokedAt: iso(r.revokedAt) };
}

async function findKey(db: Queryable, organizationId: string, id: string, forUpdate = false) {
  let q = db.selectFrom('apiKeys').select(COLUMNS).where('organizationId', '=', organizationId).where('id', '=', id);
  // Two revocations at once: the second waits, then sees the first's revokedAt (one audit entry).
  if (forUpdate) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  return row ? toDto(row) : null;
}

/**
 * Keys are created for the calling user, or for another user of the organization (the dedicated
 * integration user of the API spec's "Authentication"), and revoked by anyone holding `setting.apiKey.manage` in the
 * organization. A key acts as its user (the API spec's "Authentication"), so minting one for a user who holds a
 * permission the caller lacks would be an escalation: 403.
 */
export function createApiKeysService(deps: { db: Database; authenticator: Pick<Authenticator, 'invalidate'> }) {
  const { db } = deps;
  return {
    async list(ctx: RequestContext, q: { limit: number; offset: number; includeRevoked: boolean }) {
      const orgId = ctx.actor.organizationId;
      let base = db.selectFrom('apiKeys').where('organizationId', '=', orgId);
      if (!q.includeRevoked) base = base.where('revokedAt', 'is', null);
      const [rows, count] = await Promise.all([
        base.select(COLUMNS).orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(q.limit).offset(q.offset).execute(),
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { apiKeys: rows.map(toDto), totalCount: Number(count.n) };
    },

    async create(ctx: RequestContext, input: { name: string; userId?: string | undefined; expiresAt?: string | undefined }) {
      const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
      if (expiresAt && expiresAt.getTime() <= Date.now()) throw ValidationError.single('expiresAt', 'must be in the future', 'too_small');
      const orgId = ctx.actor.organizationId;
      const userId = input.userId?.toLowerCase() ?? ctx.actor.userId;
      const generated = generateApiKey();
      const id = uuidv7();
      await db.transaction().execute(async (tx) => {
        if (userId !== ctx.actor.userId) {
          const user = await tx
            .selectFrom('users as u')
            .innerJoin('roles as r', 'r.id', 'u.roleId')
            .select(['u.deactivatedAt', 'r.permissions'])
            .where('u.id', '=', userId)
            .where('u.organizationId', '=', orgId)
            .forUpdate('u') // serialises with a concurrent PATCH of that user (role change, deactivation)
            .executeTakeFirst();
          if (!user) throw ValidationError.single('userId', 'No such user in this organization', 'not_found');
          if (user.deactivatedAt) throw ValidationError.single('userId', 'The user is deactivated', 'deactivated');
          requirePermissions(ctx.actor, ...PERMISSIONS.filter((p) => user.permissions.includes(p)));
        }
        await insertApiKey(tx, { organizationId: orgId, userId, name: input.name, generated, expiresAt }, id);
        await writeAudit(tx, ctx, { action: 'apiKey.create', resourceType: 'apiKey', resourceId: id, metadata: { name: input.name, prefix: generated.prefix, userId } });
      });
      return { apiKey: (await findKey(db, orgId, id))!, key: generated.key };
    },

    async revoke(ctx: RequestContext, id: string) {
      const apiKey = await db.transaction().execute(async (tx) => {
        const existing = await findKey(tx, ctx.actor.organizationId, id, true);
        if (!existing) throw new NotFoundError('API key');
        if (existing.revokedAt) return existing; // revoking twice is a no-op
        if (existing.userId !== ctx.actor.userId) await requireAuthorityOver(tx, ctx.actor, existing.userId);
        await requireWorkingSuperAdminKey(tx, ctx.actor.organizationId, existing.userId, existing.id);
        await tx.updateTable('apiKeys').set({ revokedAt: new Date() }).where('id', '=', existing.id).execute();
        await writeAudit(tx, ctx, { action: 'apiKey.revoke', resourceType: 'apiKey', resourceId: existing.id, metadata: { prefix: existing.prefix } });
        return (await findKey(tx, ctx.actor.organizationId, existing.id))!;
      });
      await deps.authenticator.invalidate();
      return { success: true, apiKey };
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
