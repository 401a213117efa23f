import { uuidv7 } from 'uuidv7';
import { redactSecrets, redactUrlSecrets } from '../../../platform/outbound/url-secrets.js';
import { assertSecretStaysWithOrigin } from '../../../platform/outbound/secret-origin.js';
import type { Database, Queryable } from '../../../platform/db/database.js';
import type { RequestContext } from '../../../platform/context.js';
import type { SecretBox } from '../../../platform/secrets.js';
import { writeAudit } from '../../../platform/audit.js';
import { BadRequestError, NotFoundError, ValidationError } from '../../../platform/http/errors.js';
import { enqueue } from '../../../platform/jobs/enqueue.js';
import { iso } from '../../../platform/time.js';
import { syncSourceJob } from './sync.job-def.js';
import { defaultSubscription, findSourceView, insertSource, listSourceViews, updateSource, upsertSubscription, type SourceView } from './sources.repo.js';
import type { CreateSourceInput, CustomFeedDto, SourceDto, UpdateSourceInput } from './sources.schemas.js';
import { MAX_ENTRIES, MAX_ENTRIES_STREAMED } from './sources.schemas.js';

const DEFAULT_CRON = { rss: '*/30 * * * *', api: '15 * * * *' } as const;
const DEFAULT_MAX_ENTRIES = 200;

/**
 * `reveal`: the URLs as stored, for callers with `intel.manage`; others get credentials inside
 * URLs (`?apikey=`, `user:pass@`) redacted.
 */
export function toSourceDto(v: SourceView, reveal = false): SourceDto {
  const subscriptionEnabled = v.subscriptionEnabled ?? defaultSubscription(v);
  return {
    id: v.id,
    name: v.name,
    displayName: v.displayName,
    description: v.description,
    kind: v.kind,
    apiType: v.apiType,
    isBuiltIn: v.builtinKey !== null,
    feedUrl: v.feedUrl && !reveal ? redactUrlSecrets(v.feedUrl) : v.feedUrl,
    serverUrl: v.serverUrl && !reveal ? redactUrlSecrets(v.serverUrl) : v.serverUrl,
    collectionId: v.collectionId,
    authType: v.authType,
    organizationId: v.organizationId,
    createdBy: v.createdBy,
    hasApiKey: v.apiKeyCiphertext !== null,
    enabled: v.sourceEnabled && subscriptionEnabled,
    sourceEnabled: v.sourceEnabled,
    subscriptionEnabled,
    scheduleCron: v.scheduleCron,
    maxEntries: v.maxEntries,
    lastFetchedAt: iso(v.lastFetchedAt),
    lastStatus: v.lastStatus,
    lastError: redactSecrets(v.lastError),
    itemCountLast24h: v.itemCountLast24h,
    createdAt: iso(v.createdAt),
    updatedAt: iso(v.updatedAt),
    syncJob: v.jobId
      ? {
          jobId: v.jobId,
          status: v.jobStatus!,
          queuedAt: iso(v.jobQueuedAt!),
          startedAt: iso(v.jobStartedAt),
          finishedAt: iso(v.jobFinishedAt),
          updatedAt: iso(v.jobUpdatedAt!),
          attemptCount: v.jobAttemptCount ?? 0,
          error: v.jobError,
        }
      : null,
  };
}

export function toCustomFeedDto(v: SourceView, reveal = false): CustomFeedDto {
  return {
    id: v.id,
    name: v.name,
    displayName: v.displayName,
    feedUrl: reveal ? v.feedUrl! : redactUrlSecrets(v.feedUrl!),
    organizationId: v.organizationId!,
    createdBy: v.createdBy,
    enabled: v.sourceEnabled,
    scheduleCron: v.scheduleCron,
    maxEntries: v.maxEntries,
    lastFetchedAt: iso(v.lastFetchedAt),
    lastStatus: v.lastStatus,
    lastError: redactSecrets(v.lastError),
    createdAt: iso(v.createdAt),
    updatedAt: iso(v.updatedAt),
  };
}

/**
 * Enqueue a sync of (organization, source) unless one is pending or running, in which case
 * that one is returned: repeated clicks and overlapping schedules never pile up.
 */
export async function requestSync(tx: Queryable, organizationId: string, sourceId: string, trigger: 'manual' | 'schedule'): Promise<string> {
  {
    const active = await tx
      .selectFrom('intelSyncJobs')
      .select('id')
      .where('organizationId', '=', organizationId)
      .where('sourceId', '=', sourceId)
      .where('status', 'in', ['pending', 'running'])
      .forUpdate()
      .executeTakeFirst();
    if (active) return active.id;
    const id = uuidv7();
    const now = new Date();
    const inserted = await tx
      .insertInto('intelSyncJobs')
      .values({ id, organizationId, sourceId, status: 'pending', trigger, queuedAt: now, updatedAt: now })
      .onConflict((oc) => oc.columns(['organizationId', 'sourceId']).where('status', 'in', ['pending', 'running']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) {
      // A concurrent request won the race; answer with its job.
      const winner = await tx.selectFrom('intelSyncJobs').select('id').where('organizationId', '=', organizationId).where('sourceId', '=', sourceId).where('status', 'in', ['pending', 'running']).executeTakeFirstOrThrow();
      return winner.id;
    }
    await enqueue(tx, syncSourceJob, { syncJobId: id }, { jobKey: `intel-sync:${id}` });
    return id;
  }
}

export function createSourcesService(deps: { db: Database; secrets: SecretBox }) {
  const { db, secrets } = deps;

  async function mustFind(q: Queryable, ctx: RequestContext, id: string): Promise<SourceView> {
    const view = await findSourceView(q, ctx.actor.organizationId, id);
    if (!view) throw new NotFoundError('Source');
    return view;
  }

  return {
    listViews(ctx: RequestContext): Promise<SourceView[]> {
      return listSourceViews(db, ctx.actor.organizationId);
    },

    async get(ctx: RequestContext, id: string): Promise<SourceView> {
      return mustFind(db, ctx, id);
    },

    async create(ctx: RequestContext, input: CreateSourceInput): Promise<SourceDto> {
      const id = uuidv7();
      const now = new Date();
      await db.transaction().execute(async (tx) => {
        await insertSource(tx, {
          id,
          organizationId: ctx.actor.organizationId,
          builtinKey: null,
          name: input.name,
          displayName: input.displayName ?? input.name,
          description: input.description ?? '',
          kind: input.kind,
          apiType: input.kind === 'api' ? input.apiType! : null,
          feedUrl: input.feedUrl ?? null,
          serverUrl: input.serverUrl ?? null,
          collectionId: input.collectionId ?? null,
          authType: input.kind === 'api' ? (input.authType ?? (input.apiKey ? 'bearer' : null)) : null,
          username: input.username ?? null,
          apiKeyCiphertext: input.apiKey ? secrets.encrypt(input.apiKey) : null,
          sourceEnabled: input.enabled ?? true,
          scheduleCron: input.scheduleCron ?? DEFAULT_CRON[input.kind],
          maxEntries: input.maxEntries ?? (input.apiType === 'osv' ? MAX_ENTRIES_STREAMED : DEFAULT_MAX_ENTRIES),
          createdBy: ctx.actor.userId,
          createdAt: now,
          updatedAt: now,
        });
        await upsertSubscription(tx, ctx.actor.organizationId, id, true);
        await writeAudit(tx, ctx, { action: 'intelSource.create', resourceType: 'intelSource', resourceId: id, metadata: { name: input.name, kind: input.kind, apiType: input.apiType ?? null, hasApiKey: !!input.apiKey } });
      });
      return toSourceDto(await mustFind(db, ctx, id), true);
    },

    /** Custom: update fields. Built-in: only `enabled`, which toggles this organization's subscription. */
    async update(ctx: RequestContext, id: string, input: UpdateSourceInput): Promise<SourceDto> {
      await db.transaction().execute(async (tx) => {
        const view = await mustFind(tx, ctx, id);
        if (view.builtinKey) {
          const others = Object.keys(input).filter((k) => k !== 'enabled');
          if (others.length > 0 || input.enabled === undefined) {
            throw new BadRequestError(`Built-in sources can only be subscribed or unsubscribed: send {"enabled": true|false} (not ${others.join(', ') || 'an empty change'})`);
          }
          await upsertSubscription(tx, ctx.actor.organizationId, id, input.enabled);
          await writeAudit(tx, ctx, { action: input.enabled ? 'intelSource.subscribe' : 'intelSource.unsubscribe', resourceType: 'intelSource', resourceId: id });
          return;
        }
        validateKindFields(view, input);
        // Every connector sends the key to serverUrl's origin (CSAF: only there, docs/hunt.md).
        assertSecretStaysWithOrigin({ secretField: 'apiKey', urlField: 'serverUrl', before: view.serverUrl, after: input.serverUrl ?? view.serverUrl, stored: view.apiKeyCiphertext !== null, given: input.apiKey !== undefined });
        await updateSource(tx, id, {
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.displayName !== undefined ? { displayName: input.displayName } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(input.feedUrl !== undefined ? { feedUrl: input.feedUrl } : {}),
          ...(input.serverUrl !== undefined ? { serverUrl: input.serverUrl } : {}),
          ...(input.apiType !== undefined ? { apiType: input.apiType } : {}),
          ...(input.collectionId !== undefined ? { collectionId: input.collectionId } : {}),
          ...(input.authType !== undefined ? { authType: input.authType } : {}),
          ...(input.username !== undefined ? { username: input.username } : {}),
          ...(input.apiKey !== undefined ? { apiKeyCiphertext: secrets.encrypt(input.apiKey) } : {}),
          ...(input.enabled !== undefined ? { sourceEnabled: input.enabled } : {}),
          ...(input.scheduleCron !== undefined ? { scheduleCron: input.scheduleCron } : {}),
          ...(input.maxEntries !== undefined ? { maxEntries: input.maxEntries } : {}),
        });
        if (input.displayName !== undefined && input.displayName !== view.displayName) {
          // Indicators carry their source's name (exports, TAXII, /iocs): a rename reaches those
          // already served too (the intel-out change triggers re-version the STIX objects).
          await tx.updateTable('intelIndicators').set({ sourceLabel: input.displayName })
            .where('organizationId', '=', ctx.actor.organizationId)
            .where('itemId', 'in', (eb) => eb.selectFrom('intelItems').select('id').where('organizationId', '=', ctx.actor.organizationId).where('sourceId', '=', id))
            .where('sourceLabel', '<>', input.displayName)
            .execute();
        }
        if (input.scheduleCron !== undefined) {
          await tx.updateTable('intelSourceStates').set({ nextSyncAt: null }).where('sourceId', '=', id).execute();
        }
        await writeAudit(tx, ctx, { action: 'intelSource.update', resourceType: 'intelSource', resourceId: id, metadata: { changed: Object.keys(input) } });
      });
      return toSourceDto(await mustFind(db, ctx, id), true);
    },

    /** Deletes a custom source with its items (and, through foreign keys, their indicators) in one transaction. */
    async remove(ctx: RequestContext, id: string): Promise<{ success: boolean }> {
      await db.transaction().execute(async (tx) => {
        const view = await mustFind(tx, ctx, id);
        if (view.builtinKey) throw new BadRequestError('Built-in sources cannot be deleted; unsubscribe with PUT /sources/{id} {"enabled": false}');
        const items = await tx.deleteFrom('intelItems').where('organizationId', '=', ctx.actor.organizationId).where('sourceId', '=', id).executeTakeFirst();
        // The vulnerability store's records of the source (no foreign key: migration 0154).
        await tx.deleteFrom('intelVulnerabilities').where('organizationId', '=', ctx.actor.organizationId).where('sourceId', '=', id).execute();
        await tx.deleteFrom('intelSources').where('id', '=', id).where('organizationId', '=', ctx.actor.organizationId).execute();
        await writeAudit(tx, ctx, { action: 'intelSource.delete', resourceType: 'intelSource', resourceId: id, metadata: { name: view.name, itemsDeleted: Number(items.numDeletedRows) } });
      });
      return { success: true };
    },

    async sync(ctx: RequestContext, id: string): Promise<{ view: SourceView; jobId: string }> {
      await mustFind(db, ctx, id);
      const jobId = await db.transaction().execute(async (tx) => {
        const jobId = await requestSync(tx, ctx.actor.organizationId, id, 'manual');
        await writeAudit(tx, ctx, { action: 'intelSource.sync', resourceType: 'intelSource', resourceId: id, metadata: { jobId } });
        return jobId;
      });
      return { view: await mustFind(db, ctx, id), jobId };
    },
  };
}

function validateKindFields(view: SourceView, input: UpdateSourceInput): void {
  const wrong =
    view.kind === 'rss'
      ? (['serverUrl', 'apiType', 'apiKey', 'collectionId', 'authType', 'username'] as const).filter((f) => input[f] !== undefined)
      : (['feedUrl'] as const).filter((f) => input[f] !== undefined);
  if (wrong.length) {
    throw new ValidationError(wrong.map((f) => ({ path: f, message: `does not apply to a source of kind "${view.kind}"`, code: 'custom', location: 'body' as const })));
  }
  if (input.maxEntries !== undefined && input.maxEntries > MAX_ENTRIES && (input.apiType ?? view.apiType) !== 'osv') {
    throw new ValidationError([{ path: 'maxEntries', message: `must be at most ${MAX_ENTRIES} (only apiType "osv", streamed, reads up to ${MAX_ENTRIES_STREAMED})`, code: 'custom', location: 'body' }]);
  }
}

export type SourcesService = ReturnType<typeof createSourcesService>;
