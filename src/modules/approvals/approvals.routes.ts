import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contextOf } from '../../platform/context.js';
import { withErrors } from '../../platform/http/responses.js';
import { AlreadyDecided, Approval, ApprovalIdParams, ApprovalList, ApprovalListQuery, DecisionBody } from './approvals.schemas.js';
import type { ApprovalsService } from './approvals.service.js';

export function registerApprovalsRoutes(root: FastifyInstance, service: ApprovalsService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['Approvals'];
  const read = { permissions: ['approval.read' as const] };
  const decide = { permissions: ['approval.read' as const, 'approval.decide' as const] };

  app.get('/api/approvals', {
    config: read,
    schema: {
      operationId: 'listApprovals',
      tags,
      summary: 'List approval requests, newest first',
      description: 'Tool calls of agent runs that wait for (or waited for) a person. Filters: `status` (`pending` for the queue), `runId`, `alertId`, `agentId`; paged with `limit` and `offset`.',
      querystring: ApprovalListQuery,
      response: withErrors({ 200: ApprovalList }),
    },
  }, async (req) => service.list(contextOf(req), req.query));

  app.get('/api/approvals/:approvalId', {
    config: read,
    schema: { operationId: 'getApproval', tags, summary: 'One approval request', params: ApprovalIdParams, response: withErrors({ 200: Approval }, 404) },
  }, async (req) => service.get(contextOf(req), req.params.approvalId));

  const decisionRoute = (verb: 'approve' | 'deny') =>
    app.post(`/api/approvals/:approvalId/${verb}`, {
      config: decide,
      schema: {
        operationId: verb === 'approve' ? 'approveApproval' : 'denyApproval',
        tags,
        summary: verb === 'approve' ? 'Approve a pending tool call' : 'Deny a pending tool call',
        description:
          (verb === 'approve'
            ? 'The run resumes (a new job) and calls the tool once, with exactly the arguments shown. '
            : 'The run resumes and the model is given `denied by <user>: <comment>` as the tool\'s result. ') +
          'Exactly one decision wins: a request decided already (by someone else, by Slack, or expired) answers 409 with its `status`, `decidedBy` and `decidedAt`. ' +
          'The agent\'s `approvalSettings` may restrict who decides (403 `{error}`). Needs `approval.decide`. Audited with its source (`api` or `console`).',
        params: ApprovalIdParams,
        body: DecisionBody,
        response: withErrors({ 200: Approval, 409: AlreadyDecided }, 404),
      },
    }, async (req) => {
      const ctx = contextOf(req);
      return service.decide(ctx, req.params.approvalId, verb === 'approve' ? 'approved' : 'denied', req.body.comment ?? null, ctx.via ?? 'api');
    });
  decisionRoute('approve');
  decisionRoute('deny');
}
