import type { ApprovalRow } from './approvals.repo.js';
import type { ApprovalDto } from './approvals.schemas.js';
import type { ApprovalEvent } from './approvals.events.js';

/** Pure parts of approvals: mapping, who may decide, what the model is told. */

export const approvalConsoleUrl = (baseUrl: string, id: string) => `${baseUrl}/approvals/${encodeURIComponent(id)}`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toApprovalDto(r: ApprovalRow, baseUrl: string): ApprovalDto {
  return {
    id: r.id,
    organizationId: r.organizationId,
    runId: r.runId,
    agentId: r.agentId,
    alertId: r.alertId,
    toolName: r.toolName,
    toolCallId: r.toolCallId,
    args: r.args,
    reason: r.reason,
    status: r.status,
    requestedAt: r.requestedAt.toISOString(),
    expiresAt: r.expiresAt.toISOString(),
    decidedAt: iso(r.decidedAt),
    decidedBy: r.decidedByUserId || r.decidedByName ? { userId: r.decidedByUserId, name: r.decidedByName } : null,
    decidedVia: r.decidedVia,
    comment: r.comment,
    executedAt: iso(r.executedAt),
    outcome: r.outcome,
    consoleUrl: approvalConsoleUrl(baseUrl, r.id),
  };
}

export function approvalEvent(r: ApprovalRow): ApprovalEvent {
  return {
    approvalId: r.id,
    organizationId: r.organizationId,
    runId: r.runId,
    agentId: r.agentId,
    alertId: r.alertId,
    toolName: r.toolName,
    args: r.args,
    reason: r.reason,
    status: r.status,
    expiresAt: r.expiresAt.toISOString(),
    decidedByUserId: r.decidedByUserId,
    decidedByName: r.decidedByName,
    comment: r.comment,
  };
}

export interface ApproverSettings {
  approverRoleIds?: readonly string[];
  approverUserIds?: readonly string[];
  requireSecondPerson?: boolean;
}

/**
 * Why this user may not decide the agent's requests, or null when they may. `lastChangedBy`:
 * who last changed the agent (its creator when never edited).
 */
export function approverRefusal(settings: ApproverSettings, user: { userId: string; roleId: string }, lastChangedBy: string | null): string | null {
  const roles = settings.approverRoleIds ?? [];
  const users = settings.approverUserIds ?? [];
  if ((roles.length || users.length) && !roles.includes(user.roleId) && !users.includes(user.userId)) {
    return "You are not among this agent's approvers (its approvalSettings name the roles and users who may decide)";
  }
  if (settings.requireSecondPerson && lastChangedBy === user.userId) {
    return 'This agent requires a second person: the person who last changed it may not decide its requests';
  }
  return null;
}

/**
 * What the model gets as the tool's result when the call did not run. A denial names who denied
 * it and their comment; an expiry says so; a run interrupted meanwhile, why.
 */
export function notRunResult(r: Pick<ApprovalRow, 'status' | 'decidedByName' | 'comment' | 'expiresAt'>): string {
  if (r.status === 'expired') return `denied: expired (no one decided before ${r.expiresAt.toISOString()}); the tool was not called`;
  const who = r.decidedByName ?? 'Rampart';
  return `denied by ${who}: ${r.comment?.trim() || '(no comment)'}`;
}
