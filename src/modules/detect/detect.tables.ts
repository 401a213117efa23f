import type { Timestamp, Json } from '../../platform/db/schema.js';

/**
 * The detect module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging; the structure test keeps every table's
 * type here, with its owner.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    detectEventBatches: DetectEventBatchesTable;
    detectMatches: DetectMatchesTable;
    detectMatchDays: DetectMatchDaysTable;
    detectCorrelationWindows: DetectCorrelationWindowsTable;
  }
}

type BatchLogsource = { product?: string; category?: string; service?: string };

/**
 * A batch's events as stored: `[{logsource, event}]` (parsed and re-serialised), or
 * `{logsource, events}` (NDJSON lines kept as sent; detect.repo.ts `declaredEventsOf`).
 */
export type StoredBatchEvents = Array<{ logsource: BatchLogsource; event: Record<string, unknown> }> | { logsource: BatchLogsource; events: Array<Record<string, unknown>> };

/** Migration 0140: events awaiting their drain job (deleted by it); `events` is `json` since 0157. */
export interface DetectEventBatchesTable {
  id: string;
  organizationId: string;
  events: Json<StoredBatchEvents>;
  eventCount: number;
  receivedAt: Timestamp;
  triggerId: string | null;
}

/** Migration 0140: the rolling sample of matched events, per detection. */
export interface DetectMatchesTable {
  id: string;
  organizationId: string;
  codeDetectionId: string;
  ruleTitle: string;
  alertId: string | null;
  event: Json<Record<string, unknown>>;
  matchedAt: Timestamp;
}

/** Migration 0140: matches per detection and day (UTC). */
export interface DetectMatchDaysTable {
  organizationId: string;
  codeDetectionId: string;
  day: string;
  matches: string;
  lastMatchedAt: Timestamp;
}

/** Migration 0140: a correlation rule's window for one group-by value. */
export interface DetectCorrelationWindowsTable {
  codeDetectionId: string;
  organizationId: string;
  correlation: string;
  groupKey: string;
  entries: Json<Array<{ ts: number; rule: number; event: Record<string, unknown> }>>;
  lastEventAt: Timestamp;
}
