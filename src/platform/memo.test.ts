import { describe, expect, it } from 'vitest';
import { memoized } from './memo.js';

describe('memoized', () => {
  it('computes each argument once, remembers null and undefined results, and stays bounded', () => {
    const calls: string[] = [];
    const f = memoized((s: string) => (calls.push(s), s === 'none' ? null : s === 'void' ? undefined : s.length), 3);
    expect([f('abc'), f('abc'), f('none'), f('none'), f('void'), f('void')]).toEqual([3, 3, null, null, undefined, undefined]);
    expect(calls).toEqual(['abc', 'none', 'void']);
    // A fourth value drops the memory whole: 'abc' is computed again, then remembered.
    expect(f('wxyz')).toBe(4);
    expect([f('abc'), f('abc')]).toEqual([3, 3]);
    expect(calls).toEqual(['abc', 'none', 'void', 'wxyz', 'abc']);
  });
});
