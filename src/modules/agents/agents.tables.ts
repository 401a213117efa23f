import type { Generated } from 'kysely';
import type { Timestamp, Json, JsonDefault, NullableJson } from '../../platform/db/schema.js';

/**
 * The agents module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging; the structure test keeps every table's
 * type here, with its owner.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    agents: AgentsTable;
    agentVersions: AgentVersionsTable;
  }
}

export interface AgentsTable {
  id: string;
  organizationId: string;
  name: string;
  description: Generated<string>;
  systemPrompt: string;
  modelAlias: string;
  toolNames: string[];
  inputs: JsonDefault<unknown[]>;
  structuredOutputSchema: NullableJson<Record<string, unknown>>;
  agentType: 'response' | 'detection';
  outputDestinationIds: string[];
  maxSteps: number;
  maxDurationMs: number;
  /** At most this many runs of the agent hold a worker slot at once; null: no limit of its own (migration 0142). */
  maxConcurrentRuns: number | null;
  /** The current version (migration 0080; agent_versions). */
  version: Generated<number>;
  /** What every run should achieve, graded by the organization's judge model after each run (migration 0090). */
  acceptanceCriteria: Generated<string[]>;
  /** Send `run.criteria_failed` to the agent's destinations when a run fails a criterion (migration 0090). */
  notifyCriteriaFailed: Generated<boolean>;
  createdBy: string | null;
  updatedBy: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** 'code' when written by config apply (migration 0085). */
  managedBy: Generated<'code' | null>;
  /** When a forced hand edit or restore made a code-managed agent differ from its file; an apply clears it (migration 0147). */
  driftedFromCodeAt: Generated<Date | null>;
  managedSource: Generated<string | null>;
  /** Tool name → 'allow' | 'approve' | 'deny' (migration 0138; approvals' tool policies). */
  toolPolicies: JsonDefault<Record<string, string>>;
  /** Approval expiry, approvers, requireSecondPerson (migration 0138; approvals' ApprovalSettings). */
  approvalSettings: JsonDefault<Record<string, unknown>>;
}

/** One immutable version of an agent (migration 0080; agents' agent-versions.repo.ts). */
export interface AgentVersionsTable {
  organizationId: string;
  agentId: string;
  version: number;
  snapshot: Json<Record<string, unknown>>;
  source: 'api' | 'console' | 'code' | 'restore' | 'migration';
  sourceRef: string | null;
  restoredFrom: number | null;
  actorType: string;
  actorUserId: string | null;
  actorApiKeyId: string | null;
  createdAt: Generated<Date>;
}
