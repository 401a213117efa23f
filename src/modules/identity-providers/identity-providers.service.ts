import { createHash, randomBytes } from 'node:crypto';
import { uuidv7 } from 'uuidv7';
import type { Database } from '../../platform/db/database.js';
import { isUniqueViolation } from '../../platform/db/errors.js';
import type { RequestContext } from '../../platform/context.js';
import type { SecretBox } from '../../platform/secrets.js';
import { writeAudit } from '../../platform/audit.js';
import { PERMISSIONS } from '../../platform/auth/permissions.js';
import { ConflictError, NotFoundError, requirePermissions, ValidationError, type ValidationIssue } from '../../platform/http/errors.js';
import { iso } from '../../platform/time.js';
import { findProviderRow, listProviderRows, rolesOf, type ProviderRow } from './identity-providers.repo.js';
import type { CreateIdentityProviderInput, IdentityProviderDto, UpdateIdentityProviderInput } from './identity-providers.schemas.js';
import { DEFAULT_GROUPS_CLAIM, DEFAULT_SCOPES, normalizeIssuer, sameOrigin } from './identity-providers.fns.js';

const nameTaken = (name: string) => new ConflictError(`An identity provider named "${name}" already exists`);

/** SCIM bearer tokens carry 256 random bits: a fast hash is enough, and the provider is found by it. */
export function hashScimToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export function createIdentityProvidersService(deps: { db: Database; secrets: SecretBox; baseUrl: string }) {
  const { db, secrets, baseUrl } = deps;

  function toDto(row: ProviderRow): IdentityProviderDto {
    return {
      id: row.id,
      organizationId: row.organizationId,
      name: row.name,
      issuer: row.issuer,
      clientId: row.clientId,
      hasClientSecret: true,
      scopes: row.scopes,
      groupsClaim: row.groupsClaim,
      allowedEmailDomains: row.allowedEmailDomains,
      roleMappings: row.roleMappings,
      defaultRoleId: row.defaultRoleId,
      loginUrl: `${baseUrl}/auth/oidc/${row.id}/login`,
      redirectUri: `${baseUrl}/auth/oidc/callback`,
      scimBaseUrl: `${baseUrl}/scim/v2`,
      hasScimToken: row.scimTokenHash !== null,
      createdAt: iso(row.createdAt),
      updatedAt: iso(row.updatedAt),
    };
  }

  async function mustFind(ctx: RequestContext, id: string, q: Database = db): Promise<ProviderRow> {
    const row = await findProviderRow(q, ctx.actor.organizationId, id);
    if (!row) throw new NotFoundError('Identity provider');
    return row;
  }

  /**
   * Every mapped role (and the default role) must be of this organization, and the caller must
   * hold every permission they grant: configuring a provider must not hand out more power than
   * the caller has (the rule of POST /api/users).
   */
  async function assertAssignableRoles(q: Database, ctx: RequestContext, mappings: ReadonlyArray<{ roleId: string }>, defaultRoleId: string | null): Promise<void> {
    const wanted = [...new Set([...mappings.map((m) => m.roleId.toLowerCase()), ...(defaultRoleId ? [defaultRoleId.toLowerCase()] : [])])];
    const found = await rolesOf(q, ctx.actor.organizationId, wanted);
    const known = new Map(found.map((r) => [r.id, r]));
    const issues: ValidationIssue[] = [];
    mappings.forEach((m, i) => {
      if (!known.has(m.roleId.toLowerCase())) issues.push({ path: `roleMappings.${i}.roleId`, message: 'No such role in this organization', code: 'not_found', location: 'body' });
    });
    if (defaultRoleId && !known.has(defaultRoleId.toLowerCase())) issues.push({ path: 'defaultRoleId', message: 'No such role in this organization', code: 'not_found', location: 'body' });
    if (issues.length > 0) throw new ValidationError(issues);
    const granted = new Set(found.flatMap((r) => r.permissions));
    requirePermissions(ctx.actor, ...PERMISSIONS.filter((p) => granted.has(p)));
  }

  return {
    async list(ctx: RequestContext) {
      return { identityProviders: (await listProviderRows(db, ctx.actor.organizationId)).map(toDto) };
    },

    async get(ctx: RequestContext, id: string) {
      return toDto(await mustFind(ctx, id));
    },

    async create(ctx: RequestContext, input: CreateIdentityProviderInput): Promise<IdentityProviderDto> {
      const now = new Date();
      const roleMappings = input.roleMappings.map((m) => ({ group: m.group, roleId: m.roleId.toLowerCase() }));
      const defaultRoleId = input.defaultRoleId?.toLowerCase() ?? null;
      try {
        return await db.transaction().execute(async (tx) => {
          await assertAssignableRoles(tx, ctx, roleMappings, defaultRoleId);
          const row = await tx
            .insertInto('identityProviders')
            .values({
              id: uuidv7(),
              organizationId: ctx.actor.organizationId,
              name: input.name,
              issuer: normalizeIssuer(input.issuer),
              clientId: input.clientId,
              clientSecretCiphertext: secrets.encrypt(input.clientSecret),
              scopes: input.scopes ?? [...DEFAULT_SCOPES],
              groupsClaim: input.groupsClaim ?? DEFAULT_GROUPS_CLAIM,
              allowedEmailDomains: input.allowedEmailDomains ?? [],
              roleMappings: JSON.stringify(roleMappings),
              defaultRoleId,
              createdAt: now,
              updatedAt: now,
            })
            .returningAll()
            .executeTakeFirstOrThrow();
          await writeAudit(tx, ctx, { action: 'identityProvider.create', resourceType: 'identityProvider', resourceId: row.id, metadata: { name: row.name, issuer: row.issuer } });
          return toDto(row);
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken(input.name);
        throw err;
      }
    },

    async update(ctx: RequestContext, id: string, input: UpdateIdentityProviderInput): Promise<IdentityProviderDto> {
      try {
        return await db.transaction().execute(async (tx) => {
          const existing = await mustFind(ctx, id, tx);
          const issuer = input.issuer !== undefined ? normalizeIssuer(input.issuer) : existing.issuer;
          // The secret is bound to the issuer's origin: moving the issuer elsewhere without giving
          // the secret again would hand the stored secret to the new server at the next sign-in.
          if (!sameOrigin(issuer, existing.issuer) && input.clientSecret === undefined) {
            throw ValidationError.single('clientSecret', 'is required when the issuer moves to another origin (the stored secret stays bound to the old one)', 'required');
          }
          const roleMappings = input.roleMappings?.map((m) => ({ group: m.group, roleId: m.roleId.toLowerCase() }));
          const defaultRoleId = input.defaultRoleId === undefined ? undefined : (input.defaultRoleId?.toLowerCase() ?? null);
          if (roleMappings !== undefined || defaultRoleId) await assertAssignableRoles(tx, ctx, roleMappings ?? [], defaultRoleId ?? null);
          const row = await tx
            .updateTable('identityProviders')
            .set({
              ...(input.name !== undefined ? { name: input.name } : {}),
              issuer,
              ...(input.clientId !== undefined ? { clientId: input.clientId } : {}),
              ...(input.clientSecret !== undefined ? { clientSecretCiphertext: secrets.encrypt(input.clientSecret) } : {}),
              ...(input.scopes !== undefined ? { scopes: input.scopes } : {}),
              ...(input.groupsClaim !== undefined ? { groupsClaim: input.groupsClaim } : {}),
              ...(input.allowedEmailDomains !== undefined ? { allowedEmailDomains: input.allowedEmailDomains } : {}),
              ...(roleMappings !== undefined ? { roleMappings: JSON.stringify(roleMappings) } : {}),
              ...(defaultRoleId !== undefined ? { defaultRoleId } : {}),
              updatedAt: new Date(),
            })
            .where('organizationId', '=', ctx.actor.organizationId)
            .where('id', '=', existing.id)
            .returningAll()
            .executeTakeFirstOrThrow();
          await writeAudit(tx, ctx, { action: 'identityProvider.update', resourceType: 'identityProvider', resourceId: row.id, metadata: { changed: Object.keys(input) } });
          return toDto(row);
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken(input.name ?? '');
        throw err;
      }
    },

    /** Its users stay (they keep their role and API keys); they can no longer sign in through it. */
    async remove(ctx: RequestContext, id: string) {
      await db.transaction().execute(async (tx) => {
        const row = await mustFind(ctx, id, tx);
        await tx.deleteFrom('identityProviders').where('organizationId', '=', ctx.actor.organizationId).where('id', '=', row.id).execute();
        await writeAudit(tx, ctx, { action: 'identityProvider.delete', resourceType: 'identityProvider', resourceId: row.id, metadata: { name: row.name } });
      });
      return { success: true };
    },

    /** A new SCIM bearer token (the previous one stops working at once); only its hash is kept. */
    async issueScimToken(ctx: RequestContext, id: string): Promise<{ token: string }> {
      const token = `rsc_${randomBytes(32).toString('base64url')}`;
      await db.transaction().execute(async (tx) => {
        const row = await mustFind(ctx, id, tx);
        await tx
          .updateTable('identityProviders')
          .set({ scimTokenHash: hashScimToken(token), scimTokenCreatedAt: new Date(), updatedAt: new Date() })
          .where('organizationId', '=', ctx.actor.organizationId)
          .where('id', '=', row.id)
          .execute();
        await writeAudit(tx, ctx, { action: 'identityProvider.scimToken.create', resourceType: 'identityProvider', resourceId: row.id, metadata: { replaced: row.scimTokenHash !== null } });
      });
      return { token };
    },
  };
}

export type IdentityProvidersService = ReturnType<typeof createIdentityProvidersService>;
