import { z } from 'zod';

/** Approval requests (docs/approvals.md). */
export const ApprovalStatus = z
  .enum(['pending', 'approved', 'denied', 'expired', 'executing', 'executed', 'failed', 'outcome_unknown'])
  .describe(
    '`pending`: waits for a person; `denied` / `expired`: the tool was not called (the model is told why); `approved`: decided, the run is resuming; `executing`: the call is under way; ' +
      '`executed` / `failed`: the call ran once with the approved arguments; `outcome_unknown`: the worker stopped during the call, so whether it took effect is unknown (it is never run again)',
  );
export type ApprovalStatusT = z.infer<typeof ApprovalStatus>;

export const Approval = z.object({
  id: z.uuid(),
  organizationId: z.uuid(),
  runId: z.uuid(),
  agentId: z.uuid(),
  alertId: z.uuid().nullable(),
  toolName: z.string().describe('The tool as the agent lists it (`mcp:<server>/<tool>` for an MCP tool)'),
  toolCallId: z.string(),
  args: z.unknown().describe('The arguments exactly as the model gave them; an approved call runs with exactly these'),
  reason: z.string().describe("The model's stated reason (its text before the call), empty when it gave none"),
  status: ApprovalStatus,
  requestedAt: z.string(),
  expiresAt: z.string(),
  decidedAt: z.string().nullable(),
  decidedBy: z.object({ userId: z.uuid().nullable(), name: z.string().nullable() }).nullable().describe('Who decided; null while pending and for an expired request'),
  decidedVia: z.enum(['console', 'api', 'slack', 'expiry']).nullable(),
  comment: z.string().nullable(),
  executedAt: z.string().nullable(),
  outcome: z.record(z.string(), z.unknown()).nullable().describe('What the model was given: `{result}` or `{error}` once the call ran'),
  consoleUrl: z.string().describe('The request in the web console'),
});
export type ApprovalDto = z.infer<typeof Approval>;

export const ApprovalList = z.object({ approvals: z.array(Approval), totalCount: z.number().int() });

export const ApprovalListQuery = z.object({
  status: ApprovalStatus.optional(),
  runId: z.uuid().optional(),
  alertId: z.uuid().optional(),
  agentId: z.uuid().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export type ApprovalListQueryT = z.infer<typeof ApprovalListQuery>;

export const ApprovalIdParams = z.object({ approvalId: z.uuid({ error: 'must be a UUID' }) });

export const DecisionBody = z.strictObject({
  comment: z.string().trim().max(2000).optional().describe('Said to the model with a denial (`denied by <user>: <comment>`), kept with either decision'),
});

/** The 409 of a request decided already (by someone else, or by the clock). */
export const AlreadyDecided = z.object({
  error: z.string(),
  status: ApprovalStatus,
  decidedBy: z.object({ userId: z.uuid().nullable(), name: z.string().nullable() }).nullable(),
  decidedAt: z.string().nullable(),
});
