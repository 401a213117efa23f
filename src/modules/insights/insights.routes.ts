import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contextOf } from '../../platform/context.js';
import { withErrors } from '../../platform/http/responses.js';
import { Insights, InsightsQuery } from './insights.schemas.js';
import type { createInsightsService } from './insights.service.js';

export function registerInsightsRoutes(root: FastifyInstance, service: ReturnType<typeof createInsightsService>): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.get('/api/insights', {
    config: { permissions: ['alert.read'] },
    schema: {
      operationId: 'getInsights',
      tags: ['Insights'],
      summary: 'Alert volume, MTTA/MTTR, agent verdicts, runs, deliveries, intel, hunt and approval figures over a window',
      description:
        'Extension. Computed from the database on each request over the last 7, 30 or 90 UTC days. Needs `alert.read`; `runs`, `deliveries`, `intel`, `hunt` and `approvals` are null unless the caller has `agent.read`, `destination.read`, `intel.read`, `hunt.read`, `approval.read` respectively. An agent\'s verdict is its last status change on an alert; it is overturned when a person changed the status after it and the alert\'s status now differs from it.',
      querystring: InsightsQuery,
      response: withErrors({ 200: Insights }),
    },
  }, async (req) => service.get(contextOf(req), req.query.window));
}
