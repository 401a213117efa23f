import { randomBytes } from 'node:crypto';
import { uuidv7 } from 'uuidv7';
import type { Database, Queryable } from '../../platform/db/database.js';
import { withTransaction } from '../../platform/cache/transaction.js';
import { assertEditable, managedColumns, type WriteOptions } from '../../platform/managed.js';
import type { IntakeTriggerCache } from './intake-cache.js';
import type { RequestContext } from '../../platform/context.js';
import { updatedSecret, type SecretBox } from '../../platform/secrets.js';
import { writeAudit } from '../../platform/audit.js';
import { NotFoundError, ValidationError } from '../../platform/http/errors.js';
import { iso } from '../../platform/time.js';
import { nextCronRun } from '../../platform/cron.js';
import { createsAlertByDefault } from '../alerts/index.js';
import { appendAgentVersion, findAgentRow, originOf } from '../agents/index.js';

import type { WebhookSource } from './signatures.fns.js';
import {
  deleteTriggerRow,
  findTriggerRow,
  insertTriggerRow,
  listActiveTriggerRows,
  listOrganizationTriggerRows,
  setTriggerSecret,
  triggerSettingsSql,
  updateTriggerRow,
  type TriggerRow,
} from './triggers.repo.js';
import type { SaveBodyT, TriggerDto, TriggerPutT, UpdateBodyT } from './triggers.schemas.js';

/**
 * A new trigger secret: 32 random bytes in the Standard Webhooks form (`whsec_<base64>`), so the
 * same value works as a bearer token, as an HMAC key for senders that sign with a shared string
 * (GitHub style, Jira) and as a Standard Webhooks signing key.
 */
export function newTriggerSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The webhook admin page of a Jira site (Jira Cloud and Data Center: System → WebHooks). */
export function jiraWebhookAdminUrl(site: string | undefined): string {
  if (!site) return '';
  const url = new URL(site);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}/plugins/servlet/webhooks`;
}

/**
 * A cron trigger's `nextRunAt` as shown: none while it is disabled (it will not run), and never a
 * past time: a run that is due (the scheduler has not ticked since) starts now.
 */
export function nextRunShown(row: Pick<TriggerRow, 'source' | 'enabled' | 'nextRunAt'>, now: Date): string | null {
  if (row.source !== 'cron' || !row.enabled || !row.nextRunAt) return null;
  return iso(row.nextRunAt < now ? now : row.nextRunAt);
}

export function createTriggersService(deps: { db: Database; secrets: SecretBox; baseUrl: string; cache: IntakeTriggerCache }) {
  const { db, secrets, baseUrl, cache } = deps;
  /** Every write: intake's cached copy of the trigger goes when the transaction ends (intake-cache.ts). */
  const invalidate = (tx: Queryable, triggerId: string) => cache.invalidate(tx, triggerId.toLowerCase());
  // A saved trigger's settings are part of its agent's versions: a change appends the agent's next version (agents' appendAgentVersion).
  // A trigger change is a change of its agent: the agent's next version records the triggers' settings (from code when config apply made it).
  const versionAgent = (tx: Queryable, ctx: RequestContext, agentId: string, opts?: WriteOptions) =>
    appendAgentVersion(tx, ctx.actor.organizationId, agentId, ctx.actor, opts?.managed ? { source: 'code', sourceRef: opts.managed.source } : originOf(ctx), triggerSettingsSql);

  const webhookUrl = (source: string, id: string) => `${baseUrl}/api/trigger/${source}/${id}`;

  function toDto(row: TriggerRow): TriggerDto {
    const cron = row.source === 'cron';
    return {
      id: row.id,
      agentId: row.agentId,
      source: row.source as TriggerDto['source'],
      name: row.name,
      enabled: row.enabled,
      webhookUrl: cron ? null : webhookUrl(row.source, row.id),
      hasSecret: row.secretCiphertext !== null,
      hasSigningSecret: row.signingSecretCiphertext !== null,
      cronSchedule: row.cronSchedule,
      timezone: cron ? row.cronTimezone : null,
      nextRunAt: nextRunShown(row, new Date()),
      input: cron ? (row.input ?? null) : null,
      additionalFields: row.additionalFields,
      createAlert: row.createAlert ?? createsAlertByDefault(row.source),
      routeAlerts: row.routeAlerts,
      alertMapping: row.alertMapping,
      inputMapping: row.inputMapping,
      deliveryIdPointer: row.deliveryIdPointer,
      managedBy: row.managedBy,
      managedSource: row.managedSource,
      lastRunAttemptedAt: iso(row.lastRunAttemptedAt),
      lastRunSucceededAt: iso(row.lastRunSucceededAt),
      createdAt: iso(row.createdAt),
      updatedAt: iso(row.updatedAt),
    };
  }

  async function requireAgent(ctx: RequestContext, agentId: string, q: Database = db): Promise<void> {
    if (!(await findAgentRow(q, ctx.actor.organizationId, agentId))) throw new NotFoundError('Agent');
  }

  return {
    put,

    /** Every active trigger of the organization, with its secrets still encrypted (config plan and export). */
    async organizationTriggers(ctx: RequestContext, q: Queryable = db): Promise<TriggerRow[]> {
      return listOrganizationTriggerRows(q, ctx.actor.organizationId);
    },

    /** Creates a draft trigger with a fresh id and secret; saving it makes it accept deliveries. */
    async fields(ctx: RequestContext, agentId: string, source: WebhookSource, jiraUrl: string | undefined) {
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
        secretCiphertext: secrets.encrypt(secret),
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
      await withTransaction(db, async (tx) => {
        await requireAgent(ctx, agentId, tx);
        await insertTriggerRow(tx, row);
        await invalidate(tx, row.id);
        await writeAudit(tx, ctx, { action: 'trigger.draft', resourceType: 'agentTrigger', resourceId: row.id, metadata: { agentId, source } });
      });
      return { success: true, data: { triggerId: row.id, secret, webhookUrl: webhookUrl(source, row.id), additionalFields } };
    },

    async list(ctx: RequestContext, agentId: string): Promise<{ triggers: TriggerDto[] }> {
      await requireAgent(ctx, agentId);
      const rows = await listActiveTriggerRows(db, ctx.actor.organizationId, agentId);
      return { triggers: rows.map(toDto) };
    },

    /** Activates a draft webhook trigger, or creates a cron trigger. */
    async save(ctx: RequestContext, agentId: string, body: SaveBodyT): Promise<TriggerDto> {
      return withTransaction(db, async (tx) => {
        await requireAgent(ctx, agentId, tx);
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
            signingSecretCiphertext: updatedSecret(secrets, body.signingSecret, existing.signingSecretCiphertext).ciphertext,
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
        await invalidate(tx, row.id);
        await versionAgent(tx, ctx, agentId);
        await writeAudit(tx, ctx, {
          action,
          resourceType: 'agentTrigger',
          resourceId: row.id,
          metadata: { agentId, source: row.source, enabled: row.enabled, hasSigningSecret: row.signingSecretCiphertext !== null },
        });
        return toDto(row);
      });
    },

    async update(ctx: RequestContext, agentId: string, triggerId: string, body: UpdateBodyT, opts?: WriteOptions): Promise<TriggerDto> {
      return withTransaction(db, async (tx) => {
        const existing = await findActive(tx, ctx, agentId, triggerId);
        assertEditable(existing, 'Trigger', existing.name, opts);
        const cron = existing.source === 'cron';
        if (!cron && (body.cronSchedule !== undefined || body.input !== undefined || body.timezone !== undefined)) {
          const field = body.cronSchedule !== undefined ? 'cronSchedule' : body.input !== undefined ? 'input' : 'timezone';
          throw ValidationError.single(field, 'applies to cron triggers only', 'not_applicable');
        }
        const webhookOnly = (['signingSecret', 'inputMapping', 'deliveryIdPointer'] as const).find((f) => body[f] !== undefined);
        if (cron && webhookOnly) throw ValidationError.single(webhookOnly, 'applies to webhook triggers only', 'not_applicable');
        const now = new Date();
        const signing = updatedSecret(secrets, body.signingSecret, existing.signingSecretCiphertext);
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
        await invalidate(tx, row.id);
        await versionAgent(tx, ctx, agentId, opts);
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
        return toDto(row);
      });
    },

    async setEnabled(ctx: RequestContext, agentId: string, triggerId: string, enabled: boolean, opts?: WriteOptions): Promise<TriggerDto> {
      return withTransaction(db, async (tx) => {
        const existing = await findActive(tx, ctx, agentId, triggerId);
        assertEditable(existing, 'Trigger', existing.name, opts);
        const now = new Date();
        // Re-enabling a schedule starts from now: no catch-up of the time it was off.
        const nextRunAt = existing.source === 'cron' && enabled && !existing.enabled ? nextCronRun(existing.cronSchedule!, now, existing.cronTimezone) : existing.nextRunAt;
        const row: TriggerRow = { ...existing, enabled, nextRunAt, updatedBy: ctx.actor.userId, updatedAt: now };
        await updateTriggerRow(tx, row);
        await invalidate(tx, row.id);
        await versionAgent(tx, ctx, agentId, opts);
        await writeAudit(tx, ctx, { action: 'trigger.status', resourceType: 'agentTrigger', resourceId: triggerId, metadata: { agentId, enabled } });
        return toDto(row);
      });
    },

    /** A new trigger secret for an active webhook trigger; the old one stops working at once. */
    async rotateSecret(ctx: RequestContext, agentId: string, triggerId: string): Promise<{ secret: string; webhookUrl: string }> {
      return withTransaction(db, async (tx) => {
        const existing = await findActive(tx, ctx, agentId, triggerId);
        if (existing.source === 'cron') throw ValidationError.single('triggerId', 'is a cron trigger: it has no secret', 'not_applicable', 'params');
        const secret = newTriggerSecret();
        await setTriggerSecret(tx, existing.organizationId, existing.id, secrets.encrypt(secret), new Date(), ctx.actor.userId);
        await invalidate(tx, existing.id);
        await writeAudit(tx, ctx, { action: 'trigger.rotateSecret', resourceType: 'agentTrigger', resourceId: triggerId, metadata: { agentId, source: existing.source } });
        return { secret, webhookUrl: webhookUrl(existing.source, existing.id) };
      });
    },

    async remove(ctx: RequestContext, agentId: string, triggerId: string, opts?: WriteOptions): Promise<{ success: boolean }> {
      await withTransaction(opts?.tx ?? db, async (tx) => {
        const existing = await findActive(tx, ctx, agentId, triggerId);
        assertEditable(existing, 'Trigger', existing.name, opts);
        if (!(await deleteTriggerRow(tx, ctx.actor.organizationId, agentId, triggerId))) throw new NotFoundError('Trigger');
        await invalidate(tx, triggerId);
        await versionAgent(tx, ctx, agentId, opts);
        await writeAudit(tx, ctx, { action: 'trigger.delete', resourceType: 'agentTrigger', resourceId: triggerId, metadata: { agentId } });
      });
      return { success: true };
    },
  };

  /**
   * Config apply: creates, or wholly replaces, an active trigger from its document. A webhook
   * trigger without a `secret` gets a new one on create (read it with rotate-secret) and keeps its
   * own on update; a trigger moved to another agent or source is replaced (a new id and URL).
   */
  async function put(ctx: RequestContext, agentId: string, triggerId: string | null, input: TriggerPutT, opts: WriteOptions): Promise<TriggerDto> {
    return withTransaction(opts.tx ?? db, async (tx) => {
      const now = new Date();
      let existing = triggerId ? await findTriggerRow(tx, ctx.actor.organizationId, agentId, triggerId, true) : null;
      if (triggerId && (!existing || existing.source !== input.source)) {
        // Another agent's or another source's trigger: the document replaces it.
        await tx.deleteFrom('agentTriggers').where('organizationId', '=', ctx.actor.organizationId).where('id', '=', triggerId).execute();
        await invalidate(tx, triggerId);
        existing = null;
      }
      await requireAgent(ctx, agentId, tx);
      const cron = input.source === 'cron';
      const secretCiphertext = cron ? null : input.secret ? secrets.encrypt(input.secret) : (existing?.secretCiphertext ?? secrets.encrypt(newTriggerSecret()));
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
        signingSecretCiphertext: input.signingSecret ? secrets.encrypt(input.signingSecret) : null,
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
      await invalidate(tx, row.id);
      await versionAgent(tx, ctx, agentId, opts);
      await writeAudit(tx, ctx, {
        action: existing ? 'trigger.update' : 'trigger.create',
        resourceType: 'agentTrigger',
        resourceId: row.id,
        metadata: { agentId, source: row.source, enabled: row.enabled, managedBy: row.managedBy },
      });
      return toDto(row);
    });
  }

  async function findActive(tx: Database, ctx: RequestContext, agentId: string, triggerId: string): Promise<TriggerRow> {
    const row = await findTriggerRow(tx, ctx.actor.organizationId, agentId, triggerId, true);
    if (!row || row.status !== 'active') throw new NotFoundError('Trigger');
    return row;
  }
}

export type TriggersService = ReturnType<typeof createTriggersService>;
