import { uuidv7 } from 'uuidv7';
import type { Database } from '../../platform/db/database.js';
import { isUniqueViolation } from '../../platform/db/errors.js';
import type { RequestContext } from '../../platform/context.js';
import type { SecretBox } from '../../platform/secrets.js';
import { writeAudit } from '../../platform/audit.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/http/errors.js';
import { iso } from '../../platform/time.js';
import { withTransaction } from '../../platform/cache/transaction.js';
import { assertEditable, managedColumns, type WriteOptions } from '../../platform/managed.js';
import { assertSecretStaysWithOrigin, sameOrigin } from '../../platform/outbound/secret-origin.js';
import { redactUrlSecrets } from '../../platform/outbound/url-secrets.js';
import { hasPermission } from '../../platform/auth/actor.js';
import { findAliasRow, findProviderRow, listAliasRows, listProviderRows, type ProviderRow } from './models.repo.js';
import type { AliasDto, ProviderDto, ProviderInputT } from './models.schemas.js';

/**
 * `reveal`: the base URL as stored, for callers with `agent.manage` (who can change it anyway);
 * others get credentials inside it (`?key=`, `?api-key=`…) redacted, as for sources and destinations.
 */
function toProviderDto(row: ProviderRow, reveal: boolean): ProviderDto {
  return { id: row.id, name: row.name, type: row.type, baseUrl: row.baseUrl && !reveal ? redactUrlSecrets(row.baseUrl) : row.baseUrl, hasApiKey: row.apiKeyCiphertext !== null, managedBy: row.managedBy, managedSource: row.managedSource, createdAt: iso(row.createdAt), updatedAt: iso(row.updatedAt) };
}

/** Where a provider without baseUrl sends its key: the AI SDK providers' own defaults. */
const PUBLIC_API: Record<ProviderRow['type'], string | null> = { openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com/v1', 'openai-compatible': null };
const endpointOf = (p: { type: ProviderRow['type']; baseUrl?: string | null }) => p.baseUrl ?? PUBLIC_API[p.type];

const nameTaken = (name: string) => new ConflictError(`A model provider named "${name}" already exists`);

export function createModelsService(deps: { db: Database; secrets: SecretBox }) {
  const { db, secrets } = deps;

  async function mustFindProvider(ctx: RequestContext, id: string, q: Database = db): Promise<ProviderRow> {
    const row = await findProviderRow(q, ctx.actor.organizationId, id);
    if (!row) throw new NotFoundError('Model provider');
    return row;
  }

  return {
    async listProviders(ctx: RequestContext) {
      const reveal = hasPermission(ctx.actor, 'agent.manage');
      return { providers: (await listProviderRows(db, ctx.actor.organizationId)).map((r) => toProviderDto(r, reveal)) };
    },

    async getProvider(ctx: RequestContext, id: string) {
      return toProviderDto(await mustFindProvider(ctx, id), hasPermission(ctx.actor, 'agent.manage'));
    },

    /** `opts`: config apply's transaction and "managed by code" marking (platform/managed.ts). */
    async createProvider(ctx: RequestContext, input: ProviderInputT, opts?: WriteOptions): Promise<ProviderDto> {
      const now = new Date();
      try {
        return await withTransaction(opts?.tx ?? db, async (tx) => {
          const row = await tx
            .insertInto('modelProviders')
            .values({
              id: uuidv7(),
              organizationId: ctx.actor.organizationId,
              name: input.name,
              type: input.type,
              baseUrl: input.baseUrl ?? null,
              apiKeyCiphertext: input.apiKey ? secrets.encrypt(input.apiKey) : null,
              ...managedColumns(opts),
              createdAt: now,
              updatedAt: now,
            })
            .returningAll()
            .executeTakeFirstOrThrow();
          await writeAudit(tx, ctx, { action: 'modelProvider.create', resourceType: 'modelProvider', resourceId: row.id, metadata: { name: row.name, type: row.type, hasApiKey: !!input.apiKey } });
          return toProviderDto(row, true);
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken(input.name);
        throw err;
      }
    },

    /**
     * Replaces name, type and base URL; an omitted apiKey keeps the stored one, null clears it.
     * A change that sends the key to another origin (baseUrl, or type with the public API's
     * default) needs the key again.
     */
    async updateProvider(ctx: RequestContext, id: string, input: ProviderInputT, opts?: WriteOptions): Promise<ProviderDto> {
      const existing = await mustFindProvider(ctx, id, opts?.tx);
      assertEditable(existing, 'Model provider', existing.name, opts);
      assertSecretStaysWithOrigin({
        secretField: 'apiKey',
        urlField: sameOrigin(existing.baseUrl, input.baseUrl) ? 'type' : 'baseUrl',
        before: endpointOf(existing),
        after: endpointOf(input),
        stored: existing.apiKeyCiphertext !== null,
        given: input.apiKey !== undefined,
      });
      try {
        return await withTransaction(opts?.tx ?? db, async (tx) => {
          const row = await tx
            .updateTable('modelProviders')
            .set({
              name: input.name,
              type: input.type,
              baseUrl: input.baseUrl ?? null,
              ...(input.apiKey !== undefined ? { apiKeyCiphertext: input.apiKey ? secrets.encrypt(input.apiKey) : null } : {}),
              ...managedColumns(opts),
              updatedAt: new Date(),
            })
            .where('organizationId', '=', ctx.actor.organizationId)
            .where('id', '=', id)
            .returningAll()
            .executeTakeFirstOrThrow();
          await writeAudit(tx, ctx, { action: 'modelProvider.update', resourceType: 'modelProvider', resourceId: id, metadata: { name: row.name, apiKeyChanged: input.apiKey !== undefined } });
          return toProviderDto(row, true);
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken(input.name);
        throw err;
      }
    },

    /** Deleting a provider deletes the aliases that point at it. */
    async removeProvider(ctx: RequestContext, id: string, opts?: WriteOptions) {
      const row = await mustFindProvider(ctx, id, opts?.tx);
      assertEditable(row, 'Model provider', row.name, opts);
      await withTransaction(opts?.tx ?? db, async (tx) => {
        await tx.deleteFrom('modelProviders').where('organizationId', '=', ctx.actor.organizationId).where('id', '=', id).execute();
        await writeAudit(tx, ctx, { action: 'modelProvider.delete', resourceType: 'modelProvider', resourceId: id, metadata: { name: row.name } });
      });
      return { success: true };
    },

    async listAliases(ctx: RequestContext): Promise<{ aliases: AliasDto[] }> {
      const rows = await listAliasRows(db, ctx.actor.organizationId);
      return { aliases: rows.map((r) => ({ ...r, updatedAt: iso(r.updatedAt) })) };
    },

    /** Every alias with its provider row (config plan and export compare and write them). */
    async aliasesWithProviders(ctx: RequestContext, q: Database = db) {
      return { aliases: await listAliasRows(q, ctx.actor.organizationId), providers: await listProviderRows(q, ctx.actor.organizationId) };
    },

    async putAlias(ctx: RequestContext, alias: string, input: { providerId: string; modelId: string }, opts?: WriteOptions): Promise<AliasDto> {
      const q = opts?.tx ?? db;
      const provider = await findProviderRow(q, ctx.actor.organizationId, input.providerId);
      if (!provider) throw ValidationError.single('providerId', `no model provider ${input.providerId}`, 'unknown_reference');
      const existing = await findAliasRow(q, ctx.actor.organizationId, alias);
      if (existing) assertEditable(existing, 'Model', alias, opts);
      const now = new Date();
      const managed = managedColumns(opts);
      await withTransaction(q, async (tx) => {
        await tx
          .insertInto('modelAliases')
          .values({ organizationId: ctx.actor.organizationId, alias, providerId: provider.id, modelId: input.modelId, ...managed, createdAt: now, updatedAt: now })
          .onConflict((oc) => oc.columns(['organizationId', 'alias']).doUpdateSet({ providerId: provider.id, modelId: input.modelId, ...managed, updatedAt: now }))
          .execute();
        await writeAudit(tx, ctx, { action: 'modelAlias.put', resourceType: 'modelAlias', resourceId: alias, metadata: { providerId: provider.id, modelId: input.modelId } });
      });
      const managedBy = opts?.managed ? managed.managedBy! : (existing?.managedBy ?? null);
      const managedSource = opts?.managed ? managed.managedSource! : (existing?.managedSource ?? null);
      return { alias, providerId: provider.id, providerName: provider.name, providerType: provider.type, modelId: input.modelId, managedBy, managedSource, updatedAt: iso(now) };
    },

    async removeAlias(ctx: RequestContext, alias: string, opts?: WriteOptions) {
      await withTransaction(opts?.tx ?? db, async (tx) => {
        const existing = await findAliasRow(tx, ctx.actor.organizationId, alias);
        if (existing) assertEditable(existing, 'Model', alias, opts);
        const gone = await tx.deleteFrom('modelAliases').where('organizationId', '=', ctx.actor.organizationId).where('alias', '=', alias).executeTakeFirst();
        if (gone.numDeletedRows === 0n) throw new NotFoundError('Model alias');
        await writeAudit(tx, ctx, { action: 'modelAlias.delete', resourceType: 'modelAlias', resourceId: alias });
      });
      return { success: true };
    },
  };
}

export type ModelsService = ReturnType<typeof createModelsService>;
