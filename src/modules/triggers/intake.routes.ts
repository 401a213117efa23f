import type { FastifyInstance, FastifyRequest } from 'fastify';
import { jsonDepthExceeds, MAX_JSON_DEPTH, sanitizeWebhookValue } from '../../platform/http/hostile-input.js';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError, ValidationError } from '../../platform/http/errors.js';
import { publicResponses } from '../../platform/http/responses.js';
import { decodeForm } from './intake.fns.js';
import type { IntakeService } from './intake.service.js';
import { deferred } from '../../platform/http/lazy-schemas.js';
import { IntakeParams, triggerSchemas } from './triggers.schemas.js';

const { IntakeResponse } = deferred(triggerSchemas);

const DESCRIPTION = `External services post here; the body (any JSON value, or a form) becomes the agent's input
(with the inputs of the trigger's \`inputMapping\` set at its top level, when it has one).
The request only queues the run (one short transaction) and never waits for the agent.

**Trigger context**: the run records the delivery (source, delivery id, event type from \`X-GitHub-Event\`, \`X-Gitlab-Event\`,
\`X-Event-Key\`, \`Linear-Event\`/\`X-Linear-Event\`, \`X-H1-Event\` or \`X-Event-Type\`, an allow-list of descriptive headers, received-at;
never credentials or signatures) as \`triggerContext\` (\`GET /api/agent-runs/{runId}\`); the model gets it before the input.
A run whose agent's required inputs are missing from the input ends in \`error\` with a \`statusMessage\` naming them, without running.

**200 answers** (one of three shapes):
- \`{executionId}\`: a run was queued; \`executionId\` is the run id (\`GET /api/agents/{agentId}/run-async/{executionId}/status\`).
- \`{skipped: true, message}\`: nothing was started: the trigger is disabled, or the event is ignored (Slack messages posted by bots).
  A repeated delivery adds \`executionId\`, the run of the first delivery: a delivery id is never run twice.
- \`{challenge}\`: Slack's \`url_verification\` handshake (after its signature checked).

**Errors** are \`{error}\` (400 adds \`issues\`, 403 adds \`missingPerms\`): 400 malformed JSON or an unknown source; 401 missing or wrong
credentials (\`WWW-Authenticate: Bearer\`; the message says only "Signature mismatch" or "Stale timestamp"); 403 an API key without
\`agent.execute\`; 404 an unknown, unsaved (draft) or deleted trigger, a source that is not the trigger's, or an API key of another
organization; 413 a body over the size limit; 415 a content type other than JSON or form.

**Authentication**, any one of:
- \`Authorization: Bearer <trigger secret>\` (the \`secret\` of \`…/fields\`), or the secret in \`X-Rampart-Secret\` (Jira Automation, Zscaler, Darktrace, any sender that lets you set a header);
- \`Authorization: Bearer <API key>\` of the trigger's organization whose role has \`agent.execute\`;
- the sender's own signature over the raw body, keyed with the trigger's \`signingSecret\` when one is saved, else its secret:
  Slack \`X-Slack-Signature\` + \`X-Slack-Request-Timestamp\`; Linear \`Linear-Signature\` (+ the body's \`webhookTimestamp\`);
  HackerOne \`X-H1-Signature\`; Jira \`X-Hub-Signature\`; webhook: GitHub style \`X-Hub-Signature-256\` or Standard Webhooks
  (\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`); Bugcrowd \`X-Bugcrowd-Digest\`.
  Signed timestamps must be within 5 minutes of the server's clock.

**Dedupe**: the delivery id (Slack \`event_id\`, \`Linear-Delivery\`, \`X-GitHub-Delivery\`, \`webhook-id\`, \`X-H1-Delivery\`,
\`X-Atlassian-Webhook-Identifier\`, or a generic \`Idempotency-Key\` / \`X-Delivery-Id\`) is remembered for 14 days. When none of these came,
the id at the trigger's \`deliveryIdPointer\` in the payload (e.g. \`/id\` of an AWS GuardDuty finding) is used.`;

/**
 * The intake route lives in its own plugin so that its content-type parsers keep the raw body
 * bytes (every signature is computed over them) without changing parsing anywhere else.
 */
export function registerIntakeRoutes(root: FastifyInstance, service: IntakeService, opts: { bodyLimit: number }): void {
  const rawBodies = new WeakMap<FastifyRequest, Buffer>();

  root.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    const defaultJson = scope.getDefaultJsonParser('error', 'error');
    const parseOpts = { parseAs: 'buffer' as const, bodyLimit: opts.bodyLimit };

    scope.addContentTypeParser('application/json', parseOpts, (request, raw: Buffer, done) => {
      rawBodies.set(request, raw);
      const text = raw.toString('utf8');
      if (jsonDepthExceeds(text)) return done(ValidationError.single('', `JSON nested deeper than ${MAX_JSON_DEPTH} levels`, 'too_deep'), undefined);
      // Fastify's own parser: prototype-poisoning protection and the app's malformed-JSON 400.
      // The body is kept: characters PostgreSQL cannot store become U+FFFD (the raw bytes, which
      // signatures are checked over, are untouched).
      defaultJson(request, text, (err, value) => (err ? done(err, undefined) : done(null, sanitizeWebhookValue(value))));
    });
    scope.addContentTypeParser('application/x-www-form-urlencoded', parseOpts, (request, raw: Buffer, done) => {
      rawBodies.set(request, raw);
      done(null, sanitizeWebhookValue(decodeForm(raw.toString('utf8'))));
    });
    scope.addContentTypeParser('*', (request, _payload, done) => {
      const type = String(request.headers['content-type'] ?? '').split(';')[0]!.trim();
      done(new AppError(415, `Unsupported content type ${JSON.stringify(type)}; send application/json or application/x-www-form-urlencoded`), undefined);
    });

    const app = scope.withTypeProvider<ZodTypeProvider>();
    app.post('/api/trigger/:source/:triggerId', {
      // Limited per trigger, not per address: senders share addresses (SaaS egress, proxies).
      config: { public: true, rateLimit: 'perTrigger' },
      bodyLimit: opts.bodyLimit,
      schema: {
        operationId: 'invokeTrigger',
        tags: ['Agent Triggers'],
        summary: 'Invoke an agent trigger through an incoming webhook',
        description: DESCRIPTION,
        security: [],
        params: IntakeParams,
        body: z.unknown().describe('Any JSON value (or a form: Slack interactivity `payload=<JSON>` is decoded)'),
        response: publicResponses({ 200: IntakeResponse }, 400, 401, 403, 404, 413, 415),
      },
    }, async (req) =>
      service.invoke({
        source: req.params.source,
        triggerId: req.params.triggerId,
        headers: req.headers,
        rawBody: rawBodies.get(req) ?? Buffer.alloc(0),
        body: req.body ?? null,
      }),
    );
  });
}
