import type { Generated } from 'kysely';
import type { Timestamp, NullableTimestamp, JsonDefault, NullableJson } from '../../platform/db/schema.js';

/**
 * The triggers module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging; the structure test keeps every table's
 * type here, with its owner.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    agentTriggers: AgentTriggersTable;
    triggerDeliveries: TriggerDeliveriesTable;
  }
}

export interface AgentTriggersTable {
  id: string;
  organizationId: string;
  agentId: string;
  source: string;
  name: Generated<string>;
  status: 'draft' | 'active';
  enabled: Generated<boolean>;
  secretCiphertext: string | null;
  signingSecretCiphertext: string | null;
  additionalFields: JsonDefault<Record<string, unknown>>;
  cronSchedule: string | null;
  /** The IANA time zone a cron trigger's schedule is read in; null: UTC (migration 0148). */
  cronTimezone: string | null;
  /** The input a cron trigger passes to its agent (migration 0005). */
  input: NullableJson<unknown>;
  /** Whether a delivery also creates an alert; null: the source's default (migration 0011). */
  createAlert: boolean | null;
  /** JSON pointers into the payload for alert fields (title, description, severity, …). */
  alertMapping: NullableJson<Record<string, string>>;
  /** Agent input name → JSON pointer into the payload (migration 0021). */
  inputMapping: NullableJson<Record<string, string>>;
  /** JSON pointer to a payload id used for dedupe when no delivery header came (migration 0021). */
  deliveryIdPointer: string | null;
  /** Its alerts go through triage routing instead of to its own agent (migration 0035). */
  routeAlerts: Generated<boolean>;
  nextRunAt: NullableTimestamp;
  lastRunAttemptedAt: NullableTimestamp;
  lastRunSucceededAt: NullableTimestamp;
  createdBy: string | null;
  /** Who last changed the trigger (migration 0009); with the agent's, decides whom its runs act as. */
  updatedBy: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** 'code' when written by config apply (migration 0085). */
  managedBy: Generated<'code' | null>;
  managedSource: Generated<string | null>;
}

export interface TriggerDeliveriesTable {
  triggerId: string;
  deliveryKey: string;
  /** The run the delivery started, or null when it started none (migration 0035). */
  runId: string | null;
  receivedAt: Timestamp;
}
