import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { publicResponses } from '../../platform/http/responses.js';
import type { createSlackInteractions } from './slack-interactions.js';

/**
 * POST /slack/interactions: the Request URL of the Slack app's Interactivity settings. Its own
 * plugin, so its form parser keeps the raw body the signature is computed over.
 */
export function registerSlackInteractionRoutes(root: FastifyInstance, slack: ReturnType<typeof createSlackInteractions>): void {
  root.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 256 * 1024 }, (_req, body, done) => done(null, body));
    const app = scope.withTypeProvider<ZodTypeProvider>();
    app.post('/slack/interactions', {
      config: { public: true },
      bodyLimit: 256 * 1024,
      schema: {
        operationId: 'receiveSlackInteraction',
        tags: ['Approvals'],
        summary: "Slack's interaction request (Approve / Deny buttons)",
        description:
          'Set as the Request URL of the Slack app\'s Interactivity. Slack posts `application/x-www-form-urlencoded` `payload=<JSON>`; the request must carry a valid `X-Slack-Signature` (v0 HMAC-SHA256 of `v0:<timestamp>:<raw body>` with RAMPART_SLACK_SIGNING_SECRET) ' +
          'and an `X-Slack-Request-Timestamp` within 5 minutes, else 401. The clicking Slack user is mapped to a Rampart user by their verified email; a refusal (unknown user, no `approval.decide`, not an approver, decided already) is answered ephemerally. docs/approvals.md#slack',
        security: [],
        body: z.string().describe('The form body, `payload=<url-encoded JSON>`'),
        response: publicResponses({ 200: z.record(z.string(), z.unknown()) }, 400, 401, 403, 413, 415),
      },
    }, async (req, reply) => {
      const answer = await slack.handle(req.headers, typeof req.body === 'string' ? req.body : '');
      return reply.code(answer.status).send(answer.body);
    });
  });
}
