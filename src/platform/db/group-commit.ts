import { isDatabaseUnavailable } from './errors.js';

/**
 * Group commit: items submitted concurrently are written by one statement (`write` receives them
 * all and answers one result per item, in order), so the statement's fixed costs — the round
 * trip, its parse/plan/executor start-up, the commit's WAL flush and whatever a callee does once
 * per call (graphile-worker's `add_jobs`) — are paid once per batch instead of once per item.
 *
 * When an item arrives and fewer than `maxInFlight` batches are being written, a batch opens and
 * is written `maxWaitMs` later (or at once when it reaches `maxBatch`). Only while items come
 * close together: an item arriving more than `maxWaitMs` after the previous one (a quiet spell,
 * no company likely) opens a batch written on the next turn of the event loop, so a lone
 * delivery pays no wait. Items arriving while every
 * slot is busy wait for the next free one and go together. Each caller's promise settles only
 * after the statement that wrote its item returned, i.e. committed: nothing is answered before it
 * is stored.
 *
 * Isolation: a batch that PostgreSQL refused (an error with a SQLSTATE: the single statement
 * rolled back, nothing of it was written) is written again one item at a time, so one bad item
 * fails alone and its batch-mates succeed. An error that does not say the statement rolled back
 * (the connection was lost: it may have committed) fails every item of the batch, as it would
 * have failed each alone; nothing is written twice.
 */
export interface GroupCommitOptions {
  /** How long an opened batch waits for company before it is written (0: the next turn of the event loop). */
  maxWaitMs: number;
  maxBatch: number;
  /** Batches written at the same time (each on its own pooled connection). */
  maxInFlight: number;
  /** Told when a refused batch is retried item by item (the first error, the batch's size). */
  onBatchRefused?: (err: unknown, size: number) => void;
}

export interface GroupCommit<I, O> {
  submit(item: I): Promise<O>;
  /** Counters since start (for /metrics): statements written (`batches`, retries excluded), items in them, batches refused and retried item by item. */
  readonly stats: { batches: number; items: number; refused: number };
}

interface Pending<I, O> {
  item: I;
  resolve: (o: O) => void;
  reject: (err: unknown) => void;
}

export function createGroupCommit<I, O>(write: (items: readonly I[]) => Promise<O[]>, opts: GroupCommitOptions): GroupCommit<I, O> {
  let queue: Array<Pending<I, O>> = [];
  let cancelTimer: (() => void) | null = null;
  let inFlight = 0;
  let lastSubmitAt = -Infinity;
  const stats = { batches: 0, items: 0, refused: 0 };

  async function writeBatch(batch: Array<Pending<I, O>>): Promise<void> {
    stats.batches++;
    stats.items += batch.length;
    try {
      const out = await write(batch.map((p) => p.item));
      batch.forEach((p, i) => p.resolve(out[i]!));
    } catch (err) {
      if (batch.length === 1 || !rolledBack(err)) {
        for (const p of batch) p.reject(err);
        return;
      }
      stats.refused++;
      opts.onBatchRefused?.(err, batch.length);
      await Promise.all(
        batch.map(async (p) => {
          try {
            p.resolve((await write([p.item]))[0]!);
          } catch (e) {
            p.reject(e);
          }
        }),
      );
    }
  }

  function flush(): void {
    cancelTimer?.();
    cancelTimer = null;
    if (queue.length === 0 || inFlight >= opts.maxInFlight) return;
    const batch = queue.length <= opts.maxBatch ? queue : queue.slice(0, opts.maxBatch);
    queue = queue.length <= opts.maxBatch ? [] : queue.slice(opts.maxBatch);
    inFlight++;
    void writeBatch(batch).finally(() => {
      inFlight--;
      // Items that queued while every slot was busy (no batch opened for them) have waited at
      // least as long as this statement: written at once. An opened batch keeps its wait.
      if (queue.length > 0 && !cancelTimer) flush();
    });
    if (queue.length > 0 && inFlight < opts.maxInFlight) schedule(opts.maxWaitMs);
  }

  function schedule(waitMs: number): void {
    if (cancelTimer) return;
    if (waitMs > 0) {
      const t = setTimeout(flush, waitMs);
      cancelTimer = () => clearTimeout(t);
    } else {
      const t = setImmediate(flush);
      cancelTimer = () => clearImmediate(t);
    }
  }

  return {
    stats,
    submit(item) {
      const now = performance.now();
      const quiet = now - lastSubmitAt > opts.maxWaitMs;
      lastSubmitAt = now;
      return new Promise<O>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        if (queue.length >= opts.maxBatch) flush();
        else if (inFlight < opts.maxInFlight) schedule(quiet ? 0 : opts.maxWaitMs);
      });
    },
  };
}

/** PostgreSQL answered the statement with an error (a SQLSTATE): it rolled back, nothing of it was written. */
function rolledBack(err: unknown): boolean {
  if (typeof err !== 'object' || err === null || isDatabaseUnavailable(err)) return false;
  const { code, severity } = err as { code?: unknown; severity?: unknown };
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof severity === 'string';
}
