import type { Queryable } from '../../platform/db/database.js';
import { withTransaction } from '../../platform/cache/transaction.js';
import { assertEditable, type WriteOptions } from '../../platform/managed.js';
import type { RequestContext } from '../../platform/context.js';
import { writeAudit } from '../../platform/audit.js';
import { NotFoundError, ValidationError } from '../../platform/http/errors.js';
import type { WebhookSource } from './signatures.fns.js';
import { deleteTriggerRow, listActiveTriggerRows, listOrganizationTriggerRows, setTriggerSecret, type TriggerRow } from './triggers.repo.js';
import type { SaveBodyT, TriggerDto, TriggerPutT, UpdateBodyT } from './triggers.schemas.js';
import { triggerDto, triggerWebhookUrl } from './triggers.fns.js';
import { findActiveTrigger, invalidateTrigger, newTriggerSecret, requireAgent, versionTriggerAgent, type TriggerCommandDeps } from './triggers.writes.js';
import { draftTrigger, saveTrigger } from './triggers.create.js';
import { setTriggerEnabled, updateTrigger } from './triggers.update.js';
import { putTrigger } from './triggers.put.js';

export { newTriggerSecret } from './triggers.writes.js';
export { jiraWebhookAdminUrl } from './triggers.fns.js';

/**
 * Triggers' commands, each over the same deps: drafting and saving (triggers.create.ts), changes
 * (triggers.update.ts), config apply's put (triggers.put.ts), and here the reads, the secret
 * rotation and the removal. Every write drops intake's cached copy and appends the agent's
 * version (triggers.writes.ts).
 */
export function createTriggersService(deps: TriggerCommandDeps) {
  const { db } = deps;
  return {
    /** Config apply: creates, or wholly replaces, an active trigger from its document (triggers.put.ts). */
    put: (ctx: RequestContext, agentId: string, triggerId: string | null, input: TriggerPutT, opts: WriteOptions) => putTrigger(deps, ctx, agentId, triggerId, input, opts),

    /** Every active trigger of the organization, with its secrets still encrypted (config plan and export). */
    async organizationTriggers(ctx: RequestContext, q: Queryable = db): Promise<TriggerRow[]> {
      return listOrganizationTriggerRows(q, ctx.actor.organizationId);
    },

    fields: (ctx: RequestContext, agentId: string, source: WebhookSource, jiraUrl: string | undefined) => draftTrigger(deps, ctx, agentId, source, jiraUrl),

    async list(ctx: RequestContext, agentId: string): Promise<{ triggers: TriggerDto[] }> {
      await requireAgent(db, ctx, agentId);
      const rows = await listActiveTriggerRows(db, ctx.actor.organizationId, agentId);
      return { triggers: rows.map((row) => triggerDto(row, deps.baseUrl)) };
    },

    save: (ctx: RequestContext, agentId: string, body: SaveBodyT) => saveTrigger(deps, ctx, agentId, body),

    update: (ctx: RequestContext, agentId: string, triggerId: string, body: UpdateBodyT, opts?: WriteOptions) => updateTrigger(deps, ctx, agentId, triggerId, body, opts),

    setEnabled: (ctx: RequestContext, agentId: string, triggerId: string, enabled: boolean, opts?: WriteOptions) => setTriggerEnabled(deps, ctx, agentId, triggerId, enabled, opts),

    /** A new trigger secret for an active webhook trigger; the old one stops working at once. */
    async rotateSecret(ctx: RequestContext, agentId: string, triggerId: string): Promise<{ secret: string; webhookUrl: string }> {
      return withTransaction(db, async (tx) => {
        const existing = await findActiveTrigger(tx, ctx, agentId, triggerId);
        if (existing.source === 'cron') throw ValidationError.single('triggerId', 'is a cron trigger: it has no secret', 'not_applicable', 'params');
        const secret = newTriggerSecret();
        await setTriggerSecret(tx, existing.organizationId, existing.id, deps.secrets.encrypt(secret), new Date(), ctx.actor.userId);
        await invalidateTrigger(deps, tx, existing.id);
        await writeAudit(tx, ctx, { action: 'trigger.rotateSecret', resourceType: 'agentTrigger', resourceId: triggerId, metadata: { agentId, source: existing.source } });
        return { secret, webhookUrl: triggerWebhookUrl(deps.baseUrl, existing.source, existing.id) };
      });
    },

    async remove(ctx: RequestContext, agentId: string, triggerId: string, opts?: WriteOptions): Promise<{ success: boolean }> {
      await withTransaction(opts?.tx ?? db, async (tx) => {
        const existing = await findActiveTrigger(tx, ctx, agentId, triggerId);
        assertEditable(existing, 'Trigger', existing.name, opts);
        if (!(await deleteTriggerRow(tx, ctx.actor.organizationId, agentId, triggerId))) throw new NotFoundError('Trigger');
        await invalidateTrigger(deps, tx, triggerId);
        await versionTriggerAgent(tx, ctx, agentId, opts);
        await writeAudit(tx, ctx, { action: 'trigger.delete', resourceType: 'agentTrigger', resourceId: triggerId, metadata: { agentId } });
      });
      return { success: true };
    },
  };
}

export type TriggersService = ReturnType<typeof createTriggersService>;
