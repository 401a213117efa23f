import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger, isoTimeOncePerMillisecond, stdoutOncePerTurn } from './logger.js';

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

describe('stdoutOncePerTurn', () => {
  it("writes a turn's lines together, in order, at the end of that turn", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-log-'));
    const file = path.join(dir, 'out.log');
    const fd = fs.openSync(file, 'a');
    try {
      const log = createLogger('info', stdoutOncePerTurn(fd));
      log.info({ n: 1 }, 'one');
      log.info({ n: 2 }, 'two');
      expect(fs.readFileSync(file, 'utf8')).toBe(''); // not yet: the turn is not over
      await new Promise((r) => setImmediate(r));
      log.warn({ n: 3 }, 'three');
      await new Promise((r) => setImmediate(r));
      const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { n: number; msg: string; level: number });
      expect(lines.map((l) => [l.n, l.msg, l.level])).toEqual([[1, 'one', 30], [2, 'two', 30], [3, 'three', 40]]);
    } finally {
      fs.closeSync(fd);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('loses no line when the process exits in the same turn (process.exit, uncaught exception)', () => {
    const logger = fileURLToPath(new URL('./logger.ts', import.meta.url));
    const run = (tail: string) => {
      const script = `import { createLogger } from ${JSON.stringify(logger)};
const log = createLogger('info');
log.info('first');
setTimeout(() => { log.info('second'); log.error('last'); ${tail} }, 5);`; // not fatal: pino flushes after a fatal line itself
      try {
        return execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      } catch (err) {
        return (err as { stdout: string }).stdout;
      }
    };
    for (const tail of ['process.exit(3);', "throw new Error('boom');"]) {
      expect(run(tail).split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['first', 'second', 'last']);
    }
  });
});
