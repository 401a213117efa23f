import { describe, expect, it } from 'vitest';
import { inputProblems } from './inputs.fns.js';

describe('inputProblems', () => {
  const specs = [
    { name: 'alert', type: 'object' as const, required: true },
    { name: 'note', type: 'string' as const, required: false },
  ];
  it('names missing required inputs and inputs of another JSON type', () => {
    expect(inputProblems(specs, { alert: {}, note: 'x' })).toEqual([]);
    expect(inputProblems(specs, { note: 5 })).toEqual([
      { name: 'alert', code: 'required', message: 'is required by this agent' },
      { name: 'note', code: 'invalid_type', message: 'must be of type string' },
    ]);
    expect(inputProblems(specs, { alert: [] })).toEqual([{ name: 'alert', code: 'invalid_type', message: 'must be of type object' }]);
    expect(inputProblems(specs, 'a string input')).toEqual([{ name: 'alert', code: 'required', message: 'is required by this agent' }]);
    expect(inputProblems([], null)).toEqual([]);
  });
});
