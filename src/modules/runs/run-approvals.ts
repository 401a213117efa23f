import type { ModelMessage, Tool, ToolSet } from 'ai';
import type { Queryable } from '../../platform/db/database.js';
import { enqueue } from '../../platform/jobs/enqueue.js';
import { callPolicy, configuredPolicy, type ExposedToolInfo, type ToolPolicy } from '../tools/index.js';
import { pendingCountOfRun, type ApprovalNeeded, type SettledCall } from '../approvals/index.js';
import { agentRunJob, agentRunJobKey } from './run.job-def.js';
import type { StepContentPart } from './run-result.fns.js';

/**
 * How a run meets tool policies (docs/approvals.md). Every call is judged when the model makes
 * it: `allow` runs, `deny` is refused (a tool error the model reads), `approve` is not run — it
 * is collected, the loop stops after that step, and the run moves to `awaiting_approval` with
 * its transcript stored; its job ends. A decision (`approval.decided`) queues a new job that
 * resumes from the transcript: the decided calls are settled (run once, or refused), their
 * results given to the model, and the loop goes on.
 */

/** What a run resumes from (agent_runs.transcript). */
export interface RunTranscript {
  /** The user message the run started with (its alert as it was then). */
  userPrompt: string;
  /** The model messages after the user message, as the AI SDK gave them (results of waiting calls left out). */
  messages: ModelMessage[];
  /** The steps so far, for the run result and the step limit. */
  steps: Array<{ content: StepContentPart[]; usage: { inputTokens?: number; outputTokens?: number } }>;
  /** The calls that wait, by id, with the name the model knows them by. */
  pending: Array<{ toolCallId: string; exposedName: string }>;
}

/** The answer the loop gets for a call that waits; never stored (the transcript drops it) and never seen by a person. */
const WAITING = { awaitingApproval: true, message: 'This call waits for a person to approve it. The run pauses here.' };

export type PolicyOf = (exposedName: string, input: unknown) => ToolPolicy;

/** The policy of a call, from the agent's `toolPolicies` and the tool's own default. */
export function policyResolver(toolPolicies: Readonly<Record<string, string>> | undefined, info: Readonly<Record<string, ExposedToolInfo>>): PolicyOf {
  return (exposed, input) => {
    const t = info[exposed];
    if (!t) return 'approve'; // a tool the set cannot describe waits for a person rather than runs
    return callPolicy({ toolName: t.name, configured: configuredPolicy(toolPolicies, t.name, t.mcpServer), declared: t.declaredPolicy, input });
  };
}

/** The tools with policies applied; `waiting` collects the calls that wait for a person. */
export function gatedTools(tools: ToolSet, info: Readonly<Record<string, ExposedToolInfo>>, policyOf: PolicyOf, waiting: Array<ApprovalNeeded & { exposedName: string }>): ToolSet {
  const out: ToolSet = {};
  for (const [name, original] of Object.entries(tools)) {
    const execute = original.execute;
    if (!execute) {
      out[name] = original;
      continue;
    }
    out[name] = {
      ...original,
      execute: async (input: unknown, options: Parameters<NonNullable<Tool['execute']>>[1]) => {
        const policy = policyOf(name, input);
        if (policy === 'deny') throw new Error(`Refused by the agent's tool policy: ${info[name]?.name ?? name} is denied`);
        if (policy === 'approve') {
          waiting.push({ toolCallId: options.toolCallId, toolName: info[name]?.name ?? name, exposedName: name, args: input ?? null, reason: '' });
          return WAITING;
        }
        return execute(input as never, options);
      },
    } as Tool;
  }
  return out;
}

/** Removes the waiting calls' placeholder results from the model messages (the real result is appended on resume). */
export function withoutPlaceholders(messages: readonly ModelMessage[], waitingIds: ReadonlySet<string>): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const m of messages) {
    if (m.role !== 'tool') {
      out.push(m);
      continue;
    }
    const content = m.content.filter((p) => !(p.type === 'tool-result' && waitingIds.has(p.toolCallId)));
    if (content.length) out.push({ ...m, content });
  }
  return out;
}

/** A step's content without the waiting calls' placeholder results. */
export function stepWithoutPlaceholders(content: readonly StepContentPart[], waitingIds: ReadonlySet<string>): StepContentPart[] {
  return content.filter((p) => !(p.type === 'tool-result' && waitingIds.has((p as { toolCallId: string }).toolCallId)));
}

/** The model's stated reason for a call: its text in the step that made the call, or a `reason` argument. */
export function reasonOf(stepText: string, args: unknown): string {
  const arg = typeof args === 'object' && args !== null ? (args as { reason?: unknown }).reason : undefined;
  return stepText.trim() || (typeof arg === 'string' ? arg : '');
}

/** The settled calls as the tool message the model continues from, and as a step of the run result. */
export function settledAsResults(settled: readonly SettledCall[], exposed: ReadonlyMap<string, string>): { message: ModelMessage; step: { content: StepContentPart[]; usage: Record<string, number> } } {
  const parts = settled.map((s) => {
    const toolName = exposed.get(s.toolCallId) ?? s.toolName;
    if (s.state === 'not_run') return { toolCallId: s.toolCallId, toolName, output: s.result, isError: false };
    if (s.state === 'ran') return { toolCallId: s.toolCallId, toolName, output: s.output, isError: s.isError };
    return { toolCallId: s.toolCallId, toolName, output: 'still waiting for approval', isError: true };
  });
  const message: ModelMessage = {
    role: 'tool',
    content: parts.map((p) => ({
      type: 'tool-result' as const,
      toolCallId: p.toolCallId,
      toolName: p.toolName,
      output: p.isError
        ? { type: 'error-text' as const, value: typeof p.output === 'string' ? p.output : JSON.stringify(p.output) }
        : typeof p.output === 'string'
          ? { type: 'text' as const, value: p.output }
          : { type: 'json' as const, value: (p.output ?? null) as never },
    })),
  };
  const content: StepContentPart[] = parts.map((p) =>
    p.isError ? { type: 'tool-error', toolCallId: p.toolCallId, toolName: p.toolName, error: p.output } : { type: 'tool-result', toolCallId: p.toolCallId, toolName: p.toolName, output: p.output },
  );
  return { message, step: { content, usage: {} } };
}

/**
 * On `approval.decided`: once none of a run's requests is pending, the run (still
 * `awaiting_approval`) goes back to `waiting` with a new job, in the deciding transaction. The
 * run row is locked first, so of two requests decided at once the later transaction sees the
 * earlier's decision and exactly one resumes the run.
 */
export async function resumeDecidedRun(tx: Queryable, e: { runId: string }): Promise<void> {
  const run = await tx.selectFrom('agentRuns').select(['id', 'status']).where('id', '=', e.runId).forUpdate().executeTakeFirst();
  if (!run || run.status !== 'awaiting_approval') return;
  if ((await pendingCountOfRun(tx, e.runId)) > 0) return;
  await tx.updateTable('agentRuns').set({ status: 'waiting', statusMessage: 'Resuming: its approval requests are decided', updatedAt: new Date() }).where('id', '=', e.runId).execute();
  await enqueue(tx, agentRunJob, { runId: e.runId }, { jobKey: agentRunJobKey(e.runId) });
}
