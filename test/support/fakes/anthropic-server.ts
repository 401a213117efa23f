import type http from 'node:http';
import { sendJson, startServer } from './http-server.js';
import {
  argsJson,
  isErrorTurn,
  parseBody,
  scriptRunner,
  splitHalves,
  splitText,
  sseWriter,
  trackAbort,
  turnContent,
  waitWhileConnected,
  type RecordedModelRequest,
  type Script,
  type ScriptedTurn,
} from './openai-server.js';

/*
 * A scripted Anthropic Messages API (POST /v1/messages), JSON and SSE, shaped like the real API.
 * Same script model as the OpenAI fake (see openai-server.ts).
 */

export type { Script, ScriptedTurn } from './openai-server.js';

export type AnthropicContentBlock =
  | { type: 'text'; text: string; [k: string]: unknown }
  | { type: 'tool_use'; id: string; name: string; input: unknown; [k: string]: unknown }
  /** Sent back by the client in a `user` message; `is_error: true` when the tool threw. */
  | { type: 'tool_result'; tool_use_id: string; content?: string | Array<Record<string, unknown>>; is_error?: boolean; [k: string]: unknown }
  | { type: string; [k: string]: unknown };

export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  stream?: boolean;
  /** The AI SDK sends the system prompt as text blocks: `[{type:"text", text}]`. */
  system?: string | Array<{ type: 'text'; text: string; [k: string]: unknown }>;
  messages: Array<{ role: 'user' | 'assistant'; content: string | AnthropicContentBlock[] }>;
  tools?: Array<{ name: string; description?: string; input_schema: Record<string, unknown>; [k: string]: unknown }>;
  tool_choice?: { type: string; name?: string; [k: string]: unknown };
  /** Native structured output (newer models): `{format: {type:"json_schema", schema}}`. */
  output_config?: { format?: { type: string; schema?: Record<string, unknown> }; [k: string]: unknown };
  [k: string]: unknown;
}
export interface AnthropicRequest extends RecordedModelRequest {
  body: AnthropicRequestBody;
}

export interface FakeAnthropicOptions {
  script?: Script<AnthropicRequest>;
  /** When set, requests without `x-api-key: <apiKey>` get Anthropic's 401. */
  apiKey?: string;
}
export interface FakeAnthropic {
  /** Base URL ending in /v1 (pass as `baseURL`; the SDK appends /messages). */
  url: string;
  requests: AnthropicRequest[];
  setScript(script: Script<AnthropicRequest>): void;
  close(): Promise<void>;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};
export function anthropicError(status: number, message: string) {
  return { type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message } };
}

export async function startFakeAnthropic(opts: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const requests: AnthropicRequest[] = [];
  const script = scriptRunner<AnthropicRequest>(opts.script ?? []);
  let seq = 0; // for msg_ ids

  const server = await startServer(async (raw, res) => {
    const path = new URL(raw.url, 'http://x').pathname.replace(/\/+$/, '');
    if (opts.apiKey && raw.headers['x-api-key'] !== opts.apiKey) return sendJson(res, 401, anthropicError(401, 'invalid x-api-key'));
    if (raw.method !== 'POST' || path !== '/v1/messages') return sendJson(res, 404, anthropicError(404, `Not found: ${raw.method} ${path}`));
    const body = parseBody(raw.body);
    if (!body) return sendJson(res, 400, anthropicError(400, 'There was an error parsing the body of your request.'));
    if (!raw.headers['anthropic-version']) return sendJson(res, 400, anthropicError(400, 'anthropic-version: header is required'));
    const rec: AnthropicRequest = { index: requests.length, path, headers: raw.headers, body: body as AnthropicRequestBody, stream: body.stream === true, aborted: false };
    requests.push(rec);
    trackAbort(res, rec);

    const turn = await script.next(rec);
    if (!turn) return sendJson(res, 500, anthropicError(500, `fake-anthropic: script exhausted (request #${rec.index + 1}, ${script.describe()})`));
    if (!(await waitWhileConnected(res, turn.delayMs))) return;
    if (isErrorTurn(turn)) {
      return sendJson(res, turn.status, turn.body ?? anthropicError(turn.status, turn.message ?? `scripted ${turn.status}`), turn.headers);
    }
    const content = contentBlocks(turn, rec.body, script.nextCallNumber);
    const msg: MessageCtx = {
      id: `msg_${++seq}`,
      model: rec.body.model,
      content,
      stopReason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
      usage: { input_tokens: turn.usage?.inputTokens ?? 10, output_tokens: turn.usage?.outputTokens ?? 5 },
    };
    if (rec.stream) return streamMessage(res, msg, turn.chunkDelayMs);
    return sendJson(res, 200, {
      id: msg.id,
      type: 'message',
      role: 'assistant',
      model: msg.model,
      content: msg.content,
      stop_reason: msg.stopReason,
      stop_sequence: null,
      usage: { ...msg.usage, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
  });

  return { url: `${server.url}/v1`, requests, setScript: (s) => script.set(s), close: server.close };
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };
interface MessageCtx {
  id: string;
  model: string;
  content: Block[];
  stopReason: 'end_turn' | 'tool_use';
  usage: { input_tokens: number; output_tokens: number };
}

function contentBlocks(turn: Exclude<ScriptedTurn, { status: number }>, body: AnthropicRequestBody, nextCall: () => number): Block[] {
  // Structured output: models without native support get a forced tool named "json" from the
  // AI SDK ("jsonTool" mode) and must answer with a tool_use of it; others get output_config.format.
  if ('object' in turn && !body.output_config?.format && body.tools?.some((t) => t.name === 'json')) {
    return [{ type: 'tool_use', id: `toolu_${nextCall()}`, name: 'json', input: turn.object }];
  }
  const { text, toolCalls } = turnContent(turn);
  const blocks: Block[] = text !== '' ? [{ type: 'text', text }] : [];
  for (const c of toolCalls) {
    blocks.push({ type: 'tool_use', id: c.id ?? `toolu_${nextCall()}`, name: c.name, input: toolInput(c.args) });
  }
  return blocks;
}

/** tool_use.input is a JSON object on the wire; a scripted string is parsed when it can be. */
function toolInput(args: unknown): unknown {
  if (typeof args !== 'string') return args ?? {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

/**
 * message_start → per block: content_block_start / _delta… / _stop → message_delta (stop_reason,
 * output usage) → message_stop; a `ping` after the first block start, as the real API does.
 */
async function streamMessage(res: http.ServerResponse, m: MessageCtx, chunkDelayMs?: number): Promise<void> {
  const sse = sseWriter(res, chunkDelayMs);
  const events: Array<{ type: string; [k: string]: unknown }> = [
    {
      type: 'message_start',
      message: {
        id: m.id,
        type: 'message',
        role: 'assistant',
        model: m.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: m.usage.input_tokens, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    },
  ];
  m.content.forEach((b, index) => {
    if (b.type === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      if (index === 0) events.push({ type: 'ping' });
      for (const text of splitText(b.text)) events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
    } else {
      // tool_use starts with an empty input; the JSON arrives as input_json_delta fragments.
      events.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
      if (index === 0) events.push({ type: 'ping' });
      for (const partial_json of splitHalves(argsJson(b.input))) events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: m.stopReason, stop_sequence: null }, usage: { output_tokens: m.usage.output_tokens } });
  events.push({ type: 'message_stop' });
  for (const e of events) if (!(await sse.send(e, e.type))) return;
  sse.end();
}
