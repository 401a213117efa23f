import { withTransaction } from '../../platform/cache/transaction.js';
import { assertEditable, type WriteOptions } from '../../platform/managed.js';
import type { RequestContext } from '../../platform/context.js';
import { updatedSecret } from '../../platform/secrets.js';
import { writeAudit } from '../../platform/audit.js';
import { ValidationError } from '../../platform/http/errors.js';
import { nextCronRun } from '../../platform/cron.js';
import { updateTriggerRow, type TriggerRow } from './triggers.repo.js';
import type { TriggerDto, UpdateBodyT } from './triggers.schemas.js';
import { triggerDto } from './triggers.fns.js';
import { findActiveTrigger, invalidateTrigger, versionTriggerAgent, type TriggerCommandDeps } from './triggers.writes.js';

// The changes of an active trigger over the API (and config apply's enable/disable): each
// checks the trigger is not managed by code unless the write comes from it (assertEditable).

/** Changes an active trigger's settings; the fields of the other kind (cron or webhook) are refused. */
export async function updateTrigger(deps: TriggerCommandDeps, ctx: RequestContext, agentId: string, triggerId: string, body: UpdateBodyT, opts?: WriteOptions): Promise<TriggerDto> {
  return withTransaction(deps.db, async (tx) => {
    const existing = await findActiveTrigger(tx, ctx, agentId, triggerId);
    assertEditable(existing, 'Trigger', existing.name, opts);
    const cron = existing.source === 'cron';
    if (!cron && (body.cronSchedule !== undefined || body.input !== undefined || body.timezone !== undefined)) {
      const field = body.cronSchedule !== undefined ? 'cronSchedule' : body.input !== undefined ? 'input' : 'timezone';
      throw ValidationError.single(field, 'applies to cron triggers only', 'not_applicable');
    }
    const webhookOnly = (['signingSecret', 'inputMapping', 'deliveryIdPointer'] as const).find((f) => body[f] !== undefined);
    if (cron && webhookOnly) throw ValidationError.single(webhookOnly, 'applies to webhook triggers only', 'not_applicable');
    const now = new Date();
    const signing = updatedSecret(deps.secrets, body.signingSecret, existing.signingSecretCiphertext);
    const timezone = body.timezone !== undefined ? body.timezone : existing.cronTimezone;
    const scheduleChanged = cron && ((body.cronSchedule !== undefined && body.cronSchedule !== existing.cronSchedule) || timezone !== existing.cronTimezone);
    const row: TriggerRow = {
      ...existing,
      name: body.name ?? existing.name,
      signingSecretCiphertext: signing.ciphertext,
      additionalFields: { ...existing.additionalFields, ...(body.additionalFields ?? {}), type: existing.source },
      cronSchedule: body.cronSchedule ?? existing.cronSchedule,
      cronTimezone: cron ? timezone : null,
      input: body.input !== undefined ? body.input : existing.input,
      createAlert: body.createAlert !== undefined ? body.createAlert : existing.createAlert,
      routeAlerts: body.routeAlerts ?? existing.routeAlerts,
      alertMapping: body.alertMapping !== undefined ? body.alertMapping : existing.alertMapping,
      inputMapping: body.inputMapping !== undefined ? body.inputMapping : existing.inputMapping,
      deliveryIdPointer: body.deliveryIdPointer !== undefined ? body.deliveryIdPointer : existing.deliveryIdPointer,
      nextRunAt: scheduleChanged ? nextCronRun(body.cronSchedule ?? existing.cronSchedule!, now, timezone) : existing.nextRunAt,
      updatedBy: ctx.actor.userId,
      updatedAt: now,
    };
    await updateTriggerRow(tx, row);
    await invalidateTrigger(deps, tx, row.id);
    await versionTriggerAgent(tx, ctx, agentId, opts);
    await writeAudit(tx, ctx, {
      action: 'trigger.update',
      resourceType: 'agentTrigger',
      resourceId: triggerId,
      metadata: {
        agentId,
        fields: Object.keys(body).filter((k) => k !== 'signingSecret'),
        signingSecret: signing.change,
      },
    });
    return triggerDto(row, deps.baseUrl);
  });
}

export async function setTriggerEnabled(deps: TriggerCommandDeps, ctx: RequestContext, agentId: string, triggerId: string, enabled: boolean, opts?: WriteOptions): Promise<TriggerDto> {
  return withTransaction(deps.db, async (tx) => {
    const existing = await findActiveTrigger(tx, ctx, agentId, triggerId);
    assertEditable(existing, 'Trigger', existing.name, opts);
    const now = new Date();
    // Re-enabling a schedule starts from now: no catch-up of the time it was off.
    const nextRunAt = existing.source === 'cron' && enabled && !existing.enabled ? nextCronRun(existing.cronSchedule!, now, existing.cronTimezone) : existing.nextRunAt;
    const row: TriggerRow = { ...existing, enabled, nextRunAt, updatedBy: ctx.actor.userId, updatedAt: now };
    await updateTriggerRow(tx, row);
    await invalidateTrigger(deps, tx, row.id);
    await versionTriggerAgent(tx, ctx, agentId, opts);
    await writeAudit(tx, ctx, { action: 'trigger.status', resourceType: 'agentTrigger', resourceId: triggerId, metadata: { agentId, enabled } });
    return triggerDto(row, deps.baseUrl);
  });
}
