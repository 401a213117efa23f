import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contextOf } from '../../platform/context.js';
import { IdParams } from '../../platform/http/pagination.js';
import { publicResponses, withErrors } from '../../platform/http/responses.js';
import { z } from 'zod';
import type { IntakeRequest } from '../triggers/index.js';
import { ActivityQuery, DetectionActivity, EventsAccepted, EventsBody, EventsQuery, NoisyFields, NoisyFieldsQuery } from './detect.schemas.js';
import type { DetectService } from './detect.service.js';

const DESCRIPTION = `Events to run the organization's Sigma detections on. The request only stores the batch and
queues its matching (one statement); workers match it against the enabled detections (a Sigma rule, status not
\`deprecated\`) whose logsource the events' logsource satisfies, and delete it. A match creates an alert
(\`createdBy: detection\`), or counts a duplicate on the open one, routed to triage like a reported hit; correlation rules
alert once per completed window. Events are not kept, except the matched ones as evidence (docs/detections.md#events-in).

**Body**: a JSON array of objects, NDJSON (one object per line), or one object, with any content type
(\`application/json\`, \`application/x-ndjson\`, \`text/plain\`); \`Content-Encoding: gzip\` is inflated.
**Logsource**: the query's \`product\`, \`category\`, \`service\` for the batch; an event's own \`logsource\` object wins.

**Errors**: 400 a body that is not events (the issue names the line or index), 413 a body over the size limit or
more than 10,000 events, 415 a Content-Encoding other than gzip.`;

/** POST /api/events in its own plugin: its parser takes any content type as bytes (NDJSON, gzip). */
const TRIGGER_DESCRIPTION = `The URL of an \`events\` trigger, for log shippers: Vector's \`http\` sink, Fluent Bit's \`http\` output,
Logstash's \`http\` output (docs/detections.md#log-shippers). The body and matching are those of \`POST /api/events\`; the batch's
logsource is the query's \`product\`, \`category\`, \`service\`, else the trigger's \`additionalFields.logsource\`.

**Authentication** as every trigger: \`Authorization: Bearer <trigger secret>\`, the secret in \`X-Rampart-Secret\`, or an API key of the
trigger's organization with \`agent.execute\`. The trigger's agent is not run per request: alerts from matches go through the triage routes.

**Answers**: 202 \`{accepted}\`; 200 \`{skipped: true, message}\` while the trigger is disabled (a shipper does not retry);
400 a body that is not events; 401 missing or wrong credentials; 403 an API key without \`agent.execute\`; 404 an unknown,
draft or deleted trigger, or one of another source; 413 too large; 415 an encoding other than gzip.`;

const TriggerParams = z.object({ triggerId: z.string().max(64).describe('The trigger id of the trigger\'s URL') });
const Skipped = z.object({ skipped: z.literal(true), message: z.string() });

export function registerDetectRoutes(
  root: FastifyInstance,
  service: DetectService,
  opts: { bodyLimit: number; authorizeIntake: (req: IntakeRequest) => Promise<{ trigger: { id: string; organizationId: string; enabled: boolean; additionalFields: unknown } }> },
): void {
  root.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: opts.bodyLimit }, (_req, body, done) => done(null, body));
    const app = scope.withTypeProvider<ZodTypeProvider>();
    app.post('/api/events', {
      config: { permissions: ['alert.triage'] },
      bodyLimit: opts.bodyLimit,
      schema: {
        operationId: 'ingestEvents',
        tags: ['Detections'],
        summary: 'Send events to be matched against the Sigma detections (202: queued)',
        description: DESCRIPTION,
        querystring: EventsQuery,
        body: EventsBody,
        response: withErrors({ 202: EventsAccepted }, 413, 415),
      },
    }, async (req, reply) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.from(typeof req.body === 'string' ? req.body : '');
      const result = await service.ingest(contextOf(req), body, req.headers['content-encoding'], req.query);
      return reply.code(202).send(result);
    });

    // More specific than triggers' `/api/trigger/:source/:triggerId`: Fastify routes a static segment first.
    app.post('/api/trigger/events/:triggerId', {
      config: { public: true, rateLimit: 'perTrigger' },
      bodyLimit: opts.bodyLimit,
      schema: {
        operationId: 'ingestTriggerEvents',
        tags: ['Agent Triggers'],
        summary: 'Events from a log shipper, through an `events` trigger (202: queued for matching)',
        description: TRIGGER_DESCRIPTION,
        security: [],
        params: TriggerParams,
        querystring: EventsQuery,
        body: EventsBody,
        response: publicResponses({ 202: EventsAccepted, 200: Skipped }, 400, 401, 403, 404, 413, 415),
      },
    }, async (req, reply) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const { trigger } = await opts.authorizeIntake({ source: 'events', triggerId: req.params.triggerId, headers: req.headers, rawBody: body, body: null });
      if (!trigger.enabled) return reply.code(200).send({ skipped: true as const, message: 'Trigger is disabled' });
      const fields = trigger.additionalFields as { logsource?: unknown } | null;
      const saved = fields?.logsource && typeof fields.logsource === 'object' ? (fields.logsource as Record<string, string>) : {};
      const hasQuery = req.query.product || req.query.category || req.query.service;
      const result = await service.accept({
        organizationId: trigger.organizationId,
        body,
        contentEncoding: req.headers['content-encoding'],
        logsource: hasQuery ? req.query : { product: saved.product, category: saved.category, service: saved.service },
        triggerId: trigger.id,
      });
      return reply.code(202).send(result);
    });
  });

  const app = root.withTypeProvider<ZodTypeProvider>();
  app.get('/api/code-detections/:id/activity', {
    config: { permissions: ['alert.read'] },
    schema: {
      operationId: 'getCodeDetectionActivity',
      tags: ['Detections'],
      summary: 'What the detection matched: last match, matches per day, the latest matched events',
      params: IdParams,
      querystring: ActivityQuery,
      response: withErrors({ 200: DetectionActivity }, 404),
    },
  }, async (req) => service.activity(contextOf(req), req.params.id, req.query.days, req.query.samples));
  app.get('/api/code-detections/:id/noisy-fields', {
    config: { permissions: ['alert.read'] },
    schema: {
      operationId: 'getCodeDetectionNoisyFields',
      tags: ['Detections'],
      summary: 'The rule fields the detection matched on most: field/value pairs over its latest matched events',
      description: 'Counted over the evidence sample (the latest 50 matched events): for each event, the fields the rule names in the selections that matched, with the event\'s value (docs/detections.md#the-console-page). A tuning aid: the top pair is what a filter would silence most.',
      params: IdParams,
      querystring: NoisyFieldsQuery,
      response: withErrors({ 200: NoisyFields }, 404),
    },
  }, async (req) => service.noisyFields(contextOf(req), req.params.id, req.query.limit));
}
