import type { StepResult, ToolSet } from 'ai';
import { loadAiSdk } from '../../platform/ai-sdk.js';
import type { Logger } from 'pino';
import type { Database, Queryable } from '../../platform/db/database.js';
import type { AgentRunStatus } from './runs.tables.js';
import type { ExposedToolInfo, ToolRunContext } from '../tools/index.js';
import { defineJob, type JobContext, type JobDefinition } from '../../platform/jobs/catalog.js';
import { guardedFetch, type GuardedClient } from '../../platform/outbound/index.js';
import type { SecretBox } from '../../platform/secrets.js';
import { inputProblems, structuredOutputSchema, type AgentInputSpecT, type PinnedAgent } from '../agents/index.js';
import { agentOfRun } from './run-pinning.js';
import { resolveModel } from '../models/index.js';
import { agentRunJob } from './run.job-def.js';
import { buildRunResult, runPrompt, type RunAlertContext, type RunResult, type StepContentPart } from './run-result.fns.js';
import { endAbandonedRun, finishRun, markInterruptedBeforeStart, recordProgress } from './run-state.js';
import { claimRunWithinLimit, createRunFairShare } from './run-fair-share.js';
import type { EventBus } from '../../platform/events.js';
import { interruptRequested, loadRunActor, markAwaitingApproval, releaseRunForRetry } from './runs.repo.js';
import { describeRunError, inputProblemsMessage, jobFailedMessage } from './run-errors.fns.js';
import { gatedTools, policyResolver, reasonOf, settledAsResults, stepWithoutPlaceholders, withoutPlaceholders, type PolicyOf, type RunTranscript } from './run-approvals.js';
import { settleDecidedCalls, type ApprovalNeeded } from '../approvals/index.js';
import { awaitApproval } from './run-state.js';
import type { ModelMessage } from 'ai';

/** The run's tool set, built per run (tools/toolset.ts in the service; scripted tools in tests). */
export type BuildTools = (ctx: ToolRunContext, toolNames: readonly string[]) => Promise<RunTools>;
/** `readOnlyTools`: the MCP tools whose server declares them read-only (what a sandbox may still call). */
export type RunTools = {
  tools: ToolSet;
  close(): Promise<void>;
  readOnlyTools?: ReadonlySet<string>;
  /** Per tool as exposed: the agent's name for it and its default policy (tools' toolset.ts). */
  toolInfo?: Readonly<Record<string, ExposedToolInfo>>;
  /** The policy of a call (set by the run job before a sandbox wraps the set: an evaluation records `approve` as "would have asked approval"). */
  policyOf?: PolicyOf;
};

/**
 * An evaluation run's sandbox (the evaluations module answers `ModuleReaders.runSandbox`): the
 * alert the run is told it triages (a shadow of the case's alert) and its tool set wrapped so
 * that nothing real is touched. Null: the run belongs to no evaluation.
 */
export interface RunSandbox {
  alert: RunAlertContext | null;
  wrap(built: RunTools, ctx: ToolRunContext): RunTools;
}
export type LoadRunSandbox = (db: Database, run: { id: string; organizationId: string }) => Promise<RunSandbox | null>;

export interface RunJobDeps {
  db: Database;
  secrets: SecretBox;
  http: GuardedClient;
  logger: Logger;
  buildTools: BuildTools;
  /** Per model call (a long completion can take minutes); the run's own limit still applies. */
  modelCallTimeoutMs?: number;
  /** How often a running run looks for an interrupt request. */
  interruptPollMs?: number;
  /** The service's events: `run.ended` (the alerts module notes a triage run's outcome) and `run.output` (delivery) are emitted in the transaction that records a run's end. */
  events: EventBus;
  /** The alert a run triages, read when it starts (the alerts module answers: `ModuleReaders.runAlert`). */
  loadRunAlert?: LoadRunAlert;
  /** Runs of mode `evaluation` run in it; without it they end in error rather than run unsandboxed. */
  loadSandbox?: LoadRunSandbox;
  /** RAMPART_BASE_URL: the console link an approval request's messages carry. */
  baseUrl?: string;
}

export type LoadRunAlert = (db: Queryable, organizationId: string, alertId: string) => Promise<RunAlertContext | null>;

declare module '../../platform/wiring.js' {
  interface ModuleReaders {
    /** What a triage run is told about its alert when it starts; the alerts module answers (runs cannot import alerts). */
    runAlert: LoadRunAlert;
    /** The sandbox an evaluation run executes in; the evaluations module answers (runs cannot import it). */
    runSandbox: LoadRunSandbox;
  }
}

/** Read by the OpenAI and OpenAI-compatible providers (each reads its own key). */
const NON_STRICT_SCHEMA = { openai: { strictJsonSchema: false }, openaiCompatible: { strictJsonSchema: false } };

class RunStop extends Error {
  constructor(readonly status: AgentRunStatus, message: string) {
    super(message);
  }
}

/**
 * Executes one agent run: the model loop with the agent's tools, bounded by its step limit and
 * wall-time limit, interruptible. Every outcome is recorded on the run (`done`, `error`,
 * `interrupted`); only a worker shutdown throws, so the job is retried by another worker.
 */
export function createAgentRunJob(deps: RunJobDeps): JobDefinition<{ runId: string }> {
  const fairShare = createRunFairShare(deps.db);
  return defineJob({
    ...agentRunJob,
    run: ({ runId }, ctx) => executeRun(deps, runId, ctx),
    // Fair scheduling across agents and each agent's own limit (run-fair-share.ts).
    skipFlags: () => fairShare.skipFlags(),
    // Its worker died on every attempt (or the database took them): the run must still end.
    onFailed: async ({ runId }, reason) => {
      if (await endAbandonedRun(deps.db, runId, jobFailedMessage(reason), deps.events)) {
        deps.logger.warn({ runId, reason }, 'agent run ended in error: its job failed for good');
      }
    },
  });
}

async function executeRun(deps: RunJobDeps, runId: string, job: JobContext): Promise<void> {
  const { db } = deps;
  const { generateText, NoObjectGeneratedError, Output, stepCountIs } = await loadAiSdk();
  if (await markInterruptedBeforeStart(db, runId)) return;
  // Within its agent's maxConcurrentRuns, or queued again for later (run-fair-share.ts).
  const claim = await claimRunWithinLimit(db, runId);
  if (claim.kind !== 'claimed') return; // deferred; or finished already (a duplicate delivery of the job), or deleted with its agent
  const run = claim.run;
  // The agent the run was queued with: an edit since changes nothing (run-pinning.ts).
  const agent = await agentOfRun(db, run);
  if (!agent) return;
  const log = deps.logger.child({ runId, agentId: agent.id });

  const sandbox = run.mode === 'evaluation' ? ((await deps.loadSandbox?.(db, run)) ?? null) : null;
  // Read now, not when queued: the model sees the alert as it is (status, duplicates) when it starts.
  const alert = sandbox ? sandbox.alert : run.alertId && deps.loadRunAlert ? await deps.loadRunAlert(db, run.organizationId, run.alertId) : null;
  // A run resuming after approvals continues its stored transcript (its user message as it started).
  const transcript = (run.transcript as RunTranscript | null) ?? null;
  const userPrompt = transcript?.userPrompt ?? runPrompt(run.input, run.triggerContext, alert);
  const prior: RunTranscript['steps'] = [...(transcript?.steps ?? [])];
  const steps: Array<StepResult<ToolSet>> = [];
  const allSteps = () => [...prior, ...(steps as unknown as RunTranscript['steps'])];
  const partial = (): RunResult => buildRunResult({ systemPrompt: agent.systemPrompt, userPrompt, steps: allSteps() });

  const limit = new AbortController();
  const timer = setTimeout(() => limit.abort(new RunStop('error', `Time limit of ${agent.maxDurationMs / 1000}s exceeded`)), agent.maxDurationMs);
  const poll = setInterval(() => {
    void interruptRequested(db, runId)
      .then((stop) => {
        if (stop) limit.abort(new RunStop('interrupted', 'Interrupted on request'));
      })
      .catch(() => {});
  }, deps.interruptPollMs ?? 1000);
  const signal = AbortSignal.any([limit.signal, job.signal]);
  let closeTools = async () => {};

  try {
    // Direct runs were checked when queued; a trigger's payload (or an agent changed since) may lack what the agent needs.
    if (run.mode === 'evaluation' && !sandbox) throw new RunStop('error', 'This evaluation run has no sandbox (its evaluation is gone, or this worker cannot sandbox runs); it did not run');
    const problems = inputProblems(agent.inputs as AgentInputSpecT[], run.input);
    if (problems.length) throw new RunStop('error', inputProblemsMessage(problems, run.triggerId !== null));
    const actor = run.actorUserId ? await loadRunActor(db, run.organizationId, run.actorUserId, run.actorApiKeyId) : null;
    if (!actor) throw new RunStop('error', 'The user this run acts for is deactivated or no longer exists');
    const fetch = guardedFetch(deps.http, { timeoutMs: deps.modelCallTimeoutMs ?? 300_000, maxResponseBytes: 32 * 1024 * 1024 });
    const model = await resolveModel({ db, secrets: deps.secrets, fetch }, run.organizationId, agent.modelAlias);
    if (!model.ok) throw new RunStop('error', model.message);
    const toolCtx: ToolRunContext = { organizationId: run.organizationId, actor, runId, agentId: agent.id, alertId: run.alertId, signal, requestId: `run:${runId}` };
    const built = await deps.buildTools(toolCtx, agent.toolNames).catch((err: unknown) => {
      throw new RunStop('error', `Tools unavailable: ${err instanceof Error ? err.message : String(err)}`);
    });
    closeTools = built.close;
    const toolInfo = built.toolInfo ?? {};
    const policyOf = policyResolver(agent.toolPolicies as Record<string, string> | undefined, toolInfo);
    // An evaluation's sandbox judges policies itself (an `approve` call is recorded as "would have asked approval", never run).
    const waiting: Array<ApprovalNeeded & { exposedName: string }> = [];
    const tools = sandbox ? sandbox.wrap({ ...built, policyOf }, toolCtx).tools : gatedTools(built.tools, toolInfo, policyOf, waiting);

    const messages: ModelMessage[] = [{ role: 'user', content: userPrompt }, ...(transcript?.messages ?? [])];
    if (transcript?.pending.length) {
      // Resuming: each decided call settles exactly once (approvals' state machine), its result given to the model.
      const exposed = new Map(transcript.pending.map((p) => [p.toolCallId, p.exposedName]));
      const settled = await settleDecidedCalls(db, runId, [...exposed.keys()], async (_name, toolCallId, args) => {
        const t = built.tools[exposed.get(toolCallId)!];
        if (!t?.execute) throw new Error(`The tool ${exposed.get(toolCallId)} is no longer in this agent's tool set`);
        return t.execute(args as never, { toolCallId, messages, abortSignal: signal });
      });
      if (settled.some((c) => c.state === 'pending')) {
        await markAwaitingApproval(db, runId);
        return;
      }
      const { message, step } = settledAsResults(settled, exposed);
      messages.push(message);
      prior.push(step as RunTranscript['steps'][number]);
    }
    const priorModelSteps = prior.filter((p) => Object.keys(p.usage).length > 0 || p.content.some((c) => c.type !== 'tool-result' && c.type !== 'tool-error')).length;

    const output = agent.structuredOutputSchema ? structuredOutputSchema(agent.structuredOutputSchema, model.strictSchemas) : null;
    log.info({ model: model.label, attempt: job.attempt, resumed: transcript !== null }, 'agent run started');
    const result = await generateText({
      model: model.model,
      system: agent.systemPrompt,
      messages,
      tools,
      stopWhen: [stepCountIs(Math.max(1, agent.maxSteps - priorModelSteps)), () => waiting.length > 0],
      abortSignal: signal,
      maxRetries: 2,
      ...(output ? { output: Output.object({ schema: output.schema }) } : {}),
      // A schema strict mode cannot express is sent non-strict rather than refused by the provider.
      ...(output && model.strictSchemas && !output.strict ? { providerOptions: NON_STRICT_SCHEMA } : {}),
      onStepFinish: async (step) => {
        steps.push(step);
        await recordProgress(db, runId, allSteps()).catch(() => {});
      },
    });

    if (waiting.length > 0) {
      // Calls wait for a person: store where the run is, record the requests, and end this job (it holds nothing while it waits).
      const ids = new Set(waiting.map((w) => w.toolCallId));
      const textOf = (id: string) => result.steps.find((st) => st.toolCalls.some((c) => c.toolCallId === id))?.text ?? '';
      const stored: RunTranscript = {
        userPrompt,
        messages: withoutPlaceholders([...messages.slice(1), ...result.response.messages], ids),
        steps: [...prior, ...result.steps.map((st) => ({ content: stepWithoutPlaceholders(st.content as StepContentPart[], ids), usage: { inputTokens: st.usage.inputTokens ?? 0, outputTokens: st.usage.outputTokens ?? 0 } }))],
        pending: waiting.map((w) => ({ toolCallId: w.toolCallId, exposedName: w.exposedName })),
      };
      const calls = waiting.map((w) => ({ ...w, reason: reasonOf(textOf(w.toolCallId), w.args) }));
      await awaitApproval(db, run, agent, deps.events, { transcript: stored, calls, baseUrl: deps.baseUrl ?? '' });
      log.info({ approvals: calls.length, tools: calls.map((c) => c.toolName) }, 'agent run awaits approval');
      return;
    }

    const total = [...prior, ...result.steps] as unknown as RunTranscript['steps'];
    const outcome = conclude(agent, result.steps, () => result.output, priorModelSteps);
    await finishRun(db, run, agent, deps.events, { ...outcome, result: buildRunResult({ systemPrompt: agent.systemPrompt, userPrompt, steps: total, ...(outcome.structured !== undefined ? { structuredOutput: outcome.structured } : {}) }), steps: total as never });
    log.info({ status: outcome.status, steps: total.length }, 'agent run finished');
  } catch (err) {
    if (job.signal.aborted && !limit.signal.aborted) {
      // The worker is stopping: leave the run for the retry (it starts over from its last stored transcript).
      await releaseRunForRetry(db, runId);
      throw err;
    }
    if (agent.structuredOutputSchema && NoObjectGeneratedError.isInstance(err) && steps.length) {
      // The agent finished, but its answer does not fit the schema: done, without the structured result.
      await finishRun(db, run, agent, deps.events, { status: 'done', statusMessage: invalidOutputMessage(err), result: partial(), steps: allSteps() as never });
      return;
    }
    const stop = limit.signal.aborted ? (limit.signal.reason as RunStop) : err instanceof RunStop ? err : null;
    const status = stop?.status ?? 'error';
    const message = stop?.message ?? describeRunError(err);
    if (!stop) log.warn({ err: message }, 'agent run failed');
    await finishRun(db, run, agent, deps.events, { status, statusMessage: message, result: partial(), steps: allSteps() as never });
  } finally {
    clearTimeout(timer);
    clearInterval(poll);
    await closeTools().catch(() => {});
  }
}

/** Status of a loop that returned: the step limit without a final answer is an error. */
function conclude(agent: PinnedAgent, steps: ReadonlyArray<StepResult<ToolSet>>, output: () => unknown, priorSteps = 0): { status: AgentRunStatus; statusMessage: string | null; structured?: unknown } {
  const last = steps.at(-1);
  if (last?.finishReason === 'tool-calls' && priorSteps + steps.length >= agent.maxSteps) {
    return { status: 'error', statusMessage: `Step limit reached: the agent used all ${agent.maxSteps} steps without a final answer` };
  }
  if (!agent.structuredOutputSchema) return { status: 'done', statusMessage: null };
  try {
    return { status: 'done', statusMessage: null, structured: output() };
  } catch (err) {
    return { status: 'done', statusMessage: invalidOutputMessage(err) };
  }
}

const invalidOutputMessage = (err: unknown) => `The final answer is not valid structured output (${describeRunError(err)}); structuredOutputResult is absent`;

