import { z } from 'zod';
import { managedFields } from '../../platform/managed.js';
import { endpointUrl } from '../../platform/http/url-schemas.js';

/**
 * Output destinations (the API spec's "Output destination"; docs/delivery.md): six variants discriminated by `type`. `token` is the
 * credential used to deliver (webhook bearer/header value, Slack bot token, PagerDuty routing
 * key, Linear or Tines API key); it is write-only except to callers with `destination.manage`,
 * and `hasToken` always tells whether one is stored. Teams workflow URLs carry their own
 * signature, so the teams variant has no token.
 */
const httpUrl = endpointUrl();

export const WebhookConfig = z.strictObject({
  url: httpUrl.describe('URL that receives a POST'),
  authType: z.enum(['bearer', 'header']).describe('`bearer`: `Authorization: Bearer <token>`; `header`: the token in `headerName`'),
  headerName: z
    .string()
    .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/, 'must be a valid HTTP header name')
    .optional()
    .describe('Header carrying the token; required when authType is `header`'),
});
const apiBaseUrl = httpUrl
  .optional()
  .describe('Extension: API base URL override (regional endpoint, self-hosted gateway, proxy); the product path is appended to it');

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
  apiBaseUrl: apiBaseUrl.describe('Extension: Slack Web API base, default https://slack.com/api (`/chat.postMessage` is appended)'),
});
export const PagerDutyConfig = z.strictObject({
  severity: z.enum(['critical', 'error', 'warning', 'info']).describe('Default severity of alerts'),
  source: z.string().min(1).max(255).optional().describe('Source identifier; defaults to the detection name'),
  apiBaseUrl: apiBaseUrl.describe('Extension: Events API base, default https://events.pagerduty.com (`/v2/enqueue` is appended; e.g. https://events.eu.pagerduty.com)'),
});
export const LinearConfig = z.strictObject({
  teamId: z.string().min(1).max(255),
  teamName: z.string().max(255).optional(),
  labelIds: z.array(z.string().min(1).max(255)).max(50).optional(),
  labelNames: z.array(z.string().max(255)).max(50).optional(),
  workflowStateId: z.string().min(1).max(255).optional(),
  workflowStateName: z.string().max(255).optional(),
  apiBaseUrl: apiBaseUrl.describe('Extension: Linear API base, default https://api.linear.app (`/graphql` is appended)'),
});
export const TinesConfig = z.strictObject({
  teamId: z.string().regex(/^\d+$/, 'must contain digits only').max(32),
  teamName: z.string().max(255).optional(),
  tenantUrl: httpUrl.optional().describe('Extension: your Tines tenant, e.g. https://acme.tines.com (cases are created at `/api/v2/cases`); required to deliver'),
  apiBaseUrl: apiBaseUrl.describe('Extension: replaces tenantUrl as the base the cases path is appended to (a gateway or proxy)'),
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
  .describe('Credential for delivery. Write-only unless the caller has `destination.manage`. On update: omit to keep, null to clear; a change sending it to another origin (scheme, host, port: `config.url`, `config.apiBaseUrl`, `config.tenantUrl` or `type`) needs it again (400 naming `token`).');

/** Event types a destination receives besides agent output (docs/delivery.md). */
export const EventSubscriptions = z
  .array(z.string().regex(/^[a-z][a-z_]*(\.[a-z_]+)+$/, 'must be an event type such as alert.created').max(100))
  .max(20)
  .describe('Extension: event types delivered to this destination besides agent output, e.g. `alert.created`, `alert.status_changed`. Default: none; omitted on PUT: kept');

const inputVariant = <T extends DestinationType, C extends z.ZodType>(type: T, config: C, withToken = true) =>
  z.strictObject({ type: z.literal(type), name, config, eventSubscriptions: EventSubscriptions.optional(), ...(withToken ? { token } : {}) });

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
      ...(type === 'webhook'
        ? {
            signingSecret: z
              .string()
              .optional()
              .describe('Extension: the Standard Webhooks signing secret (`whsec_…`), generated by Rampart; present only in the answer that created it (create, rotation, a change to `webhook`), never again'),
            hasSigningSecret: z.boolean().optional().describe('Extension: whether deliveries are signed (`webhook-signature`)'),
            previousSigningSecretExpiresAt: z.string().nullable().optional().describe('Extension: until when the secret before the last rotation signs too (null: no overlap)'),
          }
        : {}),
      eventSubscriptions: z.array(z.string()).describe('Extension: event types this destination receives besides agent output'),
      ...managedFields,
      lastDeliveryStatus: z.enum(['succeeded', 'retrying', 'failed', 'skipped']).nullable().optional().describe('Extension, on GET of one destination: the outcome of the latest delivery attempt'),
      lastDeliveryAt: z.string().nullable().optional().describe('Extension, on GET of one destination: when the latest delivery attempt started'),
      lastError: z.string().nullable().optional().describe('Extension, on GET of one destination: the error of the latest failed attempt since the last success'),
      consecutiveFailures: z.number().int().optional().describe('Extension, on GET of one destination: failed attempts since the last success (a failing destination is never disabled)'),
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

/** The longest overlap of a rotation: a week covers a receiver deployed weekly. */
export const MAX_SIGNING_OVERLAP_SECONDS = 7 * 24 * 3600;

export const RotateSigningSecretInput = z
  .strictObject({
    overlapSeconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_SIGNING_OVERLAP_SECONDS)
      .default(86_400)
      .describe('How long the previous secret keeps signing beside the new one (both `v1,` signatures are sent); 0 ends it now. Default 86400 (a day), at most 604800'),
  })
  .meta({ id: 'RotateSigningSecret' });

export const RotatedSigningSecret = z
  .object({
    signingSecret: z.string().describe('The new `whsec_…` secret; shown once, here'),
    previousSigningSecretExpiresAt: z.string().nullable().describe('Until when the previous secret signs too; null when there was none or the overlap is 0'),
  })
  .meta({ id: 'RotatedSigningSecret' });

export { DeleteResult } from '../../platform/http/responses.js';
