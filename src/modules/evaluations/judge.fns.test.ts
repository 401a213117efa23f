import { describe, expect, it } from 'vitest';
import { alignCriteria, judgePrompt, scoreOf } from './judge.fns.js';

describe('the judge', () => {
  it('matches its grading back to the criteria asked, by text then by position; a skipped one is ungraded (null), not failed', () => {
    const answer = { criteria: [{ criterion: 'B', met: false, explanation: 'no' }, { criterion: 'a (reworded)', met: true, explanation: 'yes' }], score: 40, explanation: '' };
    expect(alignCriteria(['A', 'B', 'C'], answer)).toEqual([
      { criterion: 'A', met: false, explanation: 'no' },
      { criterion: 'B', met: false, explanation: 'no' },
      { criterion: 'C', met: null, explanation: 'The judge did not grade this criterion' },
    ]);
    expect([scoreOf(101.4), scoreOf(-3), scoreOf(Number.NaN), scoreOf(66.6)]).toEqual([100, 0, 0, 67]);
  });

  it('shows the transcript clipped, tool calls and results included, and numbers the criteria', () => {
    const prompt = judgePrompt(['Cites evidence'], {
      status: 'done',
      statusMessage: null,
      result: {
        finalAssistantMessage: 'Escalated.',
        allToolCallsMade: [],
        allToolResultsReceived: [],
        messages: [
          { role: 'system', content: 'You triage.' },
          { role: 'user', content: 'Alert X' },
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: '1', toolName: 'get_alert', args: { alertId: 'EVAL-1' } }] },
          { role: 'tool', content: [{ type: 'tool-result', toolCallId: '1', toolName: 'get_alert', result: 'x'.repeat(5000), isError: false }] },
          { role: 'assistant', content: [{ type: 'text', text: 'Escalated.' }] },
        ],
      },
    });
    expect(prompt).toContain('[tool call] get_alert {"alertId":"EVAL-1"}');
    expect(prompt).toContain('… [3000 more characters]');
    expect(prompt).toContain('1. Cites evidence');
  });
});
