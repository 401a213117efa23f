import { uuidv7 } from 'uuidv7';
import { withTransaction } from '../../platform/cache/transaction.js';
import { managedColumns, type WriteOptions } from '../../platform/managed.js';
import type { RequestContext } from '../../platform/context.js';
import { writeAudit } from '../../platform/audit.js';
import { nextCronRun } from '../../platform/cron.js';
import { findTriggerRow, insertTriggerRow, updateTriggerRow, type TriggerRow } from './triggers.repo.js';
import type { TriggerDto, TriggerPutT } from './triggers.schemas.js';
import { triggerDto } from './triggers.fns.js';
import { invalidateTrigger, newTriggerSecret, requireAgent, versionTriggerAgent, type TriggerCommandDeps } from './triggers.writes.js';

/**
 * Config apply: creates, or wholly replaces, an active trigger from its document. A webhook
 * trigger without a `secret` gets a new one on create (read it with rotate-secret) and keeps its
 * own on update; a trigger moved to another agent or source is replaced (a new id and URL).
 */
export async function putTrigger(deps: TriggerCommandDeps, ctx: RequestContext, agentId: string, triggerId: string | null, input: TriggerPutT, opts: WriteOptions): Promise<TriggerDto> {
  return withTransaction(opts.tx ?? deps.db, async (tx) => {
    const now = new Date();
    let existing = triggerId ? await findTriggerRow(tx, ctx.actor.organizationId, agentId, triggerId, true) : null;
    if (triggerId && (!existing || existing.source !== input.source)) {
      // Another agent's or another source's trigger: the document replaces it.
      await tx.deleteFrom('agentTriggers').where('organizationId', '=', ctx.actor.organizationId).where('id', '=', triggerId).execute();
      await invalidateTrigger(deps, tx, triggerId);
      existing = null;
    }
    await requireAgent(tx, ctx, agentId);
    const cron = input.source === 'cron';
    const secretCiphertext = cron ? null : input.secret ? deps.secrets.encrypt(input.secret) : (existing?.secretCiphertext ?? deps.secrets.encrypt(newTriggerSecret()));
    const scheduleChanged = cron && (existing?.cronSchedule !== input.cronSchedule || (existing?.cronTimezone ?? null) !== (input.timezone ?? null) || (input.enabled && !existing?.enabled));
    const row: TriggerRow = {
      id: existing?.id ?? uuidv7(),
      organizationId: ctx.actor.organizationId,
      agentId,
      source: input.source,
      name: input.name,
      status: 'active',
      enabled: input.enabled,
      secretCiphertext,
      signingSecretCiphertext: input.signingSecret ? deps.secrets.encrypt(input.signingSecret) : null,
      additionalFields: { ...input.additionalFields, type: input.source },
      cronSchedule: cron ? (input.cronSchedule ?? null) : null,
      cronTimezone: cron ? (input.timezone ?? null) : null,
      input: cron ? (input.input ?? null) : null,
      createAlert: input.createAlert,
      routeAlerts: input.routeAlerts,
      alertMapping: input.alertMapping,
      inputMapping: cron ? null : input.inputMapping,
      deliveryIdPointer: cron ? null : input.deliveryIdPointer,
      managedBy: existing?.managedBy ?? null,
      managedSource: existing?.managedSource ?? null,
      ...managedColumns(opts),
      nextRunAt: !cron ? null : scheduleChanged ? nextCronRun(input.cronSchedule!, now, input.timezone ?? null) : (existing?.nextRunAt ?? nextCronRun(input.cronSchedule!, now, input.timezone ?? null)),
      lastRunAttemptedAt: existing?.lastRunAttemptedAt ?? null,
      lastRunSucceededAt: existing?.lastRunSucceededAt ?? null,
      createdBy: existing?.createdBy ?? ctx.actor.userId,
      updatedBy: ctx.actor.userId,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    if (existing) await updateTriggerRow(tx, row);
    else await insertTriggerRow(tx, row);
    await invalidateTrigger(deps, tx, row.id);
    await versionTriggerAgent(tx, ctx, agentId, opts);
    await writeAudit(tx, ctx, {
      action: existing ? 'trigger.update' : 'trigger.create',
      resourceType: 'agentTrigger',
      resourceId: row.id,
      metadata: { agentId, source: row.source, enabled: row.enabled, managedBy: row.managedBy },
    });
    return triggerDto(row, deps.baseUrl);
  });
}
