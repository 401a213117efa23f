import type { Generated } from 'kysely';
import type { Timestamp, NullableTimestamp, JsonDefault, NullableJson } from '../../platform/db/schema.js';

/**
 * The runs module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging; the structure test keeps every table's
 * type here, with its owner.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    agentRuns: AgentRunsTable;
  }
}

export type AgentRunStatus = 'waiting' | 'running' | 'awaiting_approval' | 'done' | 'error' | 'interrupted';

export type AgentRunMode = 'sync' | 'async' | 'trigger' | 'cron' | 'triage' | 'evaluation';

export interface AgentRunsTable {
  id: string;
  organizationId: string;
  agentId: string;
  status: AgentRunStatus;
  statusMessage: string | null;
  mode: AgentRunMode;
  input: JsonDefault<unknown>;
  triggerId: string | null;
  triggerSource: string | null;
  /** The webhook delivery a triggered run came from (migration 0021): see triggers' TriggerContext. */
  triggerContext: NullableJson<Record<string, unknown>>;
  /** The alert the run triages, and its display id (migration 0035). */
  alertId: string | null;
  alertDisplayId: string | null;
  /** The agent as the run was queued with, set when the agent changed since (migration 0060; agents' PinnedAgent). */
  agentSnapshot: NullableJson<Record<string, unknown>>;
  /** The agent's version when the run was queued (migration 0080). */
  agentVersion: number | null;
  actorUserId: string | null;
  actorApiKeyId: string | null;
  result: NullableJson<Record<string, unknown>>;
  stepCount: Generated<number>;
  inputTokens: Generated<number>;
  outputTokens: Generated<number>;
  attemptCount: Generated<number>;
  interruptRequestedAt: NullableTimestamp;
  /** What a run awaiting approval resumes from (migration 0138): model messages and steps so far. */
  transcript: NullableJson<Record<string, unknown>>;
  queuedAt: Timestamp;
  startedAt: NullableTimestamp;
  finishedAt: NullableTimestamp;
  updatedAt: Timestamp;
  /** The judge's grading of the agent's acceptance criteria (migration 0090; runs' recordRunJudgement). */
  acceptanceCriteriaResults: NullableJson<unknown[]>;
  evalScore: number | null;
  evalExplanation: string | null;
}
