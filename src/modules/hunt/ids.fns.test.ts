import { afterEach, describe, expect, it, vi } from 'vitest';
import { uuidv7 } from './ids.fns.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const msOf = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);

describe('uuidv7 (the pass\'s id generator)', () => {
  afterEach(() => vi.useRealTimers());

  it('makes valid v7 ids, unique and increasing within a millisecond and across many', () => {
    const ids = Array.from({ length: 20_000 }, () => uuidv7());
    expect(ids.filter((id) => !V7.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('carries the time in its first 48 bits (a later clock than any id made before)', () => {
    vi.useFakeTimers({ now: Date.UTC(2031, 10, 30, 12, 0, 0, 123), toFake: ['Date'] });
    expect(msOf(uuidv7())).toBe(Date.UTC(2031, 10, 30, 12, 0, 0, 123));
  });

  it('keeps counting up when the clock goes back', () => {
    vi.useFakeTimers({ now: Date.UTC(2032, 0, 1), toFake: ['Date'] });
    const a = uuidv7();
    vi.setSystemTime(Date.UTC(2031, 0, 1));
    const b = uuidv7();
    expect(b > a).toBe(true);
    expect(msOf(b)).toBe(Date.UTC(2032, 0, 1));
  });
});
