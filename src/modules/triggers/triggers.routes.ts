import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ForceQuery } from '../../platform/managed.js';
import { contextOf } from '../../platform/context.js';
import { withErrors } from '../../platform/http/responses.js';
import { deferred } from '../../platform/http/lazy-schemas.js';
import { AgentIdParams, DeleteResult, FieldsParams, TriggerParams, triggerSchemas } from './triggers.schemas.js';
import type { TriggersService } from './triggers.service.js';

const { FieldsQuery, FieldsResponse, RotatedSecret, SaveBody, StatusBody, Trigger, TriggerList, UpdateBody } = deferred(triggerSchemas);

export function registerTriggersRoutes(root: FastifyInstance, service: TriggersService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Agent Triggers'];
  const read = { permissions: ['agent.read' as const] };
  const manage = { permissions: ['agent.manage' as const] };

  app.get('/api/agents/:agentId/trigger/:source/fields', {
    config: manage,
    schema: {
      operationId: 'generateTriggerFields',
      tags,
      summary: 'Generate the webhook URL, secret and additional fields for a new trigger',
      description: [
        'Creates a **draft** trigger with a new id and a new random secret (32 bytes, `whsec_<base64>`; stored encrypted and shown only here) and answers',
        '`{success, data: {triggerId, secret, webhookUrl, additionalFields: {type, jiraUrl?}}}` (`triggerId` is an extension of the spec\'s field set: the last segment of',
        '`webhookUrl`). Configure the sender with `webhookUrl` and `secret`, then activate the trigger with `POST /api/agents/{agentId}/trigger/save` `{triggerId, source}`. Drafts accept no deliveries',
        'and are deleted when not saved within 24 h. `source`: one of jira, jira-automation, slack, linear, webhook, bugcrowd, hackerone, zscaler, darktrace.',
        '',
        '**jiraUrl** (jira only): give your site as the `jiraUrl` query parameter (e.g. `https://acme.atlassian.net`) and `additionalFields.jiraUrl` is that',
        'site\'s webhook admin page (`…/plugins/servlet/webhooks`), where you paste `webhookUrl` and `secret`; without it, `jiraUrl` is "".',
      ].join('\n'),
      params: FieldsParams,
      querystring: FieldsQuery,
      response: withErrors({ 200: FieldsResponse }, 404),
    },
  }, async (req) => service.fields(contextOf(req), req.params.agentId, req.params.source, req.query.jiraUrl));

  app.get('/api/agents/:agentId/trigger', {
    config: read,
    schema: {
      operationId: 'listTriggers',
      tags,
      summary: 'List the active triggers of an agent',
      description: 'Saved webhook and cron triggers (not drafts). Secrets are never returned: `hasSecret` and `hasSigningSecret` say whether one is stored.',
      params: AgentIdParams,
      response: withErrors({ 200: TriggerList }, 404),
    },
  }, async (req) => service.list(contextOf(req), req.params.agentId));

  app.post('/api/agents/:agentId/trigger/save', {
    config: manage,
    schema: {
      operationId: 'saveTrigger',
      tags,
      summary: 'Activate a webhook trigger, or create a cron trigger',
      description: [
        'Webhook: `{triggerId, source, name?, enabled?, signingSecret?, additionalFields?, createAlert?, alertMapping?, inputMapping?, deliveryIdPointer?}` activates the draft `…/fields` created (`source` must be the',
        'draft\'s: else 400; unknown id: 404). Saving an active trigger again updates it. `signingSecret` is the secret a sender generates itself (Slack',
        'Signing Secret, Linear signing secret, Bugcrowd webhook secret): signatures are then checked with it instead of the trigger secret.',
        '`inputMapping` maps agent inputs to JSON pointers into the payload; `deliveryIdPointer` names a payload id used for dedupe when the sender sends no delivery header.',
        '',
        'Cron: `{source: "cron", cronSchedule, name?, enabled?, input?}`: a 5-field cron expression evaluated in UTC; each run gets `input` (default',
        '`{trigger: "cron", scheduledAt}`). A schedule missed while Rampart was down runs once, then continues at the next future time.',
      ].join('\n'),
      params: AgentIdParams,
      body: SaveBody,
      response: withErrors({ 200: Trigger }, 404),
    },
  }, async (req) => service.save(contextOf(req), req.params.agentId, req.body));

  app.put('/api/agents/:agentId/trigger/:triggerId', {
    config: manage,
    schema: {
      operationId: 'updateTrigger',
      tags,
      summary: 'Update a trigger',
      description:
        'Changes `name`, `additionalFields` (merged), `createAlert`, `alertMapping`, `signingSecret`, `inputMapping` and `deliveryIdPointer` (webhook triggers; omit to keep, null to clear), ' +
        '`cronSchedule` and `input` (cron triggers). Omitted fields are kept.',
      params: TriggerParams,
      querystring: ForceQuery,
      body: UpdateBody,
      response: withErrors({ 200: Trigger }, 404, 409),
    },
  }, async (req) => service.update(contextOf(req), req.params.agentId, req.params.triggerId, req.body, { force: req.query.force }));

  app.patch('/api/agents/:agentId/trigger/:triggerId/status', {
    config: manage,
    schema: {
      operationId: 'setTriggerStatus',
      tags,
      summary: 'Enable or disable a trigger',
      description: 'A disabled webhook trigger answers deliveries with `{skipped: true, message}` and starts nothing; a disabled cron trigger does not run. Re-enabling a cron trigger schedules it from now.',
      params: TriggerParams,
      querystring: ForceQuery,
      body: StatusBody,
      response: withErrors({ 200: Trigger }, 404, 409),
    },
  }, async (req) => service.setEnabled(contextOf(req), req.params.agentId, req.params.triggerId, req.body.enabled, { force: req.query.force }));

  app.post('/api/agents/:agentId/trigger/:triggerId/rotate-secret', {
    config: manage,
    schema: {
      operationId: 'rotateTriggerSecret',
      tags,
      summary: 'Replace the secret of a webhook trigger',
      description: [
        'Generates a new trigger secret (as `…/fields` does) and answers `{secret, webhookUrl}`; the previous secret stops working at once, so deliveries',
        'signed or authenticated with it answer 401 until the sender is given the new one. The webhook URL and a stored `signingSecret` are unchanged',
        '(replace that one with `PUT …/{triggerId}`). Cron triggers have no secret: 400. Drafts, unknown ids and other organizations\' triggers: 404.',
      ].join('\n'),
      params: TriggerParams,
      response: withErrors({ 200: RotatedSecret }, 404),
    },
  }, async (req) => service.rotateSecret(contextOf(req), req.params.agentId, req.params.triggerId));

  app.delete('/api/agents/:agentId/trigger/:triggerId', {
    config: manage,
    schema: {
      operationId: 'deleteTrigger',
      tags,
      summary: 'Delete a trigger',
      description: 'Its webhook URL stops working at once (404). Runs it started are kept.',
      params: TriggerParams,
      querystring: ForceQuery,
      response: withErrors({ 200: DeleteResult }, 404, 409),
    },
  }, async (req) => service.remove(contextOf(req), req.params.agentId, req.params.triggerId, { force: req.query.force }));
}
