import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { APICallError, generateText, Output, stepCountIs, streamText, tool, type LanguageModel } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fakes/anthropic-server.js';
import { startFakeMcp, type FakeMcp } from '../support/fakes/mcp-server.js';
import { startFakeOpenAI, type ChatMessage, type FakeOpenAI, type ResponsesInputItem } from '../support/fakes/openai-server.js';

/** Proves the protocol fakes against the real AI SDK providers and the real MCP client. */

const SYSTEM = 'You are a SOC analyst.';
const lookups: string[] = [];
const tools = {
  lookup_asset: tool({
    description: 'Look up an asset by hostname',
    inputSchema: z.object({ hostname: z.string() }),
    execute: async ({ hostname }) => {
      lookups.push(hostname);
      return { hostname, owner: 'platform-team' };
    },
  }),
};
const agentScript = [
  { toolCalls: [{ name: 'lookup_asset', args: { hostname: 'web-01' } }], usage: { inputTokens: 100, outputTokens: 20 } },
  { text: 'web-01 is owned by platform-team.', usage: { inputTokens: 150, outputTokens: 10 } },
];

function runAgent(model: LanguageModel) {
  return generateText({ model, system: SYSTEM, prompt: 'Who owns web-01?', tools, stopWhen: stepCountIs(5), maxRetries: 0 });
}

function expectAgentResult(result: Awaited<ReturnType<typeof runAgent>>, callId: string) {
  expect(result.text).toBe('web-01 is owned by platform-team.');
  expect(result.steps).toHaveLength(2);
  expect(result.steps[0]!.toolCalls[0]).toMatchObject({ toolCallId: callId, toolName: 'lookup_asset', input: { hostname: 'web-01' } });
  expect(result.steps[0]!.toolResults[0]).toMatchObject({ toolCallId: callId, output: { hostname: 'web-01', owner: 'platform-team' } });
  expect(result.steps[0]!.finishReason).toBe('tool-calls');
  expect(result.finishReason).toBe('stop');
  expect(result.usage).toMatchObject({ inputTokens: 150, outputTokens: 10, totalTokens: 160 });
  expect(result.totalUsage).toMatchObject({ inputTokens: 250, outputTokens: 30, totalTokens: 280 });
}

describe('OpenAI fake', () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-test' });
  });
  afterAll(() => fake.close());
  const provider = () => createOpenAI({ baseURL: fake.url, apiKey: 'sk-test' });
  const reset = (script: Parameters<FakeOpenAI['setScript']>[0]) => {
    fake.requests.length = 0;
    fake.setScript(script);
  };

  it('runs a tool loop through the default openai(id) model, which uses the Responses API', async () => {
    reset(agentScript);
    const result = await runAgent(provider()('gpt-4.1'));
    expectAgentResult(result, 'call_1');
    expect(fake.requests.map((r) => [r.api, r.path])).toEqual([['responses', '/v1/responses'], ['responses', '/v1/responses']]);
    const [first, second] = fake.requests;
    expect(first!.headers.authorization).toBe('Bearer sk-test');
    expect(first!.body.tools).toEqual([expect.objectContaining({ type: 'function', name: 'lookup_asset' })]);
    const input = second!.body.input as ResponsesInputItem[];
    expect(input[0]).toEqual({ role: 'system', content: SYSTEM });
    expect(input).toContainEqual(expect.objectContaining({ type: 'function_call', call_id: 'call_1', name: 'lookup_asset' }));
    expect(input).toContainEqual({ type: 'function_call_output', call_id: 'call_1', output: JSON.stringify({ hostname: 'web-01', owner: 'platform-team' }) });
  });

  it('runs a tool loop through openai.chat(id) (Chat Completions)', async () => {
    reset(agentScript);
    const result = await runAgent(provider().chat('gpt-4o-mini'));
    expectAgentResult(result, 'call_1');
    const [first, second] = fake.requests;
    expect(first!.api).toBe('chat');
    expect(first!.body.messages![0]).toEqual({ role: 'system', content: SYSTEM });
    expect(first!.body.tools![0]).toMatchObject({ type: 'function', function: { name: 'lookup_asset', parameters: { type: 'object' } } });
    const toolMsg = second!.body.messages!.find((m: ChatMessage) => m.role === 'tool');
    expect(toolMsg).toEqual({ role: 'tool', tool_call_id: 'call_1', content: JSON.stringify({ hostname: 'web-01', owner: 'platform-team' }) });
  });

  it('serves @ai-sdk/openai-compatible and GET /v1/models', async () => {
    reset(agentScript);
    const compat = createOpenAICompatible({ name: 'local', baseURL: fake.url, apiKey: 'sk-test' });
    expectAgentResult(await runAgent(compat('llama-3.1-8b')), 'call_1');
    expect(fake.requests[1]!.body.messages!.some((m) => m.role === 'tool' && m.tool_call_id === 'call_1')).toBe(true);
    const models = (await (await fetch(`${fake.url}/models`, { headers: { authorization: 'Bearer sk-test' } })).json()) as { data: Array<{ id: string }> };
    expect(models.data.map((m) => m.id)).toContain('gpt-4o-mini');
  });

  it('structured output: response_format json_schema (chat) and text.format (responses)', async () => {
    const schema = z.object({ verdict: z.enum(['malicious', 'benign']), score: z.number() });
    reset([{ object: { verdict: 'malicious', score: 0.9 } }, { object: { verdict: 'benign', score: 0.1 } }]);
    const chat = await generateText({ model: provider().chat('gpt-4o-mini'), prompt: 'Classify', output: Output.object({ schema }) });
    expect(chat.output).toEqual({ verdict: 'malicious', score: 0.9 });
    expect(fake.requests[0]!.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'response', strict: true, schema: { type: 'object', required: ['verdict', 'score'] } } });
    const resp = await generateText({ model: provider()('gpt-4.1'), prompt: 'Classify', output: Output.object({ schema }) });
    expect(resp.output).toEqual({ verdict: 'benign', score: 0.1 });
    expect(fake.requests[1]!.body.text?.format).toMatchObject({ type: 'json_schema', name: 'response', strict: true });
  });

  it('refuses, as OpenAI does, a schema sent with strict: true that strict mode does not support', async () => {
    const loose = { type: 'object', properties: { verdict: { type: 'string' }, note: { type: 'string' } }, required: ['verdict'] };
    const send = (strict: boolean, schema: Record<string, unknown> = loose) =>
      fetch(`${fake.url}/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], response_format: { type: 'json_schema', json_schema: { name: 'response', strict, schema } } }),
      });
    reset([{ object: { verdict: 'benign' } }]);
    const refused = await send(true);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error: { message: "Invalid schema for response_format 'response': In context=(), 'additionalProperties' is required to be supplied and to be false.", type: 'invalid_request_error', param: 'response_format', code: null },
    });
    const open = await send(true, { ...loose, additionalProperties: false });
    expect(((await open.json()) as { error: { message: string } }).error.message).toBe(
      "Invalid schema for response_format 'response': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'note'.",
    );
    const nested = await send(true, { type: 'object', properties: { a: { type: 'string', minLength: 1 } }, required: ['a'], additionalProperties: false });
    expect(((await nested.json()) as { error: { message: string } }).error.message).toBe("Invalid schema for response_format 'response': In context=('properties', 'a'), 'minLength' is not permitted.");
    expect((await send(false)).status).toBe(200);
  });

  it('streams (chat and responses) with usage in the final chunk', async () => {
    for (const model of [provider().chat('gpt-4o-mini'), provider()('gpt-4.1')]) {
      reset(agentScript);
      const result = streamText({ model, system: SYSTEM, prompt: 'Who owns web-01?', tools, stopWhen: stepCountIs(5), maxRetries: 0 });
      let streamed = '';
      for await (const delta of result.textStream) streamed += delta;
      expect(streamed).toBe('web-01 is owned by platform-team.');
      expect((await result.steps)[0]!.toolResults[0]).toMatchObject({ toolCallId: 'call_1', output: { owner: 'platform-team' } });
      expect(await result.totalUsage).toMatchObject({ inputTokens: 250, outputTokens: 30 });
      expect(fake.requests.every((r) => r.stream)).toBe(true);
      // Chat Completions only reports streamed usage when asked; @ai-sdk/openai always asks.
      if (fake.requests[0]!.api === 'chat') expect(fake.requests[0]!.body.stream_options).toEqual({ include_usage: true });
    }
  });

  it('errors: scripted statuses, exhausted script, wrong key', async () => {
    reset([{ status: 429, message: 'Rate limit reached' }]);
    const err = await generateText({ model: provider().chat('gpt-4o-mini'), prompt: 'x', maxRetries: 0 }).catch((e: unknown) => e);
    expect(APICallError.isInstance(err) && err.statusCode === 429 && err.message === 'Rate limit reached').toBe(true);
    const exhausted = await generateText({ model: provider()('gpt-4.1'), prompt: 'x', maxRetries: 0 }).catch((e: unknown) => e);
    expect(APICallError.isInstance(exhausted) && exhausted.statusCode).toBe(500);
    expect((exhausted as Error).message).toMatch(/script exhausted/);
    const badKey = createOpenAI({ baseURL: fake.url, apiKey: 'wrong' });
    await expect(generateText({ model: badKey.chat('gpt-4o-mini'), prompt: 'x', maxRetries: 0 })).rejects.toThrow(/Incorrect API key/);
  });

  it('a slow turn is abortable and the fake sees the disconnect', async () => {
    reset([{ text: 'too late', delayMs: 10_000 }]);
    const err = await generateText({ model: provider().chat('gpt-4o-mini'), prompt: 'x', abortSignal: AbortSignal.timeout(150), maxRetries: 0 }).catch((e: unknown) => e);
    // The 150 ms signal's own reason, passed through as it is: the signal cut the 10 s turn (left
    // alone, the turn would have answered 'too late'), and it was not an answer from the fake.
    expect(err).toBeInstanceOf(DOMException);
    expect((err as DOMException).name).toBe('TimeoutError');
    expect(APICallError.isInstance(err)).toBe(false);
    // The fake saw the connection close before it answered.
    await expect.poll(() => fake.requests[0]?.aborted).toBe(true);
  });

  it('a throwing tool is reported back to the model as the error text', async () => {
    reset((req) => (req.index === 0 ? { toolCalls: [{ name: 'explode', args: {} }] } : { text: 'The tool failed.' }));
    const explode = tool({ inputSchema: z.object({}), execute: async (): Promise<string> => { throw new Error('kaboom'); } });
    const result = await generateText({ model: provider().chat('gpt-4o-mini'), prompt: 'x', tools: { explode }, stopWhen: stepCountIs(3) });
    expect(result.text).toBe('The tool failed.');
    expect(result.steps[0]!.content.some((p) => p.type === 'tool-error')).toBe(true);
    expect(fake.requests[1]!.body.messages!.find((m) => m.role === 'tool')?.content).toBe('kaboom');
  });
});

describe('Anthropic fake', () => {
  let fake: FakeAnthropic;
  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: 'sk-ant-test' });
  });
  afterAll(() => fake.close());
  const anthropic = () => createAnthropic({ baseURL: fake.url, apiKey: 'sk-ant-test' });
  const reset = (script: Parameters<FakeAnthropic['setScript']>[0]) => {
    fake.requests.length = 0;
    fake.setScript(script);
  };

  it('runs a tool loop (Messages API)', async () => {
    reset(agentScript);
    const result = await runAgent(anthropic()('claude-sonnet-4-5'));
    expectAgentResult(result, 'toolu_1');
    const [first, second] = fake.requests;
    expect(first!.path).toBe('/v1/messages');
    expect(first!.headers['x-api-key']).toBe('sk-ant-test');
    expect(first!.headers['anthropic-version']).toBe('2023-06-01');
    expect(first!.body.system).toEqual([{ type: 'text', text: SYSTEM }]);
    expect(first!.body.tools![0]).toMatchObject({ name: 'lookup_asset', input_schema: { type: 'object' } });
    const lastUser = second!.body.messages.at(-1)!;
    expect(lastUser.role).toBe('user');
    expect(lastUser.content).toEqual([
      expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_1', content: JSON.stringify({ hostname: 'web-01', owner: 'platform-team' }) }),
    ]);
  });

  it('streams a tool loop (SSE events)', async () => {
    reset(agentScript);
    const result = streamText({ model: anthropic()('claude-sonnet-4-5'), prompt: 'Who owns web-01?', tools, stopWhen: stepCountIs(5), maxRetries: 0 });
    expect(await result.text).toBe('web-01 is owned by platform-team.');
    expect((await result.steps)[0]!.toolCalls[0]).toMatchObject({ toolCallId: 'toolu_1', input: { hostname: 'web-01' } });
    expect(await result.totalUsage).toMatchObject({ inputTokens: 250, outputTokens: 30 });
    expect(fake.requests.map((r) => r.stream)).toEqual([true, true]);
  });

  it('stops streaming when the client aborts mid-stream', async () => {
    reset([{ text: 'one two three four five six', chunkDelayMs: 200 }]);
    const ac = new AbortController();
    const result = streamText({ model: anthropic()('claude-sonnet-4-5'), prompt: 'x', abortSignal: ac.signal, maxRetries: 0, onError: () => {} });
    for await (const delta of result.textStream) {
      expect(delta).toBe('one ');
      ac.abort();
    }
    await expect.poll(() => fake.requests[0]?.aborted).toBe(true);
  });

  it('structured output: native output_config.format, or the forced "json" tool on older models', async () => {
    const schema = z.object({ verdict: z.enum(['malicious', 'benign']) });
    reset([{ object: { verdict: 'malicious' } }, { object: { verdict: 'benign' } }]);
    const native = await generateText({ model: anthropic()('claude-sonnet-4-5'), prompt: 'Classify', output: Output.object({ schema }) });
    expect(native.output).toEqual({ verdict: 'malicious' });
    expect(fake.requests[0]!.body.output_config?.format).toMatchObject({ type: 'json_schema', schema: { type: 'object' } });
    const legacy = await generateText({ model: anthropic()('claude-3-haiku-20240307'), prompt: 'Classify', output: Output.object({ schema }) });
    expect(legacy.output).toEqual({ verdict: 'benign' });
    // jsonTool mode: the only tool is "json" and tool_choice is {type:"any"}.
    expect(fake.requests[1]!.body.tools!.map((t) => t.name)).toEqual(['json']);
    expect(fake.requests[1]!.body.tool_choice).toMatchObject({ type: 'any' });
  });

  it('a throwing tool comes back as tool_result with is_error; errors use the Anthropic shape', async () => {
    reset([{ toolCalls: [{ name: 'explode', args: {} }] }, { text: 'ok' }, { status: 529, message: 'Overloaded' }]);
    const explode = tool({ inputSchema: z.object({}), execute: async (): Promise<string> => { throw new Error('kaboom'); } });
    await generateText({ model: anthropic()('claude-sonnet-4-5'), prompt: 'x', tools: { explode }, stopWhen: stepCountIs(3) });
    const content = fake.requests[1]!.body.messages.at(-1)!.content;
    expect(content).toEqual([expect.objectContaining({ type: 'tool_result', is_error: true, content: 'kaboom' })]);
    await expect(generateText({ model: anthropic()('claude-sonnet-4-5'), prompt: 'x', maxRetries: 0 })).rejects.toThrow('Overloaded');
  });
});

describe('MCP fake', () => {
  let mcp: FakeMcp;
  beforeAll(async () => {
    mcp = await startFakeMcp({ token: 'mcp-secret' });
  });
  afterAll(() => mcp.close());

  async function connect(token?: string): Promise<Client> {
    const client = new Client({ name: 'rampart-test', version: '0.0.0' });
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit: { headers } }));
    return client;
  }

  it('lists and calls tools, including failing ones, and records calls', async () => {
    const client = await connect('mcp-secret');
    try {
      const { tools: listed } = await client.listTools();
      expect(listed.map((t) => t.name)).toEqual(['lookup_asset', 'failing_tool', 'throwing_tool']);
      expect(listed[0]!.inputSchema).toMatchObject({ type: 'object', properties: { hostname: { type: 'string' } }, required: ['hostname'] });

      const ok = await client.callTool({ name: 'lookup_asset', arguments: { hostname: 'web-01.corp.example' } });
      expect(ok.isError).toBeFalsy();
      expect(ok.content).toEqual([{ type: 'text', text: expect.stringContaining('owner=platform-team') }]);

      const failed = await client.callTool({ name: 'failing_tool', arguments: {} });
      expect(failed).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Inventory backend unavailable' }] });
      const thrown = await client.callTool({ name: 'throwing_tool', arguments: {} });
      expect(thrown).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('boom from throwing_tool') }] });

      expect(mcp.calls.map((c) => c.name)).toEqual(['lookup_asset', 'failing_tool', 'throwing_tool']);
      expect(mcp.calls[0]).toEqual({ name: 'lookup_asset', arguments: { hostname: 'web-01.corp.example' }, authorization: 'Bearer mcp-secret' });
      expect(mcp.methods).toContain('initialize');
    } finally {
      await client.close();
    }
  });

  it('rejects a missing or wrong bearer token', async () => {
    await expect(connect()).rejects.toThrow(/401|Unauthorized/i);
    await expect(connect('nope')).rejects.toThrow(/401|Unauthorized/i);
  });
});
