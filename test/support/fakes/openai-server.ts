import type http from 'node:http';
import { sendJson, startServer } from './http-server.js';
import { strictRequestError } from './openai-strict.js';

/*
 * A scripted OpenAI API: Chat Completions (used by `openai.chat()` and by
 * `@ai-sdk/openai-compatible`) and the Responses API (used by the default `openai(id)` model
 * of `@ai-sdk/openai` v3), JSON and SSE, shaped like the real API, including the 400 for a
 * schema sent with `strict: true` that strict mode refuses (openai-strict.ts). The script
 * machinery here is shared with anthropic-server.ts.
 */

// ---------------------------------------------------------------- script model (shared)

export interface ScriptedUsage {
  inputTokens?: number;
  outputTokens?: number;
}
export interface ScriptedToolCall {
  name: string;
  /** Serialized with JSON.stringify; a string is sent verbatim (to script malformed arguments). */
  args: unknown;
  /** Defaults to `call_<n>` (OpenAI) / `toolu_<n>` (Anthropic), n counting from 1 per script (setScript restarts it). */
  id?: string;
}
interface TurnOptions {
  usage?: ScriptedUsage;
  /** Wait before answering (a slow model). Abortable: a client disconnect ends the turn. */
  delayMs?: number;
  /** Streaming only: wait between SSE events (to abort mid-stream). */
  chunkDelayMs?: number;
}
export type ScriptedTurn =
  | (TurnOptions & { text: string })
  | (TurnOptions & { toolCalls: ScriptedToolCall[]; text?: string })
  /** Structured output: JSON text, or (Anthropic jsonTool mode) a `json` tool_use. */
  | (TurnOptions & { object: unknown })
  /** An HTTP error; `body` defaults to the provider's error shape carrying `message`. */
  | { status: number; message?: string; body?: unknown; headers?: Record<string, string>; delayMs?: number };

export type Script<R> = ScriptedTurn[] | ((request: R) => ScriptedTurn | Promise<ScriptedTurn>);

/** Fields every recorded model request has (the fakes add a typed `body`). */
export interface RecordedModelRequest {
  /** 0-based over all model requests this server received. */
  index: number;
  path: string;
  headers: http.IncomingHttpHeaders;
  stream: boolean;
  /** True when the client disconnected before the response was complete. */
  aborted: boolean;
}

/** Hands out turns in order (or from the script function); `undefined` once exhausted. */
export function scriptRunner<R>(initial: Script<R>) {
  let script = initial;
  let cursor = 0;
  let calls = 0;
  return {
    set(next: Script<R>): void {
      script = next;
      cursor = 0;
      calls = 0;
    },
    /** Number for the next generated tool-call id. */
    nextCallNumber: (): number => ++calls,
    async next(request: R): Promise<ScriptedTurn | undefined> {
      if (typeof script === 'function') return script(request);
      return script[cursor++];
    },
    describe(): string {
      return typeof script === 'function' ? 'script function' : `${script.length} scripted turn(s)`;
    },
  };
}

export const isErrorTurn = (t: ScriptedTurn): t is Extract<ScriptedTurn, { status: number }> => 'status' in t;

/** Text and tool calls of a non-error turn (an `object` turn becomes JSON text). */
export function turnContent(t: Exclude<ScriptedTurn, { status: number }>): { text: string; toolCalls: ScriptedToolCall[] } {
  if ('object' in t) return { text: JSON.stringify(t.object), toolCalls: [] };
  if ('toolCalls' in t) return { text: t.text ?? '', toolCalls: t.toolCalls };
  return { text: t.text, toolCalls: [] };
}

export const argsJson = (args: unknown): string => (typeof args === 'string' ? args : JSON.stringify(args ?? {}));

/** Word-sized pieces, so streaming clients see several deltas. */
export function splitText(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text ? [text] : []);
}
/** Two halves (a prefix of a JSON object never parses, so clients must accumulate). */
export function splitHalves(s: string): string[] {
  const mid = Math.ceil(s.length / 2);
  return s.length < 2 ? [s] : [s.slice(0, mid), s.slice(mid)];
}

const connectionGone = (res: http.ServerResponse) => res.destroyed || (res.socket?.destroyed ?? true);

/** Resolves true after `ms`, or false as soon as the client disconnects. */
export function waitWhileConnected(res: http.ServerResponse, ms: number | undefined): Promise<boolean> {
  if (connectionGone(res)) return Promise.resolve(false);
  if (!ms) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onClose = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(true);
    }, ms);
    res.once('close', onClose);
  });
}

/** Marks `rec.aborted` when the connection closes before the response finished. */
export function trackAbort(res: http.ServerResponse, rec: { aborted: boolean }): void {
  res.once('close', () => {
    if (!res.writableFinished) rec.aborted = true;
  });
}

/** An SSE writer; `send` returns false (and writes nothing more) once the client is gone. */
export function sseWriter(res: http.ServerResponse, chunkDelayMs?: number) {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  return {
    async send(data: unknown, event?: string): Promise<boolean> {
      if (connectionGone(res)) return false;
      // Anthropic and the Responses API name each event; Chat Completions sends bare `data:` lines.
      res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
      return waitWhileConnected(res, chunkDelayMs);
    },
    end(): void {
      if (!connectionGone(res)) res.end();
    },
  };
}

/** The JSON object body, or null when it is not one. */
export function parseBody(raw: string): Record<string, unknown> | null {
  const v: unknown = (() => { try { return JSON.parse(raw || '{}'); } catch { return null; } })();
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

// ---------------------------------------------------------------- OpenAI wire types

export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content?: string | Array<Record<string, unknown>> | null;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  /** On `role: "tool"` messages: the id of the call this result answers. */
  tool_call_id?: string;
  [k: string]: unknown;
}
/** A Responses API input item: a message (`role`), `function_call`, `function_call_output`, `item_reference`… */
export interface ResponsesInputItem {
  type?: string;
  role?: string;
  content?: unknown;
  id?: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  output?: unknown;
  [k: string]: unknown;
}
export interface OpenAIRequestBody {
  model: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  /** Chat Completions. */
  messages?: ChatMessage[];
  /** Responses API. */
  input?: ResponsesInputItem[] | string;
  instructions?: string;
  /** Chat: `{type:"function", function:{name, description, parameters, strict}}`; Responses: `{type:"function", name, …}`. */
  tools?: Array<Record<string, unknown>>;
  tool_choice?: unknown;
  /** Chat structured output: `{type:"json_schema", json_schema:{name, schema, strict}}` or `{type:"json_object"}`. */
  response_format?: { type: string; json_schema?: { name?: string; schema?: Record<string, unknown>; strict?: boolean } };
  /** Responses structured output: `text.format = {type:"json_schema", name, schema, strict}`. */
  text?: { format?: { type: string; name?: string; schema?: Record<string, unknown>; strict?: boolean } };
  [k: string]: unknown;
}
export interface OpenAIRequest extends RecordedModelRequest {
  api: 'chat' | 'responses';
  body: OpenAIRequestBody;
}

export interface FakeOpenAIOptions {
  script?: Script<OpenAIRequest>;
  /** When set, requests without `Authorization: Bearer <apiKey>` get OpenAI's 401. */
  apiKey?: string;
  /** Ids listed by GET /v1/models. */
  models?: string[];
}

export interface FakeOpenAI {
  /** Base URL ending in /v1 (pass as `baseURL`). */
  url: string;
  requests: OpenAIRequest[];
  setScript(script: Script<OpenAIRequest>): void;
  close(): Promise<void>;
}

const ERROR_TYPES: Record<number, [type: string, code: string | null]> = {
  400: ['invalid_request_error', null], 401: ['invalid_request_error', 'invalid_api_key'],
  404: ['invalid_request_error', 'model_not_found'], 429: ['requests', 'rate_limit_exceeded'],
};
export function openaiError(status: number, message: string) {
  const [type, code] = ERROR_TYPES[status] ?? ['server_error', null];
  return { error: { message, type, param: null, code } };
}

// ---------------------------------------------------------------- server

export async function startFakeOpenAI(opts: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const requests: OpenAIRequest[] = [];
  const script = scriptRunner<OpenAIRequest>(opts.script ?? []);
  let seq = 0; // for chatcmpl-/resp_/msg_ ids

  const server = await startServer(async (raw, res) => {
    const path = new URL(raw.url, 'http://x').pathname.replace(/\/+$/, '');
    if (opts.apiKey && raw.headers.authorization !== `Bearer ${opts.apiKey}`) {
      return sendJson(res, 401, openaiError(401, 'Incorrect API key provided.'));
    }
    if (raw.method === 'GET' && path === '/v1/models') {
      const data = (opts.models ?? ['gpt-4o-mini', 'gpt-4.1']).map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'fake' }));
      return sendJson(res, 200, { object: 'list', data });
    }
    const api = path === '/v1/chat/completions' ? 'chat' : path === '/v1/responses' ? 'responses' : null;
    if (raw.method !== 'POST' || !api) return sendJson(res, 404, openaiError(404, `Unknown route ${raw.method} ${path}`));
    const body = parseBody(raw.body);
    if (!body) return sendJson(res, 400, openaiError(400, 'We could not parse the JSON body of your request.'));
    const rec: OpenAIRequest = { index: requests.length, path, api, headers: raw.headers, body: body as OpenAIRequestBody, stream: body.stream === true, aborted: false };
    requests.push(rec);
    trackAbort(res, rec);
    // As the real API: a schema sent with `strict: true` that strict mode does not support is refused.
    const strictError = strictRequestError(body);
    if (strictError) return sendJson(res, 400, { error: { ...openaiError(400, strictError.message).error, param: strictError.param } });

    const turn = await script.next(rec);
    if (!turn) return sendJson(res, 500, openaiError(500, `fake-openai: script exhausted (request #${rec.index + 1}, ${script.describe()})`));
    if (!(await waitWhileConnected(res, turn.delayMs))) return;
    if (isErrorTurn(turn)) {
      return sendJson(res, turn.status, turn.body ?? openaiError(turn.status, turn.message ?? `scripted ${turn.status}`), turn.headers);
    }
    const { text, toolCalls } = turnContent(turn);
    const calls = toolCalls.map((c) => ({ id: c.id ?? `call_${script.nextCallNumber()}`, name: c.name, arguments: argsJson(c.args) }));
    const usage = { input: turn.usage?.inputTokens ?? 10, output: turn.usage?.outputTokens ?? 5 };
    const ctx: TurnCtx = { model: rec.body.model, text, calls, usage, created: Math.floor(Date.now() / 1000), n: ++seq };
    if (api === 'chat') return rec.stream ? streamChat(res, ctx, rec.body, turn.chunkDelayMs) : sendJson(res, 200, chatCompletion(ctx));
    return rec.stream ? streamResponses(res, ctx, turn.chunkDelayMs) : sendJson(res, 200, responsesObject(ctx, 'completed'));
  });

  return { url: `${server.url}/v1`, requests, setScript: (s) => script.set(s), close: server.close };
}

interface TurnCtx {
  model: string;
  text: string;
  calls: Array<{ id: string; name: string; arguments: string }>;
  usage: { input: number; output: number };
  created: number;
  n: number;
}

// ---------------------------------------------------------------- Chat Completions

const chatUsage = (c: TurnCtx) => ({
  prompt_tokens: c.usage.input,
  completion_tokens: c.usage.output,
  total_tokens: c.usage.input + c.usage.output,
  prompt_tokens_details: { cached_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0 },
});
const finishReason = (c: TurnCtx) => (c.calls.length > 0 ? 'tool_calls' : 'stop');

function chatCompletion(c: TurnCtx) {
  return {
    id: `chatcmpl-${c.n}`,
    object: 'chat.completion',
    created: c.created,
    model: c.model,
    system_fingerprint: 'fp_fake',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          // OpenAI sends content: null (not "") on a pure tool-call answer.
          content: c.text === '' && c.calls.length > 0 ? null : c.text,
          refusal: null,
          ...(c.calls.length > 0 && { tool_calls: c.calls.map((t) => ({ id: t.id, type: 'function', function: { name: t.name, arguments: t.arguments } })) }),
        },
        logprobs: null,
        finish_reason: finishReason(c),
      },
    ],
    usage: chatUsage(c),
  };
}

/** `data: {chunk}` lines, `data: [DONE]` last; usage only in a final `choices: []` chunk when asked for. */
async function streamChat(res: http.ServerResponse, c: TurnCtx, body: OpenAIRequestBody, chunkDelayMs?: number): Promise<void> {
  const sse = sseWriter(res, chunkDelayMs);
  const includeUsage = body.stream_options?.include_usage === true;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id: `chatcmpl-${c.n}`,
    object: 'chat.completion.chunk',
    created: c.created,
    model: c.model,
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage && { usage: null }),
  });
  const events: unknown[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const piece of splitText(c.text)) events.push(chunk({ content: piece }));
  c.calls.forEach((t, index) => {
    // The first delta of a call carries id, type and name; later ones only argument fragments.
    events.push(chunk({ tool_calls: [{ index, id: t.id, type: 'function', function: { name: t.name, arguments: '' } }] }));
    for (const part of splitHalves(t.arguments)) events.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
  });
  events.push(chunk({}, finishReason(c)));
  if (includeUsage) events.push({ ...chunk({}), choices: [], usage: chatUsage(c) });
  for (const e of events) if (!(await sse.send(e))) return;
  await sse.send('[DONE]');
  sse.end();
}

// ---------------------------------------------------------------- Responses API

function responseItems(c: TurnCtx) {
  const items: Array<Record<string, unknown>> = [];
  if (c.text !== '') {
    items.push({
      id: `msg_${c.n}`,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: c.text, annotations: [], logprobs: [] }],
    });
  }
  // `id` is the item id (fc_…); `call_id` is what function_call_output items must reference.
  c.calls.forEach((t, i) => items.push({ id: `fc_${c.n}_${i}`, type: 'function_call', status: 'completed', call_id: t.id, name: t.name, arguments: t.arguments }));
  return items;
}

const responsesUsage = (c: TurnCtx) => ({
  input_tokens: c.usage.input,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: c.usage.output,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: c.usage.input + c.usage.output,
});

function responsesObject(c: TurnCtx, status: 'in_progress' | 'completed') {
  const done = status === 'completed';
  return {
    id: `resp_${c.n}`,
    object: 'response',
    created_at: c.created,
    status,
    model: c.model,
    error: null,
    incomplete_details: null,
    output: done ? responseItems(c) : [],
    parallel_tool_calls: true,
    service_tier: 'default',
    usage: done ? responsesUsage(c) : null,
  };
}

/** Named events with a running `sequence_number`, as the real API streams them. */
async function streamResponses(res: http.ServerResponse, c: TurnCtx, chunkDelayMs?: number): Promise<void> {
  const sse = sseWriter(res, chunkDelayMs);
  let sequence_number = 0;
  const events: Array<Record<string, unknown> & { type: string }> = [];
  const ev = (type: string, data: Record<string, unknown>) => events.push({ type, sequence_number: sequence_number++, ...data });
  ev('response.created', { response: responsesObject(c, 'in_progress') });
  ev('response.in_progress', { response: responsesObject(c, 'in_progress') });
  responseItems(c).forEach((item, output_index) => {
    const item_id = item.id as string;
    if (item.type === 'message') {
      ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
      ev('response.content_part.added', { item_id, output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      for (const delta of splitText(c.text)) ev('response.output_text.delta', { item_id, output_index, content_index: 0, delta, logprobs: [] });
      ev('response.output_text.done', { item_id, output_index, content_index: 0, text: c.text, logprobs: [] });
      ev('response.content_part.done', { item_id, output_index, content_index: 0, part: { type: 'output_text', text: c.text, annotations: [] } });
    } else {
      ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
      for (const delta of splitHalves(item.arguments as string)) ev('response.function_call_arguments.delta', { item_id, output_index, delta });
      ev('response.function_call_arguments.done', { item_id, output_index, arguments: item.arguments });
    }
    ev('response.output_item.done', { output_index, item });
  });
  ev('response.completed', { response: responsesObject(c, 'completed') });
  for (const e of events) if (!(await sse.send(e, e.type))) return;
  sse.end();
}
