import type { Database, Tx } from '../db/database.js';

/**
 * `db.transaction().execute(fn)` plus "when this transaction has ended" callbacks, which an
 * invalidated cache needs to drop its local entry *after* the commit (dropping it before lets a
 * concurrent reader cache the rows the transaction is about to replace).
 */
const endCallbacks = new WeakMap<object, Array<() => void>>();

export async function withTransaction<T>(db: Database, fn: (tx: Tx) => Promise<T>): Promise<T> {
  // Already inside a transaction (config apply runs several modules' commands in one): join it;
  // its end callbacks are the outer transaction's, run when that one commits or rolls back.
  if (db.isTransaction) return fn(db as Tx);
  const callbacks: Array<() => void> = [];
  try {
    return await db.transaction().execute((tx) => {
      endCallbacks.set(tx, callbacks);
      return fn(tx);
    });
  } finally {
    // After COMMIT or ROLLBACK: either way the local state must be re-read.
    for (const cb of callbacks) cb();
  }
}

/**
 * Runs `cb` once `tx` has ended (committed or rolled back). `tx` must come from
 * `withTransaction`: a plain `db.transaction()` has no end hook, and silently running `cb`
 * early would reopen the race this exists to close.
 */
export function onTransactionEnd(tx: object, cb: () => void): void {
  const callbacks = endCallbacks.get(tx);
  if (!callbacks) throw new Error('onTransactionEnd: open the transaction with withTransaction() (src/platform/cache/transaction.ts)');
  callbacks.push(cb);
}
