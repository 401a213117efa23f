import { describe, expect, it } from 'vitest';
import { until } from './until.js';

describe('until', () => {
  it('returns the first truthy value the probe gives', async () => {
    const values = [undefined, null, false, 0, '', { id: 'row-7' }, { id: 'later' }];
    let calls = 0;
    const found = await until('the row', () => values[calls++], { everyMs: 1 });
    expect(found).toEqual({ id: 'row-7' });
    expect(calls).toBe(6);
  });

  it('awaits an async probe', async () => {
    let calls = 0;
    expect(await until('the third call', async () => ++calls >= 3 && calls, { everyMs: 1 })).toBe(3);
  });

  it('keeps polling through a probe that throws', async () => {
    let calls = 0;
    const found = await until(
      'the server',
      () => {
        if (++calls < 4) throw new Error('ECONNREFUSED');
        return 'up';
      },
      { everyMs: 1 },
    );
    expect(found).toBe('up');
    expect(calls).toBe(4);
  });

  it('times out naming what it waited for and the last value it saw', async () => {
    let calls = 0;
    const waiting = until('two deliveries', () => (calls++ === 0 ? false : null), { timeoutMs: 100, everyMs: 5 });
    await expect(waiting).rejects.toThrow('timed out after 100 ms waiting for two deliveries (last value: null)');
    expect(calls).toBeGreaterThan(1);
  });

  it('shows the last value, not an error from an earlier probe', async () => {
    let calls = 0;
    const waiting = until(
      'a count',
      () => {
        if (calls++ === 0) throw new Error('not up yet');
        return 0;
      },
      { timeoutMs: 100, everyMs: 5 },
    );
    await expect(waiting).rejects.toThrow('timed out after 100 ms waiting for a count (last value: 0)');
  });

  it('ends at the bound even when the pause is longer, probing once more there', async () => {
    let calls = 0;
    // A pause past the deadline would outlast vitest's 60 s test timeout.
    await expect(until('a slow event', () => (calls++, false), { timeoutMs: 50, everyMs: 600_000 })).rejects.toThrow('timed out after 50 ms waiting for a slow event');
    expect(calls).toBeGreaterThanOrEqual(2);
  });

  it('times out with the last error when the probe kept throwing', async () => {
    await expect(
      until(
        'the server',
        () => {
          throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
        },
        { timeoutMs: 100 },
      ),
    ).rejects.toThrow('timed out after 100 ms waiting for the server (last error: connect ECONNREFUSED 127.0.0.1:5432)');
  });

  it('cuts a long error message to about 500 characters', async () => {
    const error = await until(
      'the feed',
      () => {
        throw new Error(`bad body: ${'x'.repeat(5_000)}`);
      },
      { timeoutMs: 50 },
    ).catch((err: Error) => err);
    expect((error as Error).message).toMatch(/^timed out after 50 ms waiting for the feed \(last error: bad body: x+…\)$/);
    expect((error as Error).message.length).toBeLessThan(600);
  });

  it('adds the caller\'s context, read at the timeout', async () => {
    const calls: string[] = [];
    const waiting = until('a million calls', () => (calls.push('call'), calls.length >= 1_000_000), { timeoutMs: 50, context: () => `calls: ${calls.length > 1 ? 'several' : calls.length}` });
    await expect(waiting).rejects.toThrow(/waiting for a million calls \(last value: false; calls: several\)$/);
  });
});
