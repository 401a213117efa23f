import type { Generated } from 'kysely';
import type { Timestamp, NullableTimestamp, JsonDefault, NullableJson } from '../../platform/db/schema.js';

/**
 * The alerts module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging; the structure test keeps every table's
 * type here, with its owner.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    codeDetections: CodeDetectionsTable;
    alerts: AlertsTable;
    alertTimeline: AlertTimelineTable;
    alertRouting: AlertRoutingTable;
  }
}

export type AlertSeverity = 'low' | 'medium' | 'high' | 'critical';

export type AlertStatus = 'open' | 'in_progress' | 'escalated' | 'closed_true_positive' | 'closed_false_positive' | 'closed_benign';

export interface CodeDetectionsTable {
  id: string;
  organizationId: string;
  name: string;
  ruleId: string | null;
  description: Generated<string>;
  severity: AlertSeverity;
  logSource: string | null;
  logStream: string | null;
  query: string | null;
  attackTechniques: Generated<string[]>;
  attackTactics: Generated<string[]>;
  status: Generated<CodeDetectionStatus>;
  tags: Generated<string[]>;
  createdBy: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** 'code' when written by config apply (migration 0085). */
  managedBy: Generated<'code' | null>;
  managedSource: Generated<string | null>;
}

export type CodeDetectionStatus = 'experimental' | 'test' | 'stable' | 'deprecated';

export interface AlertsTable {
  id: string;
  organizationId: string;
  number: number;
  title: string;
  description: Generated<string>;
  severity: AlertSeverity;
  status: AlertStatus;
  duplicateCount: Generated<number>;
  sourceCategory: string;
  sourceName: string;
  triggerType: string | null;
  createdBy: string;
  createdByUserId: string | null;
  codeDetectionId: string | null;
  originCodeDetectionHitId: string | null;
  originAgentId: string | null;
  originTriggerId: string | null;
  originRunId: string | null;
  assignedAgentId: string | null;
  triageRunId: string | null;
  externalProvider: string | null;
  externalRef: string | null;
  externalUrl: string | null;
  dedupeKey: string | null;
  payload: JsonDefault<unknown>;
  /** A trigger alert's body exactly as received (UTF-8 text), beside the parsed `payload` (migration 0150). */
  payloadRaw: string | null;
  routing: NullableJson<Record<string, unknown>>;
  routingDepth: Generated<number>;
  huntQualifiedBy: string | null;
  /** The latest closed alert with the same dedupe key when this one opened (migration 0035). */
  duplicateOfAlertId: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  firstTriagedAt: NullableTimestamp;
  resolvedAt: NullableTimestamp;
  resolvedByType: 'human' | 'agent' | null;
  resolvedByUserId: string | null;
  resolvedByAgentName: string | null;
  resolvedReason: string | null;
  /** The status history Insights reads (migration 0052; written by alerts.transition.ts). */
  agentVerdictStatus: AlertStatus | null;
  agentVerdictAt: NullableTimestamp;
  humanStatusAt: NullableTimestamp;
  everEscalated: Generated<boolean>;
}

export interface AlertTimelineTable {
  id: string;
  organizationId: string;
  alertId: string;
  kind: string;
  actorType: 'human' | 'agent' | 'system';
  actorUserId: string | null;
  actorAgentId: string | null;
  runId: string | null;
  body: Generated<string>;
  data: JsonDefault<Record<string, unknown>>;
  createdAt: Timestamp;
}

export interface AlertRoutingTable {
  organizationId: string;
  routes: JsonDefault<unknown[]>;
  defaultResponseAgentId: string | null;
  huntResponseAgentId: string | null;
  updatedBy: string | null;
  createdAt: Generated<Date>;
  updatedAt: Generated<Date>;
  /** 'code' when written by config apply (migration 0085). */
  managedBy: Generated<'code' | null>;
  managedSource: Generated<string | null>;
}
