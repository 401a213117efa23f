import { describe, expect, it } from 'vitest';
import { secretsEqual } from './secrets-equal.js';

describe('secretsEqual', () => {
  it('compares secrets of any length', () => {
    expect(secretsEqual('abc', 'abc')).toBe(true);
    expect(secretsEqual('abc', 'abcd')).toBe(false);
    expect(secretsEqual('abcd', 'abc')).toBe(false);
    expect(secretsEqual('', 'abc')).toBe(false);
    expect(secretsEqual('abd', 'abc')).toBe(false);
  });
});
