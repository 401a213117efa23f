import type { EventSpec } from '../../platform/events.js';

/** What a subscriber learns of a request (the alert's timeline, a run's resume). */
export interface ApprovalEvent {
  approvalId: string;
  organizationId: string;
  runId: string;
  agentId: string;
  alertId: string | null;
  toolName: string;
  args: unknown;
  reason: string;
  status: string;
  expiresAt: string;
  decidedByUserId: string | null;
  decidedByName: string | null;
  comment: string | null;
}

declare module '../../platform/events.js' {
  interface DomainEvents {
    /** A run's tool call waits for a person, in the transaction that recorded it (alerts: a timeline entry). */
    'approval.requested': EventSpec<ApprovalEvent>;
    /**
     * A request was approved, denied or expired, in the transaction that decided it. Runs resume
     * the run once none of its requests is pending; alerts note it on the timeline.
     */
    'approval.decided': EventSpec<ApprovalEvent>;
  }
}
