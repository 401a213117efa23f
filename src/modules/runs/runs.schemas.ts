import { z } from 'zod';
import { schemaSet } from '../../platform/http/lazy-schemas.js';

/** Agent runs (the API spec's "Other resources" and "Agents and triggers"; docs/agents.md). */
/** Built at first use (platform/http/lazy-schemas.ts): only the runs' routes read them. */
export const runSchemas = schemaSet(() => {
  const RunStatus = z.enum(['waiting', 'running', 'awaiting_approval', 'done', 'error', 'interrupted']).describe(
    '`waiting`: queued for a worker; `running`; `awaiting_approval`: a tool call waits for a person (GET /api/approvals; the run holds no worker meanwhile and resumes when every request is decided); `done`: finished, result available; `error`: failed or hit a limit (see statusMessage); `interrupted`: stopped on request',
  );
  const RunMode = z.enum(['sync', 'async', 'trigger', 'cron', 'triage', 'evaluation']);

  const RunParams = z.object({ agentId: z.uuid({ error: 'must be a UUID' }), runId: z.uuid({ error: 'must be a UUID' }) });

  const RunRequest = z.strictObject({
    input: z.unknown().optional().describe('Any JSON value, given to the agent as its input (a string as is, anything else as JSON)'),
  });
  const RunSyncRequest = z.strictObject({
    input: z.unknown().optional().describe('Any JSON value, given to the agent as its input'),
    timeoutMs: z.number().int().min(1000).max(300_000).default(60_000).describe('How long to wait for the run to finish (default 60 s, at most 300 s)'),
  });

  const RunStarted = z.object({ runId: z.uuid() });
  const RunStatusView = z.object({ status: RunStatus, statusMessage: z.string().optional() });

  const ToolCall = z.object({ type: z.literal('tool-call'), toolCallId: z.string(), toolName: z.string(), args: z.unknown() });
  const ToolResult = z.object({ type: z.literal('tool-result'), toolCallId: z.string(), toolName: z.string(), result: z.unknown(), isError: z.boolean() });
  const Message = z
    .object({
      role: z.enum(['system', 'user', 'assistant', 'tool']),
      content: z.unknown().describe('`system`/`user`: a string; `assistant`: text and tool-call parts; `tool`: tool-result parts'),
    })
    .describe('One message: role `system`, `user` (content string), `assistant` ([{type:"text",text} | tool-call]) or `tool` ([tool-result])');

  const RunResultView = z.object({
    finalAssistantMessage: z.string(),
    allToolCallsMade: z.array(ToolCall),
    allToolResultsReceived: z.array(ToolResult),
    messages: z.array(Message),
    structuredOutputResult: z.string().optional().describe('The validated structured output as a JSON string; present only when the agent has a schema and the output validated'),
  });

  /** `…/result`: the run result (the API spec's "Other resources") of an ended run, partial for `error` and `interrupted`, with the status that says which. */
  const EndedRunResultView = RunResultView.extend({
    status: z.enum(['done', 'error', 'interrupted']).describe('How the run ended; for `error` and `interrupted` the result holds what the run produced until then'),
    statusMessage: z.string().optional().describe('Why the run ended in `error` or `interrupted` (or why a `done` run has no structured output)'),
  }).meta({ id: 'AgentRunEndedResult' });

  const TriggerContext = z
    .object({
      source: z.string().describe('The trigger source (`webhook`, `jira`, `slack`, …)'),
      deliveryId: z.string().nullable().describe('The sender\'s delivery id (delivery header, Slack `event_id`, or the payload id the trigger\'s `deliveryIdPointer` names); null when none came'),
      eventType: z.string().nullable().describe('The sender\'s event type from `X-GitHub-Event`, `X-Gitlab-Event`, `X-Event-Key`, `Linear-Event`/`X-Linear-Event`, `X-H1-Event`, `X-Event-Type` or `webhook-event`; null when none came'),
      headers: z.record(z.string(), z.string()).describe('The delivery\'s headers of an allow-list (event, delivery, user-agent, content-type and similar descriptive headers; never credentials or signatures), lower-cased names'),
      receivedAt: z.string().describe('When Rampart received the delivery (cron: when the scheduler started the run)'),
      scheduledAt: z.string().optional().describe('Cron triggers (source `cron`): the scheduled time this run is for (UTC instant), given whatever the trigger\'s `input`'),
      timezone: z.string().optional().describe('Cron triggers with a `timezone`: the IANA time zone the schedule is read in'),
    })
    .meta({ id: 'AgentRunTriggerContext' });

  const RunSyncResponse = z.object({
    runId: z.uuid(),
    status: RunStatus,
    statusMessage: z.string().optional(),
    result: RunResultView.optional().describe('Present once the run has ended: final when `done`, partial when `error` or `interrupted`'),
  });

  const RunSummary = z.object({
    id: z.uuid(),
    agentId: z.uuid(),
    agentVersion: z
      .number()
      .int()
      .nullable()
      .describe("The agent's version the run executes: the one current when it was queued (GET /api/agents/{agentId}/versions/{version}); null for a run queued before versions existed whose agent changed since"),
    status: RunStatus,
    statusMessage: z.string().nullable(),
    mode: RunMode,
    triggerId: z.uuid().nullable(),
    triggerSource: z.string().nullable(),
    alertId: z.uuid().nullable().describe('The alert this run triages (routed, assigned, hunt, or created by the trigger delivery that started it); null otherwise'),
    alertDisplayId: z.string().nullable().describe('That alert\'s display id (`RMP-42`)'),
    stepCount: z.number().int(),
    usage: z.object({ inputTokens: z.number().int(), outputTokens: z.number().int(), totalTokens: z.number().int() }),
    attemptCount: z.number().int(),
    queuedAt: z.string(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    evalScore: z.number().int().nullable().describe("The judge's 0–100 score of the run against its agent's acceptance criteria; null until graded (or when the agent has none)"),
  });

  const RunIdParams = z.object({ runId: z.uuid({ error: 'must be a UUID' }) });

  const RunDetail = RunSummary.extend({
    input: z.unknown().describe('The run\'s input as given (a webhook body as received, with mapped inputs merged in when the trigger has an `inputMapping`)'),
    triggerContext: TriggerContext.nullable().describe('Triggered runs: the webhook delivery or the schedule (cron: `scheduledAt`) the run came from (also given to the model); null otherwise'),
    interruptRequestedAt: z.string().nullable(),
    durationMs: z.number().int().nullable().describe('From start to end; null until the run has ended after starting'),
    deliveries: z
      .array(
        z.object({
          id: z.uuid(),
          destinationId: z.uuid(),
          destinationName: z.string(),
          destinationType: z.string(),
          eventKind: z.string(),
          status: z.string().describe('pending, sending, succeeded, retrying, failed or skipped'),
          attemptCount: z.number().int(),
          error: z.string().nullable(),
          createdAt: z.string(),
          lastAttemptAt: z.string().nullable(),
          nextAttemptAt: z.string().nullable(),
          finishedAt: z.string().nullable(),
        }),
      )
      .describe("The run's output sent to the agent's output destinations, one delivery per destination (attempts and redelivery: GET /api/output-destinations/{id}/deliveries); empty until the run is done"),
    acceptanceCriteriaResults: z
      .array(z.object({ criterion: z.string(), met: z.boolean().nullable().describe('null: the judge did not grade it (never counted as failed)'), explanation: z.string() }))
      .nullable()
      .describe("The judge's grading of each of the agent's acceptance criteria (docs/evaluations.md); null until graded"),
    evalExplanation: z.string().nullable().describe("The judge's one-paragraph reason for `evalScore`"),
    result: RunResultView.nullable().describe('The async run result (finalAssistantMessage, tool calls and results, messages, structuredOutputResult): final for `done`, partial (what the run produced until it stopped) for `error` and `interrupted`; null while the run has not ended, or when it ended before starting'),
  }).meta({ id: 'AgentRunDetail' });

  const RunListQuery = z.object({
    page: z.coerce.number().int().min(1).default(1).describe('Page number, from 1'),
    pageSize: z.coerce.number().int().min(1).max(100).default(20).describe('Runs per page, 1..100 (default 20)'),
    agentId: z.uuid().optional(),
    status: z
      .string()
      .optional()
      .transform((s, ctx) => {
        if (!s) return undefined;
        const parts = s.split(',').map((p) => p.trim()).filter(Boolean);
        const bad = parts.filter((p) => !RunStatus.options.includes(p as never));
        if (bad.length) ctx.addIssue({ code: 'custom', message: `unknown status ${bad.join(', ')} (expected ${RunStatus.options.join(', ')})` });
        return parts as z.infer<typeof RunStatus>[];
      })
      .describe('Comma-separated statuses'),
    mode: RunMode.optional().describe('Runs of this mode; evaluation runs (`evaluation`) are listed only when asked for'),
    triggerId: z.uuid().optional(),
    evalScoreBelow: z.coerce.number().int().min(1).max(101).optional().describe('Only runs the judge scored below this (0–100 scores; graded runs only)'),
  });

  const RunList = z.object({ runs: z.array(RunSummary), totalCount: z.number().int(), page: z.number().int(), pageSize: z.number().int(), hasNext: z.boolean() });
  const InterruptResult = z.object({ runId: z.uuid(), status: RunStatus, statusMessage: z.string().optional() });

  return { RunStatus, RunMode, RunParams, RunRequest, RunSyncRequest, RunStarted, RunStatusView, RunResultView, EndedRunResultView, TriggerContext, RunSyncResponse, RunSummary, RunIdParams, RunDetail, RunListQuery, RunList, InterruptResult };
});
type Built = ReturnType<typeof runSchemas>;
export type TriggerContextT = z.infer<Built['TriggerContext']>;
export type RunSummaryDto = z.infer<Built['RunSummary']>;
export type RunDetailDto = z.infer<Built['RunDetail']>;
export type RunListQueryT = z.infer<Built['RunListQuery']>;
