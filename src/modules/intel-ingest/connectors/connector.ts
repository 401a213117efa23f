import type { EpssScores, IntelEntry } from '../../intel/index.js';

/**
 * One interface for every kind of source: fetch → entries. A connector reads everything it
 * will return before returning (nothing partial is stored) — except `batches`, read while
 * stored (a failure part-way leaves the batches stored and the state unchanged, so the retry
 * reads them again and finds them unchanged) — respects maxEntries, and throws
 * a ConnectorError (or OutboundError/ConnectorParseError) whose message a person can act on.
 */
export interface HttpClient {
  request(
    url: string,
    init?: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number; maxResponseBytes?: number; signal?: AbortSignal; saveTo?: string },
  ): Promise<{ status: number; headers: Record<string, string>; url: string; body: Buffer; text(): string; json<T = unknown>(): T }>;
}

export interface SourceConfig {
  displayName: string;
  kind: 'rss' | 'api';
  apiType: 'misp' | 'misp_feed' | 'taxii' | 'osv' | 'cisa_kev' | 'epss' | 'nvd' | 'csaf' | null;
  feedUrl: string | null;
  serverUrl: string | null;
  collectionId: string | null;
  authType: 'bearer' | 'basic' | 'header' | null;
  username: string | null;
  /** Decrypted credential, only in memory for the duration of the sync. */
  apiKey: string | null;
  maxEntries: number;
}

export interface SyncState {
  etag: string | null;
  lastModified: string | null;
  /** Connector-specific incremental position (MISP timestamp, TAXII added_after per collection…). */
  cursor: Record<string, unknown>;
}

export interface FetchResult {
  status: 'ok' | 'not_modified';
  entries: IntelEntry[];
  /** Per-CVE scores instead of items (EPSS). */
  scores?: EpssScores;
  etag?: string | null;
  lastModified?: string | null;
  cursor?: Record<string, unknown>;
  /**
   * Entries read one batch at a time after `entries` (OSV's export, hundreds of thousands of
   * records): the sync stores each batch before reading the next, so memory stays flat.
   */
  batches?: AsyncIterable<IntelEntry[]>;
  /**
   * What a person should know of how the sync went besides its counts (e.g. that documents on
   * another host were fetched without the source's credentials): logged by the sync and kept in
   * its job's `stats.notes`. No credential, nothing from a URL's path or query.
   */
  notes?: string[];
  /** Called by the sync once it is done with the result, whatever the outcome (deletes a download). */
  dispose?: () => Promise<void>;
}

/** The deployment's limits a connector honours (from the worker's configuration). */
export interface ConnectorLimits {
  /** Inflated bytes one sync reads of a zip (OSV). */
  maxInflatedBytes?: number;
  /**
   * Of these records (their id and `modified`), the ids the vulnerability store already holds at
   * that `modified` with their item: a connector that can read both before building an entry
   * (OSV) skips those records unbuilt. The sync counts them as fetched and unchanged.
   */
  settledRecords?: (records: ReadonlyArray<{ id: string; modified: string }>) => Promise<ReadonlySet<string>>;
}

export interface Connector {
  fetch(source: SourceConfig, state: SyncState, http: HttpClient, limits?: ConnectorLimits): Promise<FetchResult>;
}

export class ConnectorError extends Error {}

/** A feed or API document could not be understood; the message is shown to users as lastError. */
export class ConnectorParseError extends Error {}
