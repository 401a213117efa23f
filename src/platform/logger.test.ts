import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { isoTimeOncePerMillisecond } from './logger.js';

describe('isoTimeOncePerMillisecond', () => {
  it("writes what pino's isoTime writes, for each millisecond", () => {
    let clock = Date.parse('2026-11-25T23:59:59.998Z');
    const time = isoTimeOncePerMillisecond(() => clock);
    expect(time()).toBe(',"time":"2026-11-25T23:59:59.998Z"');
    expect(time()).toBe(',"time":"2026-11-25T23:59:59.998Z"');
    clock += 1;
    expect(time()).toBe(',"time":"2026-11-25T23:59:59.999Z"');
    clock += 1;
    expect(time()).toBe(',"time":"2026-11-26T00:00:00.000Z"');
    const real = isoTimeOncePerMillisecond();
    expect(real()).toMatch(/^,"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"$/);
    expect(pino.stdTimeFunctions.isoTime()).toMatch(/^,"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"$/);
  });
});
