import { uuidv7 } from 'uuidv7';
import type { Database, Queryable } from '../../platform/db/database.js';
import type { EventBus } from '../../platform/events.js';
import { newEvent, queueDeliveries } from '../delivery/index.js';
import {
  approvalsOfRunCalls,
  claimExecution,
  closePendingOfRun,
  insertApprovals,
  pendingCountOfRun,
  recordOutcome,
  type ApprovalRow,
} from './approvals.repo.js';
import { approvalConsoleUrl, approvalEvent, notRunResult } from './approvals.fns.js';
import './approvals.events.js';

/**
 * What a run does with approvals (the runs module calls these; approvals sit below runs):
 * record the calls that wait, and on resume settle each decided call exactly once.
 */

export interface ApprovalNeeded {
  toolCallId: string;
  /** The tool as the agent lists it (`mcp:<server>/<tool>`). */
  toolName: string;
  args: unknown;
  reason: string;
}

export interface RunOfRequest {
  organizationId: string;
  runId: string;
  agentId: string;
  agentName: string;
  alertId: string | null;
  expiresAfterSeconds: number;
  /** The agent's output destinations: each gets the request (Slack with Approve and Deny buttons, others a link). */
  destinationIds: readonly string[];
}

/**
 * Records the requests in the run's transaction (the one that moves it to `awaiting_approval`),
 * emits `approval.requested` for each (the alert's timeline) and queues the
 * `approval.requested` message to the agent's destinations, with its console link.
 */
export async function requestApprovals(tx: Queryable, events: EventBus, run: RunOfRequest, calls: readonly ApprovalNeeded[], baseUrl: string): Promise<ApprovalRow[]> {
  const requestedAt = new Date();
  const expiresAt = new Date(requestedAt.getTime() + run.expiresAfterSeconds * 1000);
  const rows = await insertApprovals(
    tx,
    calls.map((c) => ({ id: uuidv7(), organizationId: run.organizationId, runId: run.runId, agentId: run.agentId, alertId: run.alertId, toolCallId: c.toolCallId, toolName: c.toolName, args: c.args, reason: c.reason.slice(0, 4000), requestedAt, expiresAt })),
  );
  for (const r of rows) {
    await events.emit(tx, 'approval.requested', approvalEvent(r));
    const data = {
      approvalId: r.id,
      runId: r.runId,
      agentId: r.agentId,
      agentName: run.agentName,
      alertId: r.alertId,
      toolName: r.toolName,
      args: r.args,
      reason: r.reason,
      expiresAt: r.expiresAt.toISOString(),
      approvalUrl: approvalConsoleUrl(baseUrl, r.id),
    };
    await queueDeliveries(tx, newEvent(run.organizationId, 'approval.requested', data, r.id), run.destinationIds);
  }
  return rows;
}

/** What a decided call gives the model, and whether it ran. */
export type SettledCall =
  | { toolCallId: string; toolName: string; state: 'pending' }
  | { toolCallId: string; toolName: string; state: 'not_run'; result: string }
  | { toolCallId: string; toolName: string; state: 'ran'; output: unknown; isError: boolean };

/**
 * Settles the run's decided calls: a denied or expired call gives its reason; an approved one
 * is claimed (approved → executing, committed), called once through `execute` with the stored
 * arguments, and its outcome recorded; one found `executing` (the worker died during the call)
 * becomes `outcome_unknown` and is never called again; one settled by an earlier attempt gives
 * its recorded outcome. A call still pending is reported as such (the run waits again).
 */
export async function settleDecidedCalls(
  db: Database,
  runId: string,
  toolCallIds: readonly string[],
  execute: (toolName: string, toolCallId: string, args: unknown) => Promise<unknown>,
): Promise<SettledCall[]> {
  const rows = new Map((await approvalsOfRunCalls(db, runId, toolCallIds)).map((r) => [r.toolCallId, r]));
  const out: SettledCall[] = [];
  for (const id of toolCallIds) {
    const r = rows.get(id);
    if (!r) {
      out.push({ toolCallId: id, toolName: 'unknown', state: 'not_run', result: 'denied: the approval request is gone; the tool was not called' });
      continue;
    }
    out.push(await settleOne(db, r, execute));
  }
  return out;
}

const UNKNOWN = 'outcome unknown: the worker stopped while the approved call was under way, so whether it took effect is unknown; it was not called again';

async function settleOne(db: Database, r: ApprovalRow, execute: (toolName: string, toolCallId: string, args: unknown) => Promise<unknown>): Promise<SettledCall> {
  const base = { toolCallId: r.toolCallId, toolName: r.toolName };
  switch (r.status) {
    case 'pending':
      return { ...base, state: 'pending' };
    case 'denied':
    case 'expired':
      return { ...base, state: 'not_run', result: notRunResult(r) };
    case 'executing':
      await recordOutcome(db, r.id, 'outcome_unknown', { error: UNKNOWN });
      return { ...base, state: 'ran', output: UNKNOWN, isError: true };
    case 'outcome_unknown':
    case 'executed':
    case 'failed': {
      const o = (r.outcome ?? {}) as { result?: unknown; error?: string };
      return r.status === 'executed' ? { ...base, state: 'ran', output: o.result ?? null, isError: false } : { ...base, state: 'ran', output: o.error ?? UNKNOWN, isError: true };
    }
    case 'approved': {
      if (!(await claimExecution(db, r.id))) {
        // Another attempt claimed it meanwhile: read what it recorded.
        const again = (await approvalsOfRunCalls(db, r.runId, [r.toolCallId]))[0]!;
        return again.status === 'approved' ? { ...base, state: 'pending' } : settleOne(db, again.status === 'executing' ? { ...again, status: 'outcome_unknown', outcome: { error: UNKNOWN } } : again, execute);
      }
      try {
        const result = await execute(r.toolName, r.toolCallId, r.args);
        await recordOutcome(db, r.id, 'executed', { result: result === undefined ? null : result });
        return { ...base, state: 'ran', output: result ?? null, isError: false };
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        await recordOutcome(db, r.id, 'failed', { error });
        return { ...base, state: 'ran', output: error, isError: true };
      }
    }
  }
}

/** A run interrupted while it waited: its pending requests are closed (denied, saying why). */
export async function closeRunApprovals(tx: Queryable, runId: string, why: string): Promise<number> {
  return closePendingOfRun(tx, runId, why);
}

export { pendingCountOfRun };
