import type { Queryable } from '../../platform/db/database.js';
import type { ApprovalEvent } from '../approvals/index.js';
import { addTimelineEntry } from './alerts.repo.js';

/**
 * The alert's timeline names what its triage run asked a person to approve, and what they (or
 * the clock) decided: `approval_requested` by the agent, `approval_decided` by the person (or the
 * system, for an expiry). The entry's data links the request (`approvalId`).
 */
export async function noteApproval(tx: Queryable, e: ApprovalEvent, kind: 'approval_requested' | 'approval_decided'): Promise<void> {
  if (!e.alertId) return;
  const data = { approvalId: e.approvalId, toolName: e.toolName, status: e.status, ...(kind === 'approval_requested' ? { args: e.args, expiresAt: e.expiresAt } : { comment: e.comment }) };
  if (kind === 'approval_requested') {
    const body = `Asked a person to approve ${e.toolName}${e.reason ? `: ${e.reason}` : ''}`.slice(0, 4000);
    await addTimelineEntry(tx, { organizationId: e.organizationId, alertId: e.alertId, kind, actorType: 'agent', actorAgentId: e.agentId, runId: e.runId, body, data });
    return;
  }
  const verdict = e.status === 'expired' ? `expired: no one decided on ${e.toolName} in time` : `${e.status} ${e.toolName}${e.comment ? `: ${e.comment}` : ''}`;
  await addTimelineEntry(tx, {
    organizationId: e.organizationId,
    alertId: e.alertId,
    kind,
    actorType: e.decidedByUserId ? 'human' : 'system',
    actorUserId: e.decidedByUserId,
    runId: e.runId,
    body: verdict.slice(0, 4000),
    data,
  });
}
