import { Cron } from 'croner';
import { z } from 'zod';
import { managedFields } from '../../platform/managed.js';
import { schemaSet } from '../../platform/http/lazy-schemas.js';
import { isJsonPointer, MAPPABLE_FIELDS } from '../alerts/index.js';
import { WEBHOOK_SOURCES } from './signatures.fns.js';
import { httpUrl } from '../../platform/http/url-schemas.js';
import { cronNeverFires, isTimeZone } from '../../platform/cron.js';

/**
 * Agent triggers: signed incoming webhooks (one per sender kind) and cron schedules. A webhook
 * trigger starts as a draft from `GET …/trigger/{source}/fields` (which hands out its URL and
 * secret) and becomes active with `POST …/trigger/save`. Secrets are write-only after that:
 * responses say `hasSecret` / `hasSigningSecret`, never the values.
 */
const sourceList = WEBHOOK_SOURCES.join(', ');
export const WebhookSourceSchema = z.enum(WEBHOOK_SOURCES, { error: `must be one of ${sourceList}` });
export const TriggerSourceSchema = z.enum([...WEBHOOK_SOURCES, 'cron']);

export const cronExpression = z
  .string()
  .trim()
  .max(120)
  .refine((v) => {
    try {
      new Cron(v, { paused: true, timezone: 'UTC' });
      return v.split(/\s+/).length === 5;
    } catch {
      return false;
    }
  }, 'must be a 5-field cron expression, e.g. "0 * * * *"')
  // A valid expression may match no date at all: refused, rather than saved with a made-up next run.
  .superRefine((v, ctx) => {
    const never = cronNeverFires(v);
    if (never) ctx.addIssue({ code: 'custom', message: never });
  });

export const cronTimezone = z
  .string()
  .trim()
  .max(64)
  .refine(isTimeZone, 'must be an IANA time zone name, e.g. "Europe/Paris" or "America/New_York"')
  .nullable()
  .describe('Extension: the IANA time zone the schedule is read in (DST-correct, as Kubernetes CronJob `timeZone`); null or omitted: UTC');

const name = z.string().trim().max(255, 'must be at most 255 characters');
const signingSecret = z
  .string()
  .min(1)
  .max(4096)
  .nullable()
  .describe(
    'The signing secret the sender generated (Slack app Signing Secret, Linear webhook signing secret, Bugcrowd webhook secret, HackerOne webhook secret when you let it generate one). Write-only; signatures are checked with it instead of the trigger secret. On update: omit to keep, null to clear.',
  );
const additionalFields = z
  .record(z.string().max(100), z.unknown())
  .refine((r) => Object.keys(r).length <= 50, 'at most 50 fields')
  .describe('Free-form settings kept with the trigger (e.g. `jiraUrl`); `type` is always the source');
const input = z.unknown().describe('Any JSON value: the agent input of each scheduled run (default `{trigger: "cron", scheduledAt}`)');

export const AgentIdParams = z.object({ agentId: z.uuid({ error: 'must be a UUID' }) });
export const FieldsParams = z.object({ agentId: z.uuid({ error: 'must be a UUID' }), source: WebhookSourceSchema });
export const TriggerParams = z.object({ agentId: z.uuid({ error: 'must be a UUID' }), triggerId: z.uuid({ error: 'must be a UUID' }) });

const createAlert = z
  .boolean()
  .describe('Each delivery also creates an alert (default: on for webhook, jira, jira-automation, linear, bugcrowd, hackerone, zscaler, darktrace; off for slack and cron)');
const routeAlerts = z
  .boolean()
  .describe(
    "Off (default): the trigger's alerts are assigned to its own agent and its run triages them. On: each alert goes through the triage routes like any other (POST /api/alert-triage-routes/simulate with this triggerId shows where), and the trigger's own run is not started",
  );
const alertMapping = z
  .partialRecord(z.enum(MAPPABLE_FIELDS), z.string().max(500).refine(isJsonPointer, 'must be an RFC 6901 JSON pointer such as /detail/title'))
  .nullable()
  .describe('Optional JSON pointers into the payload for the alert title, description, severity, externalRef, externalUrl and dedupeKey; they win over what Rampart reads per source');

const jsonPointer = z.string().max(500).refine(isJsonPointer, 'must be an RFC 6901 JSON pointer such as /detail/id');
const inputMapping = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be an agent input name (letters, digits, _)'), jsonPointer)
  .refine((r) => Object.keys(r).length <= 64, 'at most 64 inputs')
  .nullable()
  .describe(
    'Optional: agent input name → JSON pointer into the payload, e.g. `{"finding": "/detail", "accountId": "/account"}`. Each input found is set at the top level of the run input (the payload, kept as received; ' +
      'a payload that is not an object is kept under `payload`). A run whose required inputs are still missing, or of the wrong JSON type, ends in `error` with a `statusMessage` naming them instead of running.',
  );
const deliveryIdPointer = jsonPointer
  .nullable()
  .describe(
    'Optional: a JSON pointer to an id in the payload (e.g. `/id` for AWS GuardDuty findings through EventBridge) used as the delivery id for dedupe when the sender sends no delivery header. ' +
      'Delivery headers and Slack `event_id` win over it.',
  );

/**
 * A whole trigger as config apply writes it (a document's spec, its agent resolved): every
 * field given or defaulted, so applying the same document twice changes nothing.
 */
export const TriggerPut = z.strictObject({
  name: name.min(1),
  source: TriggerSourceSchema,
  enabled: z.boolean().default(true),
  secret: z.string().min(1).max(4096).optional().describe('Webhook triggers: the trigger secret; omitted, a new one is generated on create and kept after'),
  signingSecret: signingSecret.default(null),
  cronSchedule: cronExpression.optional().describe('cron triggers: required'),
  timezone: cronTimezone.default(null),
  input: input.optional(),
  additionalFields: additionalFields.default({}),
  createAlert: createAlert.nullable().default(null).describe('null: the source\'s default'),
  routeAlerts: routeAlerts.default(false),
  alertMapping: alertMapping.default(null),
  inputMapping: inputMapping.default(null),
  deliveryIdPointer: deliveryIdPointer.default(null),
});
export type TriggerPutT = z.infer<typeof TriggerPut>;

export { DeleteResult } from '../../platform/http/responses.js';

// Intake ------------------------------------------------------------------------------------

export const IntakeParams = z.object({
  source: WebhookSourceSchema,
  triggerId: z.string().max(64).describe('The trigger id of the webhook URL'),
});

/**
 * The routes' bodies and answers, built at first use (platform/http/lazy-schemas.ts); the fields
 * above stay built at import since config documents build their `Trigger` kind from `TriggerPut`.
 */
export const triggerSchemas = schemaSet(() => {
  const FieldsQuery = z.strictObject({
    jiraUrl: httpUrl()
      .optional()
      .describe('jira only: your Jira site, e.g. `https://acme.atlassian.net`; the answer\'s `jiraUrl` is then that site\'s webhook admin page'),
  });

  const FieldsResponse = z
    .object({
      success: z.boolean(),
      data: z.object({
        triggerId: z.uuid().describe('The new trigger\'s id (the last segment of `webhookUrl`): pass it to `POST …/trigger/save`'),
        secret: z.string().describe('The trigger secret (shown once here; stored encrypted)'),
        webhookUrl: z.string().describe('Where the sender posts: `<RAMPART_BASE_URL>/api/trigger/{source}/{triggerId}`'),
        additionalFields: z.object({
          type: z.string().describe('The source'),
          jiraUrl: z.string().optional().describe('jira only: the page to create the webhook on (`<site>/plugins/servlet/webhooks`), or "" when no `jiraUrl` was given'),
        }),
      }),
    })
    .meta({ id: 'WebhookFieldSet' });

  const RotatedSecret = z
    .object({
      secret: z.string().describe('The new trigger secret (shown once here; stored encrypted). The previous one stops working at once.'),
      webhookUrl: z.string().describe('Unchanged: `<RAMPART_BASE_URL>/api/trigger/{source}/{triggerId}`'),
    })
    .meta({ id: 'TriggerRotatedSecret' });

  const WebhookSave = z.strictObject({
    source: WebhookSourceSchema,
    triggerId: z.uuid({ error: 'must be a UUID' }).describe('The id in the `webhookUrl` that `…/fields` answered'),
    name: name.optional(),
    enabled: z.boolean().optional().describe('Default true'),
    signingSecret: signingSecret.optional(),
    additionalFields: additionalFields.optional(),
    createAlert: createAlert.optional(),
    routeAlerts: routeAlerts.optional(),
    alertMapping: alertMapping.optional(),
    inputMapping: inputMapping.optional(),
    deliveryIdPointer: deliveryIdPointer.optional(),
  });
  const CronSave = z.strictObject({
    source: z.literal('cron'),
    cronSchedule: cronExpression,
    timezone: cronTimezone.optional(),
    name: name.optional(),
    enabled: z.boolean().optional().describe('Default true'),
    input: input.optional(),
    createAlert: createAlert.optional().describe('Each firing also creates an alert (default off; dedupe key per trigger and minute), triaged by the run'),
    routeAlerts: routeAlerts.optional(),
  });
  const SaveBody = z.discriminatedUnion('source', [WebhookSave, CronSave]).meta({ id: 'TriggerSave' });

  const UpdateBody = z
    .strictObject({
      name: name.optional(),
      signingSecret: signingSecret.optional(),
      cronSchedule: cronExpression.optional().describe('cron triggers only'),
      timezone: cronTimezone.optional().describe('cron triggers only; null: UTC'),
      additionalFields: additionalFields.optional(),
      input: input.optional().describe('cron triggers only'),
      createAlert: createAlert.optional(),
      routeAlerts: routeAlerts.optional(),
      alertMapping: alertMapping.optional(),
      inputMapping: inputMapping.optional().describe('webhook triggers only; null clears'),
      deliveryIdPointer: deliveryIdPointer.optional().describe('webhook triggers only; null clears'),
    })
    .meta({ id: 'TriggerUpdate' });

  const StatusBody = z.strictObject({ enabled: z.boolean() });

  const Trigger = z
    .object({
      id: z.uuid(),
      agentId: z.uuid(),
      source: TriggerSourceSchema,
      name: z.string(),
      enabled: z.boolean(),
      webhookUrl: z.string().nullable().describe('null for cron triggers'),
      hasSecret: z.boolean(),
      hasSigningSecret: z.boolean(),
      cronSchedule: z.string().nullable(),
      timezone: z.string().nullable().describe('cron triggers: the IANA time zone the schedule is read in; null: UTC'),
      nextRunAt: z.string().nullable().describe('cron triggers: when the next run starts (UTC instant); null when the trigger is disabled; never in the past: a run that is due shows now (the next scheduler tick starts it)'),
      input: z.unknown().describe('cron triggers: the input of each run; null otherwise'),
      additionalFields: z.record(z.string(), z.unknown()),
      createAlert: z.boolean().describe('Whether each delivery also creates an alert (assigned to this agent; the run triages it)'),
      routeAlerts: z.boolean().describe('Whether its alerts go through the triage routes instead of to this agent'),
      alertMapping: z.record(z.string(), z.string()).nullable().describe('JSON pointers into the payload for alert fields'),
      inputMapping: z.record(z.string(), z.string()).nullable().describe('Agent input name → JSON pointer into the payload'),
      deliveryIdPointer: z.string().nullable().describe('JSON pointer to the payload id used for dedupe when no delivery header came'),
      ...managedFields,
      lastRunAttemptedAt: z.string().nullable(),
      lastRunSucceededAt: z.string().nullable(),
      createdAt: z.string(),
      updatedAt: z.string(),
    })
    .meta({ id: 'AgentTrigger' });

  const TriggerList = z.object({ triggers: z.array(Trigger) });
  const IntakeResponse = z
    .union([
      z.object({ executionId: z.string().describe('Id of the queued agent run (with `routeAlerts`: the triage run the routes started)') }),
      z.object({
        skipped: z.literal(true),
        message: z.string(),
        executionId: z.string().optional().describe('Repeated delivery: the run the first delivery really started (absent when it started none). Duplicate alert signal: the triage run of the open alert it was counted on'),
      }),
      z.object({ challenge: z.string().describe('Slack `url_verification` handshake: the challenge, echoed') }),
    ])
    .meta({ id: 'TriggerInvocation' });

  return { FieldsQuery, FieldsResponse, RotatedSecret, WebhookSave, CronSave, SaveBody, UpdateBody, StatusBody, Trigger, TriggerList, IntakeResponse };
});
type Built = ReturnType<typeof triggerSchemas>;
export type SaveBodyT = z.infer<Built['SaveBody']>;
export type UpdateBodyT = z.infer<Built['UpdateBody']>;
export type TriggerDto = z.infer<Built['Trigger']>;
export type IntakeResponseT = z.infer<Built['IntakeResponse']>;
