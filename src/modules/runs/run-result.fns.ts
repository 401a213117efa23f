/**
 * The async run result (the API spec's "Other resources"; docs/agents.md), built from the AI SDK's steps. Pure, so partial runs
 * (interrupted, out of time) map the same way as finished ones.
 *
 * Naming follows the spec, not the SDK: a tool call carries `args` (SDK: `input`), a tool result
 * carries `result` (SDK: `output`) and `isError`. `messages` hold the four roles: `system` and
 * `user` with string content; `assistant` with text and tool-call parts; `tool` with
 * tool-result parts.
 */
export interface ToolCallPart {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  args: unknown;
}
export interface ToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  result: unknown;
  isError: boolean;
}
export type RunMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: Array<{ type: 'text'; text: string } | ToolCallPart> }
  | { role: 'tool'; content: ToolResultPart[] };

export interface RunResult {
  finalAssistantMessage: string;
  allToolCallsMade: ToolCallPart[];
  allToolResultsReceived: ToolResultPart[];
  messages: RunMessage[];
  structuredOutputResult?: string;
}

/** The parts of an AI SDK step this mapping reads (StepResult['content']). */
export type StepContentPart =
  | { type: 'text'; text: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'tool-result'; toolCallId: string; toolName: string; output: unknown }
  | { type: 'tool-error'; toolCallId: string; toolName: string; error: unknown }
  | { type: string };

/** An error as a tool result: its message, never a stack. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : JSON.stringify(error);
}

/** The user message an input becomes: a string as given, anything else as JSON. */
export function inputToPrompt(input: unknown): string {
  if (typeof input === 'string') return input;
  if (input === null || input === undefined) return 'Run now. There is no input.';
  return `Input (JSON):\n${JSON.stringify(input, null, 2)}`;
}

/** What a run that triages an alert is told about it (the same for every origin: routed, assigned, hunt, trigger). */
export interface RunAlertContext {
  id: string;
  displayId: string;
  title: string;
  severity: string;
  status: string;
  source: { category: string; name: string; triggerType: string | null };
  dedupeKey: string | null;
  duplicateCount: number;
  externalRef: string | null;
  externalUrl: string | null;
}

/** The alert a run triages, in words (for the model to act on) and as data. */
export function alertPrompt(alert: RunAlertContext): string {
  const words =
    `This run triages alert ${alert.displayId} ("${alert.title}"): severity ${alert.severity}, status ${alert.status}, from ${alert.source.name}. ` +
    'The alert tools (get_alert, comment_on_alert, update_alert, set_alert_status) act on this alert when you give no alertId.';
  return `${words}\nAlert (JSON):\n${JSON.stringify(alert, null, 2)}`;
}

/**
 * The user message of a run: the alert it triages first, then for a triggered run the webhook
 * delivery it came from (source, delivery id, event type, allow-listed headers), then the input.
 * They are a user message, not a system one, because their values are the sender's, as the
 * input is.
 */
export function runPrompt(input: unknown, triggerContext: unknown, alert: RunAlertContext | null = null): string {
  const parts: string[] = [];
  if (alert) parts.push(alertPrompt(alert));
  const scheduled = (triggerContext as { source?: unknown } | null)?.source === 'cron';
  if (triggerContext) parts.push(`Trigger context (JSON; ${scheduled ? 'the schedule this run came from' : 'the webhook delivery this run came from, values as the sender sent them'}):\n${JSON.stringify(triggerContext, null, 2)}`);
  parts.push(inputToPrompt(input));
  return parts.join('\n\n');
}

export function buildRunResult(args: {
  systemPrompt: string;
  userPrompt: string;
  steps: ReadonlyArray<{ content: readonly StepContentPart[] }>;
  structuredOutput?: unknown;
}): RunResult {
  const messages: RunMessage[] = [
    { role: 'system', content: args.systemPrompt },
    { role: 'user', content: args.userPrompt },
  ];
  const calls: ToolCallPart[] = [];
  const results: ToolResultPart[] = [];
  let finalText = '';
  for (const step of args.steps) {
    const assistant: Array<{ type: 'text'; text: string } | ToolCallPart> = [];
    const toolResults: ToolResultPart[] = [];
    let stepText = '';
    for (const part of step.content) {
      if (isPart(part, 'text')) {
        stepText += part.text;
        assistant.push({ type: 'text', text: part.text });
      } else if (isPart(part, 'tool-call')) {
        const call: ToolCallPart = { type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, args: part.input ?? null };
        calls.push(call);
        assistant.push(call);
      } else if (isPart(part, 'tool-result')) {
        toolResults.push({ type: 'tool-result', toolCallId: part.toolCallId, toolName: part.toolName, result: part.output ?? null, isError: false });
      } else if (isPart(part, 'tool-error')) {
        toolResults.push({ type: 'tool-result', toolCallId: part.toolCallId, toolName: part.toolName, result: errorText(part.error), isError: true });
      }
    }
    if (assistant.length) messages.push({ role: 'assistant', content: assistant });
    if (toolResults.length) {
      messages.push({ role: 'tool', content: toolResults });
      results.push(...toolResults);
    }
    // The final answer is the text of the last step that produced any.
    if (stepText) finalText = stepText;
  }
  const result: RunResult = { finalAssistantMessage: finalText, allToolCallsMade: calls, allToolResultsReceived: results, messages };
  if (args.structuredOutput !== undefined) result.structuredOutputResult = JSON.stringify(args.structuredOutput);
  return result;
}

function isPart<T extends StepContentPart['type']>(part: StepContentPart, type: T): part is Extract<StepContentPart, { type: T }> {
  return part.type === type;
}
