import { describe, expect, it } from 'vitest';
import { buildRunResult, inputToPrompt } from './run-result.fns.js';

describe('buildRunResult', () => {
  const steps = [
    {
      content: [
        { type: 'text', text: 'Looking it up.' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup_indicator', input: { value: '1.2.3.4' } },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'http_request', input: { url: 'http://x' } },
        { type: 'tool-result', toolCallId: 'c1', toolName: 'lookup_indicator', output: { status: 'found' } },
        { type: 'tool-error', toolCallId: 'c2', toolName: 'http_request', error: new Error('refused: private address') },
        { type: 'reasoning', text: 'ignored' },
      ],
    },
    { content: [{ type: 'text', text: 'Verdict: ' }, { type: 'text', text: 'malicious' }] },
  ];

  it('maps steps to the shape of the async run result, with the four roles', () => {
    const r = buildRunResult({ systemPrompt: 'sys', userPrompt: 'hi', steps });
    expect(r).toEqual({
      finalAssistantMessage: 'Verdict: malicious',
      allToolCallsMade: [
        { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup_indicator', args: { value: '1.2.3.4' } },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'http_request', args: { url: 'http://x' } },
      ],
      allToolResultsReceived: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'lookup_indicator', result: { status: 'found' }, isError: false },
        { type: 'tool-result', toolCallId: 'c2', toolName: 'http_request', result: 'refused: private address', isError: true },
      ],
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Looking it up.' },
            { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup_indicator', args: { value: '1.2.3.4' } },
            { type: 'tool-call', toolCallId: 'c2', toolName: 'http_request', args: { url: 'http://x' } },
          ],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: 'c1', toolName: 'lookup_indicator', result: { status: 'found' }, isError: false },
            { type: 'tool-result', toolCallId: 'c2', toolName: 'http_request', result: 'refused: private address', isError: true },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'Verdict: ' }, { type: 'text', text: 'malicious' }] },
      ],
    });
    expect(r).not.toHaveProperty('structuredOutputResult');
  });

  it('adds structuredOutputResult as a JSON string only when given', () => {
    const r = buildRunResult({ systemPrompt: 's', userPrompt: 'u', steps: [], structuredOutput: { verdict: 'benign' } });
    expect(r.structuredOutputResult).toBe('{"verdict":"benign"}');
    expect(r.finalAssistantMessage).toBe('');
  });
});

describe('inputToPrompt', () => {
  it('passes strings, renders JSON, says so when empty', () => {
    expect(inputToPrompt('check 1.2.3.4')).toBe('check 1.2.3.4');
    expect(inputToPrompt({ a: 1 })).toBe('Input (JSON):\n{\n  "a": 1\n}');
    expect(inputToPrompt(null)).toBe('Run now. There is no input.');
  });
});
