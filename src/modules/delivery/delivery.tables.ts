import type { Generated } from 'kysely';
import type { Timestamp, NullableTimestamp, Json, JsonDefault } from '../../platform/db/schema.js';

/**
 * The delivery module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging; the structure test keeps every table's
 * type here, with its owner.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    destinationDeliveries: DestinationDeliveriesTable;
    destinationDeliveryAttempts: DestinationDeliveryAttemptsTable;
  }
}

export interface DestinationDeliveriesTable {
  id: string;
  organizationId: string;
  destinationId: string;
  eventKind: string;
  status: string;
  attemptCount: Generated<number>;
  responseStatus: number | null;
  error: string | null;
  payload: Json<Record<string, unknown>>;
  runId: string | null;
  eventId: string;
  destinationName: Generated<string>;
  destinationType: Generated<string>;
  progress: JsonDefault<Record<string, unknown>>;
  responseExcerpt: string | null;
  nextAttemptAt: NullableTimestamp;
  firstAttemptAt: NullableTimestamp;
  lastAttemptAt: NullableTimestamp;
  finishedAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface DestinationDeliveryAttemptsTable {
  id: string;
  organizationId: string;
  deliveryId: string;
  destinationId: string;
  attempt: number;
  outcome: string;
  responseStatus: number | null;
  responseExcerpt: string | null;
  error: string | null;
  startedAt: Timestamp;
  /** Null while the attempt is in flight, and when a crash cut it off (`interrupted`). */
  durationMs: number | null;
}
