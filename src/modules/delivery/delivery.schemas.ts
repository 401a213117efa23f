import { z } from 'zod';
import { LimitOffsetQuery } from '../../platform/http/pagination.js';

export const DELIVERY_STATUSES = ['pending', 'sending', 'succeeded', 'retrying', 'failed', 'skipped'] as const;

export const DeliveryAttempt = z
  .object({
    attempt: z.number().int(),
    outcome: z
      .enum(['sending', 'succeeded', 'retrying', 'failed', 'skipped', 'interrupted'])
      .describe('The status this attempt left the delivery in; `sending` while in flight (recorded before the request leaves); `interrupted` when its worker died mid-send (whether the receiver got it is unknown)'),
    responseStatus: z.number().int().nullable().describe('HTTP status of the remote answer; null when none came (network error, timeout)'),
    responseExcerpt: z.string().nullable().describe('The first characters of the answer, credentials removed'),
    error: z.string().nullable(),
    startedAt: z.string(),
    durationMs: z.number().int().nullable().describe('Null while `sending` and for an `interrupted` attempt'),
  })
  .meta({ id: 'DestinationDeliveryAttempt' });

export const Delivery = z
  .object({
    id: z.uuid(),
    destinationId: z.uuid(),
    destinationName: z.string().describe('The destination\'s name when the delivery was queued (kept after it is deleted)'),
    destinationType: z.string(),
    eventKind: z.string().describe('`agent_run.completed`, `agent.message`, `alert.created`, `alert.status_changed`, …'),
    eventId: z.uuid().describe('Idempotency id: `webhook-id` and the envelope `id` for webhooks; the same on every retry and redelivery'),
    status: z.enum(DELIVERY_STATUSES),
    attemptCount: z.number().int(),
    responseStatus: z.number().int().nullable(),
    responseExcerpt: z.string().nullable(),
    error: z.string().nullable(),
    nextAttemptAt: z.string().nullable().describe('When `retrying`: the next attempt'),
    firstAttemptAt: z.string().nullable(),
    lastAttemptAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    attempts: z.array(DeliveryAttempt),
  })
  .meta({ id: 'DestinationDelivery' });

export const DeliveryList = z.object({ deliveries: z.array(Delivery), totalCount: z.number().int() });

export const DeliveriesQuery = LimitOffsetQuery.extend({
  status: z
    .string()
    .optional()
    .transform((s, ctx) => {
      if (s === undefined) return undefined;
      const list = s.split(',').map((x) => x.trim()).filter(Boolean);
      for (const x of list) {
        if (!(DELIVERY_STATUSES as readonly string[]).includes(x)) {
          ctx.addIssue({ code: 'custom', message: `must be one of ${DELIVERY_STATUSES.join(', ')}` });
          return z.NEVER;
        }
      }
      return list;
    })
    .describe('Comma-separated statuses to keep'),
});

export const DeliveryParams = z.object({ id: z.uuid({ error: 'must be a UUID' }), deliveryId: z.uuid({ error: 'must be a UUID' }) });

export const TestResult = z
  .object({
    ok: z.boolean(),
    status: z.number().int().nullable().describe('HTTP status of the remote answer; null when none came'),
    message: z.string().describe('What the remote side said (or why nothing was sent)'),
  })
  .meta({ id: 'DestinationTestResult' });
