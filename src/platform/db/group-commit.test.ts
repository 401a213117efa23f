import { describe, expect, it } from 'vitest';
import { createGroupCommit } from './group-commit.js';

/** A write that records each batch it got and answers `v * 10`; `refuse` values make PostgreSQL-like errors (a SQLSTATE). */
function recorder(opts: { refuse?: number[]; lost?: boolean; gate?: Promise<void> } = {}) {
  const batches: number[][] = [];
  const write = async (items: readonly number[]) => {
    batches.push([...items]);
    await opts.gate;
    if (opts.lost) throw Object.assign(new Error('Connection terminated unexpectedly'), {});
    if (items.some((v) => opts.refuse?.includes(v))) throw Object.assign(new Error('insert violates foreign key constraint'), { code: '23503', severity: 'ERROR' });
    return items.map((v) => v * 10);
  };
  return { batches, write };
}

const settle = (ps: Array<Promise<number>>) => Promise.allSettled(ps).then((rs) => rs.map((r) => (r.status === 'fulfilled' ? r.value : `error ${(r.reason as { code?: string }).code ?? 'lost'}`)));

describe('group commit', () => {
  it('writes items submitted together in one batch and answers each its own result', async () => {
    const r = recorder();
    const g = createGroupCommit(r.write, { maxWaitMs: 5, maxBatch: 64, maxInFlight: 2 });
    expect(await Promise.all([1, 2, 3].map((v) => g.submit(v)))).toEqual([10, 20, 30]);
    expect(r.batches).toEqual([[1, 2, 3]]);
    expect(g.stats).toEqual({ batches: 1, items: 3, refused: 0 });
  });

  it('a lone item after a quiet spell is written at once; items close together wait for company', async () => {
    const r = recorder();
    const g = createGroupCommit(r.write, { maxWaitMs: 200, maxBatch: 64, maxInFlight: 2 });
    const first = g.submit(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(r.batches).toEqual([[1]]); // nothing came before it: written on the next turn, not 200 ms later
    expect(await first).toBe(10);
    // The next item follows closely: its batch waits, and an item 20 ms later joins it.
    const second = g.submit(2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const third = g.submit(3);
    expect(await Promise.all([second, third])).toEqual([20, 30]);
    expect(r.batches).toEqual([[1], [2, 3]]);
  });

  it('splits at maxBatch', async () => {
    const r = recorder();
    const g = createGroupCommit(r.write, { maxWaitMs: 5, maxBatch: 2, maxInFlight: 2 });
    expect(await Promise.all([1, 2, 3, 4, 5].map((v) => g.submit(v)))).toEqual([10, 20, 30, 40, 50]);
    expect(r.batches.map((b) => b.length).sort()).toEqual([1, 2, 2]);
  });

  it('queues while every slot is writing, then writes the queue together', async () => {
    let open!: () => void;
    const r = recorder({ gate: new Promise<void>((resolve) => (open = resolve)) });
    const g = createGroupCommit(r.write, { maxWaitMs: 0, maxBatch: 64, maxInFlight: 1 });
    const first = g.submit(1);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const rest = [2, 3, 4].map((v) => g.submit(v));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(r.batches).toEqual([[1]]);
    open();
    expect(await Promise.all([first, ...rest])).toEqual([10, 20, 30, 40]);
    expect(r.batches).toEqual([[1], [2, 3, 4]]);
  });

  it('a batch PostgreSQL refused is written again item by item: only the bad item fails', async () => {
    const r = recorder({ refuse: [2] });
    const refusals: number[] = [];
    const g = createGroupCommit(r.write, { maxWaitMs: 5, maxBatch: 64, maxInFlight: 2, onBatchRefused: (_err, size) => refusals.push(size) });
    expect(await settle([1, 2, 3].map((v) => g.submit(v)))).toEqual([10, 'error 23503', 30]);
    expect(r.batches).toEqual([[1, 2, 3], [1], [2], [3]]);
    expect(refusals).toEqual([3]);
    expect(g.stats.refused).toBe(1);
  });

  it('an error that does not say the statement rolled back (connection lost) fails the batch without writing again', async () => {
    const r = recorder({ lost: true });
    const g = createGroupCommit(r.write, { maxWaitMs: 5, maxBatch: 64, maxInFlight: 2 });
    expect(await settle([1, 2].map((v) => g.submit(v)))).toEqual(['error lost', 'error lost']);
    expect(r.batches).toEqual([[1, 2]]);
  });
});
