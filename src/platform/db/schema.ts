import type { ColumnType, Generated } from 'kysely';

/**
 * Column types as Kysely sees them (CamelCasePlugin maps snake_case columns to these names),
 * shared by every module's `<module>.tables.ts`.
 */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
export type Json<T = unknown> = ColumnType<T, string, string>;
export type JsonDefault<T> = ColumnType<T, string | undefined, string>;
export type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null>;

export interface AuditLogsTable {
  id: string;
  organizationId: string;
  actorType: string;
  actorUserId: string | null;
  actorApiKeyId: string | null;
  action: string;
  resourceType: string;
  resourceId: string | null;
  requestId: string | null;
  metadata: Json<Record<string, unknown>>;
  createdAt: Timestamp;
}

export interface WorkerHeartbeatsTable {
  workerId: string;
  poolId: string;
  seenAt: Timestamp;
  /** The pool's own dead-worker delay (migration 0046). */
  deadAfterMs: Generated<number>;
}

export interface JobFailuresTable {
  id: Generated<string>;
  jobId: string;
  taskIdentifier: string;
  payload: Json<unknown>;
  attempts: number;
  lastError: string;
  failedAt: Timestamp;
}

/** The fingerprint of each reference-data seed last applied (platform/db/reference-seeds.ts, migration 0153). */
export interface ReferenceDataSeedsTable {
  name: string;
  fingerprint: string;
  appliedAt: Timestamp;
}

/**
 * The database as Kysely sees it. Platform declares its own tables here (the audit trail and the
 * worker's bookkeeping, scripts/table-owners.ts PLATFORM_TABLES); each module declares its
 * tables in its `<module>.tables.ts` and merges them into this interface (`declare module
 * '../../platform/db/schema.js' { interface DB { … } }`), as modules declare their events on
 * `DomainEvents`. test/platform/structure.test.ts keeps every table's type with its owner.
 */
export interface DB {
  auditLogs: AuditLogsTable;
  workerHeartbeats: WorkerHeartbeatsTable;
  jobFailures: JobFailuresTable;
  referenceDataSeeds: ReferenceDataSeedsTable;
}
