import { z } from 'zod';

/** Agent runs (spec §2.8, §4.6; DESIGN.md §5). */
export const RunStatus = z.enum(['waiting', 'running', 'done', 'error', 'interrupted']).describe(
  '`waiting`: queued for a worker; `running`; `done`: finished, result available; `error`: failed or hit a limit (see statusMessage); `interrupted`: stopped on request',
);
export const RunMode = z.enum(['sync', 'async', 'trigger', 'cron', 'triage']);

export const RunParams = z.object({ agentId: z.uuid({ error: 'must be a UUID' }), runId: z.uuid({ error: 'must be a UUID' }) });

export const RunRequest = z.strictObject({
  input: z.unknown().optional().describe('Any JSON value, given to the agent as its input (a string as is, anything else as JSON)'),
});
export const RunSyncRequest = z.strictObject({
  input: z.unknown().optional().describe('Any JSON value, given to the agent as its input'),
  timeoutMs: z.number().int().min(1000).max(300_000).default(60_000).describe('How long to wait for the run to finish (default 60 s, at most 300 s)'),
});

export const RunStarted = z.object({ runId: z.uuid() });
export const RunStatusView = z.object({ status: RunStatus, statusMessage: z.string().optional() });

const ToolCall = z.object({ type: z.literal('tool-call'), toolCallId: z.string(), toolName: z.string(), args: z.unknown() });
const ToolResult = z.object({ type: z.literal('tool-result'), toolCallId: z.string(), toolName: z.string(), result: z.unknown(), isError: z.boolean() });
const Message = z
  .object({
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: z.unknown().describe('`system`/`user`: a string; `assistant`: text and tool-call parts; `tool`: tool-result parts'),
  })
  .describe('One message: role `system`, `user` (content string), `assistant` ([{type:"text",text} | tool-call]) or `tool` ([tool-result])');

export const RunResultView = z.object({
  finalAssistantMessage: z.string(),
  allToolCallsMade: z.array(ToolCall),
  allToolResultsReceived: z.array(ToolResult),
  messages: z.array(Message),
  structuredOutputResult: z.string().optional().describe('The validated structured output as a JSON string; present only when the agent has a schema and the output validated'),
});

export const RunSyncResponse = z.object({
  runId: z.uuid(),
  status: RunStatus,
  statusMessage: z.string().optional(),
  result: RunResultView.optional().describe('Present when status is `done`'),
});

export const RunSummary = z.object({
  id: z.uuid(),
  agentId: z.uuid(),
  status: RunStatus,
  statusMessage: z.string().nullable(),
  mode: RunMode,
  triggerId: z.uuid().nullable(),
  triggerSource: z.string().nullable(),
  stepCount: z.number().int(),
  usage: z.object({ inputTokens: z.number().int(), outputTokens: z.number().int(), totalTokens: z.number().int() }),
  attemptCount: z.number().int(),
  queuedAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export type RunSummaryDto = z.infer<typeof RunSummary>;

export const RunListQuery = z.object({
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
  mode: RunMode.optional(),
  triggerId: z.uuid().optional(),
});
export type RunListQueryT = z.infer<typeof RunListQuery>;

export const RunList = z.object({ runs: z.array(RunSummary), totalCount: z.number().int(), page: z.number().int(), pageSize: z.number().int(), hasNext: z.boolean() });
export const InterruptResult = z.object({ runId: z.uuid(), status: RunStatus, statusMessage: z.string().optional() });
