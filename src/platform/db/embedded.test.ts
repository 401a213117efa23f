import { describe, expect, it } from 'vitest';
import { asError } from './embedded.js';

describe('asError', () => {
  it('keeps Errors and wraps anything else with context, never printing a bare undefined', () => {
    const e = new Error('boom');
    expect(asError(e, 'x')).toBe(e);
    expect(asError(undefined, 'starting the embedded PostgreSQL').message).toBe('starting the embedded PostgreSQL failed without a reason');
    expect(asError('port taken', 'start-up').message).toBe('start-up failed: port taken');
    expect(asError({ code: 1 }, 'start-up').message).toBe('start-up failed: {"code":1}');
  });
});
