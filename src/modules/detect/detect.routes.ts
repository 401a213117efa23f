import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contextOf } from '../../platform/context.js';
import { IdParams } from '../../platform/http/pagination.js';
import { withErrors } from '../../platform/http/responses.js';
import { ActivityQuery, DetectionActivity, EventsAccepted, EventsBody, EventsQuery } from './detect.schemas.js';
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
export function registerDetectRoutes(root: FastifyInstance, service: DetectService, opts: { bodyLimit: number }): void {
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
}
