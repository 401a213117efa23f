import type { Database, Queryable } from '../../platform/db/database.js';
import type { Authenticator } from '../../platform/auth/authenticator.js';
import { writeAudit } from '../../platform/audit.js';
import { ConflictError } from '../../platform/http/errors.js';
import { iso } from '../../platform/time.js';
import { isUniqueViolation } from '../../platform/db/errors.js';
import { createDirectoryUser, findDirectoryUser, findDirectoryUserByEmail, setDirectoryUserActive, updateDirectoryUser } from '../users/index.js';
import * as repo from './identity-providers.repo.js';
import type { ProviderRow } from './identity-providers.repo.js';
import * as scim from './scim.repo.js';
import { mayClaimExistingUser, roleFromGroups } from './identity-providers.fns.js';
import { groupPatch, parseEqFilter, ScimError, SCIM_GROUP, SCIM_LIST, SCIM_USER, userFromResource, userPatch, type MemberChange, type UserChange } from './scim.fns.js';
import { hashScimToken } from './identity-providers.service.js';

/**
 * SCIM 2.0 for one identity provider (its bearer token): its users are the Rampart users linked
 * to it, its groups decide their roles through the provider's role mappings. Deactivating or
 * deleting a user goes through the users module's directory commands, the path of
 * `PATCH /api/users/{id}`: their console sessions end in the same transaction, and
 * `authenticator.invalidate()` after commit makes every process refuse their API keys at once.
 */
export function createScimService(deps: { db: Database; authenticator: Pick<Authenticator, 'invalidate'>; baseUrl: string }) {
  const { db } = deps;
  const base = `${deps.baseUrl}/scim/v2`;

  function userResource(u: scim.ScimUserRow) {
    return {
      schemas: [SCIM_USER],
      id: u.id,
      ...(u.scimExternalId ? { externalId: u.scimExternalId } : {}),
      userName: u.scimUserName ?? u.email,
      name: { formatted: u.name },
      displayName: u.name,
      emails: [{ value: u.email, type: 'work', primary: true }],
      active: u.deactivatedAt === null,
      meta: { resourceType: 'User', created: iso(u.createdAt), lastModified: iso(u.updatedAt), location: `${base}/Users/${u.id}` },
    };
  }

  async function groupResource(q: Queryable, g: NonNullable<Awaited<ReturnType<typeof scim.findGroup>>>, withMembers = true) {
    const members = withMembers ? await scim.groupMembers(q, g.id) : [];
    return {
      schemas: [SCIM_GROUP],
      id: g.id,
      ...(g.externalId ? { externalId: g.externalId } : {}),
      displayName: g.displayName,
      ...(withMembers ? { members: members.map((m) => ({ value: m.id, display: m.email, $ref: `${base}/Users/${m.id}` })) } : {}),
      meta: { resourceType: 'Group', created: iso(g.createdAt), lastModified: iso(g.updatedAt), location: `${base}/Groups/${g.id}` },
    };
  }

  const list = (resources: unknown[], total: number, startIndex: number) => ({ schemas: [SCIM_LIST], totalResults: total, startIndex, itemsPerPage: resources.length, Resources: resources });

  const audit = (tx: Queryable, provider: ProviderRow, action: string, userId: string, metadata: Record<string, unknown> = {}) =>
    writeAudit(tx, { actor: { type: 'system', organizationId: provider.organizationId } }, { action, resourceType: 'user', resourceId: userId, metadata: { identityProviderId: provider.id, via: 'scim', ...metadata } });

  async function mustFindUser(q: Queryable, provider: ProviderRow, id: string) {
    const row = /^[0-9a-f-]{36}$/i.test(id) ? await scim.findScimUser(q, provider.id, id.toLowerCase()) : undefined;
    if (!row) throw new ScimError(404, `User ${id} not found`);
    return row;
  }

  async function mustFindGroup(q: Queryable, provider: ProviderRow, id: string) {
    const row = /^[0-9a-f-]{36}$/i.test(id) ? await scim.findGroup(q, provider.id, id.toLowerCase()) : undefined;
    if (!row) throw new ScimError(404, `Group ${id} not found`);
    return row;
  }

  /**
   * The role the user's groups give now: changed when it differs; with no mapped group and no
   * default role the user is deactivated (the sign-in would refuse them too). The last active
   * Super Admin keeps role and access (the lockout rule). Answers whether auth caches must drop.
   */
  async function applyGroups(tx: Queryable, provider: ProviderRow, userId: string): Promise<boolean> {
    const user = await findDirectoryUser(tx, provider.organizationId, userId);
    if (!user) return false;
    const roleId = roleFromGroups(await scim.groupNamesOf(tx, provider.id, userId), provider.roleMappings, provider.defaultRoleId);
    try {
      if (roleId === null) {
        const { changed, sessionsEnded } = await setDirectoryUserActive(tx, provider.organizationId, user, false);
        if (changed) await audit(tx, provider, 'user.deactivate', user.id, { reason: 'in no mapped group', sessionsEnded });
        return changed;
      }
      const [role] = await repo.rolesOf(tx, provider.organizationId, [roleId]);
      if (!role) return false;
      const { roleChanged } = await updateDirectoryUser(tx, provider.organizationId, user, { roleId: role.id });
      if (roleChanged) await audit(tx, provider, 'user.update', user.id, { changed: ['roleId'], roleId: role.id });
      return roleChanged;
    } catch (err) {
      if (err instanceof ConflictError) return false;
      throw err;
    }
  }

  /** Applies a user change; answers whether auth caches must drop. */
  async function applyUserChange(tx: Queryable, provider: ProviderRow, userId: string, change: UserChange): Promise<boolean> {
    const user = (await findDirectoryUser(tx, provider.organizationId, userId))!;
    let dropCaches = false;
    if (change.name !== undefined || change.email !== undefined) {
      try {
        await updateDirectoryUser(tx, provider.organizationId, user, { ...(change.name ? { name: change.name.slice(0, 255) } : {}), ...(change.email ? { email: change.email.slice(0, 320) } : {}) });
      } catch (err) {
        if (err instanceof ConflictError) throw new ScimError(409, err.message, 'uniqueness');
        throw err;
      }
    }
    await scim.setScimAttributes(tx, provider.id, userId, { ...(change.externalId !== undefined ? { scimExternalId: change.externalId } : {}), ...(change.userName ? { scimUserName: change.userName } : {}) });
    if (change.active !== undefined) {
      try {
        const { changed, sessionsEnded } = await setDirectoryUserActive(tx, provider.organizationId, user, change.active);
        if (changed) await audit(tx, provider, change.active ? 'user.reactivate' : 'user.deactivate', userId, change.active ? {} : { sessionsEnded });
        dropCaches ||= changed;
        if (changed && change.active) dropCaches = (await applyGroups(tx, provider, userId)) || dropCaches;
      } catch (err) {
        if (err instanceof ConflictError) throw new ScimError(409, err.message, 'mutability');
        throw err;
      }
    }
    return dropCaches;
  }

  /** One transaction; the caches of every process drop after it commits when a user lost or changed power. */
  async function write<T>(fn: (tx: Queryable) => Promise<{ result: T; dropCaches: boolean }>): Promise<T> {
    const { result, dropCaches } = await db.transaction().execute(fn);
    if (dropCaches) await deps.authenticator.invalidate();
    return result;
  }

  async function applyMemberChanges(tx: Queryable, provider: ProviderRow, groupId: string, changes: MemberChange[]): Promise<boolean> {
    const before = new Set((await scim.groupMembers(tx, groupId)).map((m) => m.id));
    for (const c of changes) {
      if (c.kind === 'rename') await scim.updateGroup(tx, groupId, { displayName: c.displayName });
      else if (c.kind === 'externalId') await scim.updateGroup(tx, groupId, { externalId: c.externalId });
      else {
        const ids = await scim.linkedUserIds(tx, provider.id, c.ids);
        if (c.kind !== 'remove' && ids.length !== new Set(c.ids.map((i) => i.toLowerCase())).size) throw new ScimError(400, 'Every member must be a user of this provider (its SCIM id)', 'invalidValue');
        if (c.kind === 'replace') await scim.removeMembers(tx, groupId, 'all');
        if (c.kind === 'remove') await scim.removeMembers(tx, groupId, ids);
        else await scim.addMembers(tx, groupId, ids);
      }
    }
    await scim.updateGroup(tx, groupId, {});
    // A rename can change what the group maps to: every member, before and after, is recomputed.
    const after = new Set((await scim.groupMembers(tx, groupId)).map((m) => m.id));
    let dropCaches = false;
    for (const userId of new Set([...before, ...after])) dropCaches = (await applyGroups(tx, provider, userId)) || dropCaches;
    return dropCaches;
  }

  return {
    /** The provider a SCIM bearer token belongs to, or null. */
    async providerOf(authorization: string | undefined): Promise<ProviderRow | null> {
      const m = /^Bearer\s+(rsc_[A-Za-z0-9_-]{43})$/.exec(authorization ?? '');
      return m ? ((await repo.findProviderByScimTokenHash(db, hashScimToken(m[1]!))) ?? null) : null;
    },

    async listUsers(provider: ProviderRow, query: { filter?: string; startIndex?: number; count?: number }) {
      const filter = parseEqFilter(query.filter, ['userName', 'externalId']);
      const startIndex = Math.max(1, query.startIndex ?? 1);
      const { total, rows } = await scim.listScimUsers(db, provider.id, filter, startIndex - 1, Math.min(200, Math.max(0, query.count ?? 100)));
      return list(rows.map(userResource), total, startIndex);
    },

    async getUser(provider: ProviderRow, id: string) {
      return userResource(await mustFindUser(db, provider, id));
    },

    /**
     * A new user with the default role (their groups follow); an existing user of the
     * organization with that email is linked instead, unless another provider has them or the
     * email's domain is not in the provider's allowedEmailDomains (409).
     */
    async createUser(provider: ProviderRow, body: Record<string, unknown>) {
      const input = userFromResource(body);
      return write(async (tx) => {
        const existing = await findDirectoryUserByEmail(tx, provider.organizationId, input.email);
        let userId: string;
        if (existing) {
          const link = await repo.findLinkOfUser(tx, existing.id);
          if (link) throw new ScimError(409, link.providerId === provider.id ? `User ${input.email} already exists` : `User ${input.email} belongs to another identity provider`, 'uniqueness');
          if (!mayClaimExistingUser(existing.email, provider.allowedEmailDomains)) {
            throw new ScimError(409, `User ${input.email} already exists in Rampart; this provider may link existing users only in its allowedEmailDomains`, 'uniqueness');
          }
          await repo.insertLink(tx, { providerId: provider.id, organizationId: provider.organizationId, userId: existing.id, subject: null, scimExternalId: input.externalId ?? null, scimUserName: input.userName });
          userId = existing.id;
          await audit(tx, provider, 'identityProvider.link', userId);
        } else {
          if (!provider.defaultRoleId) throw new ScimError(400, 'This identity provider has no defaultRoleId: set one (the role people have until their groups arrive) before provisioning users', 'invalidValue');
          userId = await createDirectoryUser(tx, { organizationId: provider.organizationId, email: input.email.slice(0, 320), name: (input.name ?? input.email).slice(0, 255), roleId: provider.defaultRoleId });
          await repo.insertLink(tx, { providerId: provider.id, organizationId: provider.organizationId, userId, subject: null, scimExternalId: input.externalId ?? null, scimUserName: input.userName });
          await audit(tx, provider, 'user.create', userId, { email: input.email, roleId: provider.defaultRoleId });
        }
        const dropCaches = await applyUserChange(tx, provider, userId, { active: input.active });
        return { result: userResource((await scim.findScimUser(tx, provider.id, userId))!), dropCaches };
      }).catch((err) => {
        if (isUniqueViolation(err)) throw new ScimError(409, `User ${input.email} already exists`, 'uniqueness');
        throw err;
      });
    },

    async replaceUser(provider: ProviderRow, id: string, body: Record<string, unknown>) {
      const input = userFromResource(body);
      return write(async (tx) => {
        const row = await mustFindUser(tx, provider, id);
        const dropCaches = await applyUserChange(tx, provider, row.id, input);
        return { result: userResource((await scim.findScimUser(tx, provider.id, row.id))!), dropCaches };
      });
    },

    async patchUser(provider: ProviderRow, id: string, body: Record<string, unknown>) {
      const change = userPatch(body);
      return write(async (tx) => {
        const row = await mustFindUser(tx, provider, id);
        const dropCaches = await applyUserChange(tx, provider, row.id, change);
        return { result: userResource((await scim.findScimUser(tx, provider.id, row.id))!), dropCaches };
      });
    },

    /** Rampart keeps the user (their audit trail names them) but deactivated, and no longer the provider's. */
    async deleteUser(provider: ProviderRow, id: string) {
      await write(async (tx) => {
        const row = await mustFindUser(tx, provider, id);
        const changed = await applyUserChange(tx, provider, row.id, { active: false });
        await scim.deleteLink(tx, provider.id, row.id);
        await audit(tx, provider, 'identityProvider.unlink', row.id);
        return { result: undefined, dropCaches: changed };
      });
    },

    async listGroups(provider: ProviderRow, query: { filter?: string; startIndex?: number; count?: number; excludedAttributes?: string }) {
      const filter = parseEqFilter(query.filter, ['displayName', 'externalId']);
      const startIndex = Math.max(1, query.startIndex ?? 1);
      const { total, rows } = await scim.listGroups(db, provider.id, filter, startIndex - 1, Math.min(200, Math.max(0, query.count ?? 100)));
      const withMembers = !/\bmembers\b/.test(query.excludedAttributes ?? '');
      return list(await Promise.all(rows.map((g) => groupResource(db, g, withMembers))), total, startIndex);
    },

    async getGroup(provider: ProviderRow, id: string, excludedAttributes?: string) {
      return groupResource(db, await mustFindGroup(db, provider, id), !/\bmembers\b/.test(excludedAttributes ?? ''));
    },

    async createGroup(provider: ProviderRow, body: Record<string, unknown>) {
      const displayName = typeof body.displayName === 'string' ? body.displayName.trim() : '';
      if (!displayName || displayName.length > 256) throw new ScimError(400, 'displayName is required (at most 256 characters)', 'invalidValue');
      return write(async (tx) => {
        let group;
        try {
          group = await scim.insertGroup(tx, { providerId: provider.id, displayName, externalId: typeof body.externalId === 'string' ? body.externalId : null });
        } catch (err) {
          if (isUniqueViolation(err)) throw new ScimError(409, `Group ${displayName} already exists`, 'uniqueness');
          throw err;
        }
        const dropCaches = body.members === undefined ? false : await applyMemberChanges(tx, provider, group.id, [{ kind: 'add', ids: memberIdsOf(body.members) }]);
        return { result: await groupResource(tx, (await scim.findGroup(tx, provider.id, group.id))!), dropCaches };
      });
    },

    async patchGroup(provider: ProviderRow, id: string, body: Record<string, unknown>) {
      const changes = groupPatch(body);
      return write(async (tx) => {
        const group = await mustFindGroup(tx, provider, id);
        const dropCaches = await applyMemberChanges(tx, provider, group.id, changes);
        return { result: await groupResource(tx, (await scim.findGroup(tx, provider.id, group.id))!), dropCaches };
      });
    },

    async replaceGroup(provider: ProviderRow, id: string, body: Record<string, unknown>) {
      const displayName = typeof body.displayName === 'string' ? body.displayName.trim() : '';
      if (!displayName) throw new ScimError(400, 'displayName is required', 'invalidValue');
      return write(async (tx) => {
        const group = await mustFindGroup(tx, provider, id);
        const dropCaches = await applyMemberChanges(tx, provider, group.id, [{ kind: 'rename', displayName }, { kind: 'replace', ids: body.members === undefined ? [] : memberIdsOf(body.members) }]);
        return { result: await groupResource(tx, (await scim.findGroup(tx, provider.id, group.id))!), dropCaches };
      });
    },

    async deleteGroup(provider: ProviderRow, id: string) {
      await write(async (tx) => {
        const group = await mustFindGroup(tx, provider, id);
        const members = (await scim.groupMembers(tx, group.id)).map((m) => m.id);
        await scim.deleteGroup(tx, group.id);
        let dropCaches = false;
        for (const userId of members) dropCaches = (await applyGroups(tx, provider, userId)) || dropCaches;
        return { result: undefined, dropCaches };
      });
    },
  };
}

function memberIdsOf(members: unknown): string[] {
  if (!Array.isArray(members)) throw new ScimError(400, 'members must be an array', 'invalidValue');
  return members.map((m) => {
    const v = (m as { value?: unknown })?.value;
    if (typeof v !== 'string') throw new ScimError(400, 'members must be an array of {"value": "<user id>"}', 'invalidValue');
    return v;
  });
}

export type ScimService = ReturnType<typeof createScimService>;
