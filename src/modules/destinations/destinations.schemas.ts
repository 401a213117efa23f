import { z } from 'zod';

/**
 * Output destinations (spec §2.1): six variants discriminated by `type`. `token` is the
 * credential used to deliver (webhook bearer/header value, Slack bot token, PagerDuty routing
 * key, Linear or Tines API key); it is write-only except to callers with `destination.manage`,
 * and `hasToken` always tells whether one is stored. Teams workflow URLs carry their own
 * signature, so the teams variant has no token.
 */
const httpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .max(2048);

export const WebhookConfig = z.strictObject({
  url: httpUrl.describe('URL that receives a POST'),
  authType: z.enum(['bearer', 'header']).describe('`bearer`: `Authorization: Bearer <token>`; `header`: the token in `headerName`'),
  headerName: z
    .string()
    .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/, 'must be a valid HTTP header name')
    .optional()
    .describe('Header carrying the token; required when authType is `header`'),
});
export const TeamsConfig = z.strictObject({ url: httpUrl.describe('Workflow webhook URL to POST to') });
export const BlockedChannel = z.strictObject({
  reason: z.literal('archived'),
  blockedAt: z.string().min(1).describe('When the channel was reported archived'),
});
export const SlackConfig = z.strictObject({
  channelIds: z.array(z.string().min(1).max(64)).min(1, 'must contain at least 1 channel id').max(100),
  configurationRevision: z.number().int().min(0).optional(),
  blockedChannels: z
    .record(z.string().min(1), BlockedChannel)
    .optional()
    .describe('Channels delivery skips until a user updates the destination'),
});
export const PagerDutyConfig = z.strictObject({
  severity: z.enum(['critical', 'error', 'warning', 'info']).describe('Default severity of alerts'),
  source: z.string().min(1).max(255).optional().describe('Source identifier; defaults to the detection name'),
});
export const LinearConfig = z.strictObject({
  teamId: z.string().min(1).max(255),
  teamName: z.string().max(255).optional(),
  labelIds: z.array(z.string().min(1).max(255)).max(50).optional(),
  labelNames: z.array(z.string().max(255)).max(50).optional(),
  workflowStateId: z.string().min(1).max(255).optional(),
  workflowStateName: z.string().max(255).optional(),
});
export const TinesConfig = z.strictObject({
  teamId: z.string().regex(/^\d+$/, 'must contain digits only').max(32),
  teamName: z.string().max(255).optional(),
});

export const DESTINATION_TYPES = ['webhook', 'teams', 'slack', 'pagerduty', 'linear', 'tines'] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];

const name = z.string().trim().min(1, 'must be 1..255 characters').max(255, 'must be 1..255 characters');
const token = z
  .string()
  .min(1)
  .max(4096)
  .nullable()
  .optional()
  .describe('Credential for delivery. Write-only unless the caller has `destination.manage`. On update: omit to keep, null to clear.');

const inputVariant = <T extends DestinationType, C extends z.ZodType>(type: T, config: C, withToken = true) =>
  z.strictObject({ type: z.literal(type), name, config, ...(withToken ? { token } : {}) });

export const DestinationInput = z
  .discriminatedUnion('type', [
    inputVariant('webhook', WebhookConfig).refine((d) => d.config.authType !== 'header' || !!d.config.headerName, {
      message: 'headerName is required when authType is "header"',
      path: ['config', 'headerName'],
    }),
    inputVariant('teams', TeamsConfig, false),
    inputVariant('slack', SlackConfig),
    inputVariant('pagerduty', PagerDutyConfig),
    inputVariant('linear', LinearConfig),
    inputVariant('tines', TinesConfig),
  ])
  .meta({ id: 'OutputDestinationWrite', description: 'Create or replace a destination. Every field of the variant is checked.' });
export type DestinationInputT = z.infer<typeof DestinationInput>;

const outputVariant = <T extends DestinationType, C extends z.ZodType>(type: T, config: C, id: string) =>
  z
    .object({
      id: z.uuid(),
      organizationId: z.uuid(),
      name: z.string(),
      createdAt: z.string(),
      updatedAt: z.string(),
      type: z.literal(type),
      config,
      token: z.string().optional().describe('Present only for callers with `destination.manage` when a token is stored'),
      hasToken: z.boolean(),
    })
    .meta({ id });

export const Destination = z
  .discriminatedUnion('type', [
    outputVariant('webhook', WebhookConfig, 'WebhookDestination'),
    outputVariant('teams', TeamsConfig, 'TeamsDestination'),
    outputVariant('slack', SlackConfig, 'SlackDestination'),
    outputVariant('pagerduty', PagerDutyConfig, 'PagerDutyDestination'),
    outputVariant('linear', LinearConfig, 'LinearDestination'),
    outputVariant('tines', TinesConfig, 'TinesDestination'),
  ])
  .meta({ id: 'OutputDestination' });
export type DestinationDto = z.infer<typeof Destination>;

export const DestinationList = z.array(Destination);

export { DeleteResult } from '../../platform/http/responses.js';

export const Delivery = z
  .object({
    id: z.uuid(),
    destinationId: z.uuid(),
    eventKind: z.string(),
    status: z.enum(['pending', 'delivered', 'failed', 'skipped']),
    attemptCount: z.number().int(),
    responseStatus: z.number().int().nullable(),
    error: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'DestinationDelivery' });
export const DeliveryList = z.object({ deliveries: z.array(Delivery), totalCount: z.number().int() });
