import { iso } from '../../platform/time.js';
import { createsAlertByDefault } from '../alerts/index.js';
import type { TriggerRow } from './triggers.repo.js';
import type { TriggerDto } from './triggers.schemas.js';

/** Where a webhook trigger's sender posts: `<base URL>/api/trigger/<source>/<id>`. */
export function triggerWebhookUrl(baseUrl: string, source: string, id: string): string {
  return `${baseUrl}/api/trigger/${source}/${id}`;
}

/** The webhook admin page of a Jira site (Jira Cloud and Data Center: System → WebHooks). */
export function jiraWebhookAdminUrl(site: string | undefined): string {
  if (!site) return '';
  const url = new URL(site);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}/plugins/servlet/webhooks`;
}

/** A trigger as the API answers it: no secret, whether it has one; a cron trigger has no URL, a webhook trigger no input. */
export function triggerDto(row: TriggerRow, baseUrl: string): TriggerDto {
  const cron = row.source === 'cron';
  return {
    id: row.id,
    agentId: row.agentId,
    source: row.source as TriggerDto['source'],
    name: row.name,
    enabled: row.enabled,
    webhookUrl: cron ? null : triggerWebhookUrl(baseUrl, row.source, row.id),
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

/**
 * A cron trigger's `nextRunAt` as shown: none while it is disabled (it will not run), and never a
 * past time: a run that is due (the scheduler has not ticked since) starts now.
 */
export function nextRunShown(row: Pick<TriggerRow, 'source' | 'enabled' | 'nextRunAt'>, now: Date): string | null {
  if (row.source !== 'cron' || !row.enabled || !row.nextRunAt) return null;
  return iso(row.nextRunAt < now ? now : row.nextRunAt);
}
