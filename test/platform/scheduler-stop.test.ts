import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/db.js';
import { startScheduler } from '../../src/scheduler.js';

/**
 * A stop while the scheduler's passes run (a worker stopped as it ticks) logs one line: the
 * passes the shutdown cut off (here, its pool closed under them) are named there, not each in a
 * warning with its stack.
 */
function capturingLogger() {
  const lines: { level: number; msg: string; interrupted?: string[] }[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

describe('the scheduler stopped during a tick', () => {
  it('waits for the passes under way and logs one line, no burst of warnings, when the shutdown cuts them off', async () => {
    const database = await createTestDatabase();
    const { logger, lines } = capturingLogger();
    const scheduler = startScheduler({ db: database.db, logger, intervalMs: 3_600_000 });
    // The tick at start is under way: stop, and close the pool under its passes.
    const stopped = scheduler.stop();
    await database.close();
    await stopped;
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
    const last = lines.filter((l) => l.msg.startsWith('scheduler stopped'));
    expect(last).toHaveLength(1);
    expect(last[0]!.interrupted?.length ?? 0).toBeGreaterThan(0);
  });

  it('a stop between ticks logs one line too', async () => {
    const database = await createTestDatabase();
    try {
      const { logger, lines } = capturingLogger();
      const scheduler = startScheduler({ db: database.db, logger, intervalMs: 3_600_000 });
      await scheduler.stop();
      expect(lines.filter((l) => l.level >= 40)).toEqual([]);
      expect(lines.map((l) => l.msg)).toEqual(['scheduler stopped']);
    } finally {
      await database.close();
    }
  });
});
