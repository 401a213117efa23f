import { uuidv7 } from 'uuidv7';
import { withTransaction } from '../../platform/cache/transaction.js';
import type { RequestContext } from '../../platform/context.js';
import { updatedSecret } from '../../platform/secrets.js';
import { writeAudit } from '../../platform/audit.js';
import { NotFoundError, ValidationError } from '../../platform/http/errors.js';
import { nextCronRun } from '../../platform/cron.js';
import type { WebhookSource } from './signatures.fns.js';
import { findTriggerRow, insertTriggerRow, updateTriggerRow, type TriggerRow } from './triggers.repo.js';
import type { SaveBodyT, TriggerDto } from './triggers.schemas.js';
import { jiraWebhookAdminUrl, triggerDto, triggerWebhookUrl } from './triggers.fns.js';
import { invalidateTrigger, newTriggerSecret, requireAgent, versionTriggerAgent, type TriggerCommandDeps } from './triggers.writes.js';

// How a trigger comes to be over the API: a webhook trigger is drafted (its id, URL and secret,
// to paste into the sender) and then saved, which makes it accept deliveries; a cron trigger is
// saved at once. Config apply creates triggers through putTrigger (triggers.put.ts).

/** Creates a draft trigger with a fresh id and secret; saving it makes it accept deliveries. */
export async function draftTrigger(deps: TriggerCommandDeps, ctx: RequestContext, agentId: string, source: WebhookSource, jiraUrl: string | undefined) {
  const secret = newTriggerSecret();
  const additionalFields: { type: string; jiraUrl?: string } = { type: source };
  if (source === 'jira') additionalFields.jiraUrl = jiraWebhookAdminUrl(jiraUrl);
  const now = new Date();
  const row: TriggerRow = {
    id: uuidv7(),
    organizationId: ctx.actor.organizationId,
    agentId,
    source,
    name: '',
    status: 'draft',
    enabled: true,
    secretCiphertext: deps.secrets.encrypt(secret),
    signingSecretCiphertext: null,
    additionalFields,
    cronSchedule: null,
    cronTimezone: null,
    input: null,
    createAlert: null,
    routeAlerts: false,
    managedBy: null,
    managedSource: null,
    alertMapping: null,
    inputMapping: null,
    deliveryIdPointer: null,
    nextRunAt: null,
    lastRunAttemptedAt: null,
    lastRunSucceededAt: null,
    createdBy: ctx.actor.userId,
    updatedBy: ctx.actor.userId,
    createdAt: now,
    updatedAt: now,
  };
  await withTransaction(deps.db, async (tx) => {
    await requireAgent(tx, ctx, agentId);
    await insertTriggerRow(tx, row);
    await invalidateTrigger(deps, tx, row.id);
    await writeAudit(tx, ctx, { action: 'trigger.draft', resourceType: 'agentTrigger', resourceId: row.id, metadata: { agentId, source } });
  });
  return { success: true, data: { triggerId: row.id, secret, webhookUrl: triggerWebhookUrl(deps.baseUrl, source, row.id), additionalFields } };
}

/** Activates a draft webhook trigger, or creates a cron trigger. */
export async function saveTrigger(deps: TriggerCommandDeps, ctx: RequestContext, agentId: string, body: SaveBodyT): Promise<TriggerDto> {
  return withTransaction(deps.db, async (tx) => {
    await requireAgent(tx, ctx, agentId);
    const now = new Date();
    let row: TriggerRow;
    let action: string;
    if (body.source === 'cron') {
      action = 'trigger.create';
      row = {
        id: uuidv7(),
        organizationId: ctx.actor.organizationId,
        agentId,
        source: 'cron',
        name: body.name ?? '',
        status: 'active',
        enabled: body.enabled ?? true,
        secretCiphertext: null,
        signingSecretCiphertext: null,
        additionalFields: { type: 'cron' },
        cronSchedule: body.cronSchedule,
        cronTimezone: body.timezone ?? null,
        input: body.input ?? null,
        createAlert: body.createAlert ?? null,
        routeAlerts: body.routeAlerts ?? false,
        managedBy: null,
        managedSource: null,
        alertMapping: null,
        inputMapping: null,
        deliveryIdPointer: null,
        nextRunAt: nextCronRun(body.cronSchedule, now, body.timezone ?? null),
        lastRunAttemptedAt: null,
        lastRunSucceededAt: null,
        createdBy: ctx.actor.userId,
        updatedBy: ctx.actor.userId,
        createdAt: now,
        updatedAt: now,
      };
      await insertTriggerRow(tx, row);
    } else {
      action = 'trigger.save';
      const existing = await findTriggerRow(tx, ctx.actor.organizationId, agentId, body.triggerId, true);
      if (!existing) throw new NotFoundError('Trigger');
      if (existing.source !== body.source) {
        throw ValidationError.single('source', `does not match the trigger's source "${existing.source}"`, 'source_mismatch');
      }
      row = {
        ...existing,
        status: 'active',
        name: body.name ?? existing.name,
        enabled: body.enabled ?? existing.enabled,
        signingSecretCiphertext: updatedSecret(deps.secrets, body.signingSecret, existing.signingSecretCiphertext).ciphertext,
        additionalFields: { ...existing.additionalFields, ...(body.additionalFields ?? {}), type: existing.source },
        createAlert: body.createAlert !== undefined ? body.createAlert : existing.createAlert,
        routeAlerts: body.routeAlerts ?? existing.routeAlerts,
        alertMapping: body.alertMapping !== undefined ? body.alertMapping : existing.alertMapping,
        inputMapping: body.inputMapping !== undefined ? body.inputMapping : existing.inputMapping,
        deliveryIdPointer: body.deliveryIdPointer !== undefined ? body.deliveryIdPointer : existing.deliveryIdPointer,
        updatedBy: ctx.actor.userId,
        updatedAt: now,
      };
      await updateTriggerRow(tx, row);
    }
    await invalidateTrigger(deps, tx, row.id);
    await versionTriggerAgent(tx, ctx, agentId);
    await writeAudit(tx, ctx, {
      action,
      resourceType: 'agentTrigger',
      resourceId: row.id,
      metadata: { agentId, source: row.source, enabled: row.enabled, hasSigningSecret: row.signingSecretCiphertext !== null },
    });
    return triggerDto(row, deps.baseUrl);
  });
}
