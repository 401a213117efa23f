import type { Database } from '../../platform/db/database.js';
import type { EventBus } from '../../platform/events.js';
import { expirePending } from './approvals.repo.js';
import { approvalEvent } from './approvals.fns.js';

/**
 * The scheduler's pass: requests past their expiry become `expired` — a denial with reason
 * `expired` — each with `approval.decided` in the transaction that expired it (runs resume the
 * run, which tells the model). Safe from several schedulers (SKIP LOCKED, guarded UPDATE).
 */
export async function expireApprovals(db: Database, events: EventBus): Promise<number> {
  return db.transaction().execute(async (tx) => {
    const expired = await expirePending(tx);
    for (const r of expired) await events.emit(tx, 'approval.decided', approvalEvent(r));
    return expired.length;
  });
}
