import type { Generated } from 'kysely';
import type { Timestamp, NullableTimestamp, Json, NullableJson } from '../../platform/db/schema.js';

/**
 * The approvals module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging; the structure test keeps every table's
 * type here, with its owner.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    toolApprovals: ToolApprovalsTable;
  }
}

export type ToolApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'executing' | 'executed' | 'failed' | 'outcome_unknown';

/** A tool call waiting for, or decided by, a person (migration 0138; the approvals module). */
export interface ToolApprovalsTable {
  id: string;
  organizationId: string;
  runId: string;
  agentId: string;
  alertId: string | null;
  toolCallId: string;
  toolName: string;
  args: Json<unknown>;
  reason: Generated<string>;
  status: Generated<ToolApprovalStatus>;
  requestedAt: Generated<Date>;
  expiresAt: Timestamp;
  decidedAt: NullableTimestamp;
  decidedByUserId: string | null;
  /** The decider's name (else email) when they decided: what the model and the messages say. */
  decidedByName: string | null;
  decidedVia: 'console' | 'api' | 'slack' | 'expiry' | null;
  comment: string | null;
  executedAt: NullableTimestamp;
  /** The call's result or error as the model was given it. */
  outcome: NullableJson<Record<string, unknown>>;
  /** Where the Slack request was posted ({destinationId, channel, ts}), for the update naming who decided. */
  slackMessage: NullableJson<Record<string, unknown>>;
}
