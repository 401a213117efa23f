import type { ColumnType, Generated } from 'kysely';
import type { Timestamp, NullableTimestamp, Json, JsonDefault } from '../../platform/db/schema.js';
import type { AffectedPackage, VulnerabilityRecord } from './entries.js';

/**
 * The intel module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging; the structure test keeps every table's
 * type here, with its owner.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    intelSources: IntelSourcesTable;
    intelSourceStates: IntelSourceStatesTable;
    intelSyncJobs: IntelSyncJobsTable;
    intelItems: IntelItemsTable;
    intelIndicators: IntelIndicatorsTable;
    intelIndicatorChecks: IntelIndicatorChecksTable;
    intelIndicatorValues: IntelIndicatorValuesTable;
    attackCatalog: AttackCatalogTable;
    intelVulnerabilities: IntelVulnerabilitiesTable;
    intelEpssScores: IntelEpssScoresTable;
  }
}

export interface IntelSourcesTable {
  id: string;
  organizationId: string | null;
  builtinKey: string | null;
  name: string;
  displayName: string;
  description: Generated<string>;
  kind: 'rss' | 'api';
  apiType: 'misp' | 'misp_feed' | 'taxii' | 'osv' | 'cisa_kev' | 'epss' | 'nvd' | 'csaf' | null;
  feedUrl: string | null;
  serverUrl: string | null;
  collectionId: string | null;
  authType: 'bearer' | 'basic' | 'header' | null;
  username: string | null;
  apiKeyCiphertext: string | null;
  sourceEnabled: Generated<boolean>;
  scheduleCron: string;
  maxEntries: number;
  createdBy: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface IntelSourceStatesTable {
  organizationId: string;
  sourceId: string;
  subscriptionEnabled: Generated<boolean>;
  lastFetchedAt: NullableTimestamp;
  lastStatus: 'ok' | 'not_modified' | 'error' | null;
  lastError: string | null;
  etag: string | null;
  lastModified: string | null;
  cursor: ColumnType<Record<string, unknown>, string | undefined, string>;
  nextSyncAt: NullableTimestamp;
  updatedAt: Timestamp;
}

export interface IntelSyncJobsTable {
  id: string;
  organizationId: string;
  sourceId: string;
  status: 'pending' | 'running' | 'succeeded' | 'failed';
  trigger: Generated<string>;
  queuedAt: Timestamp;
  startedAt: NullableTimestamp;
  finishedAt: NullableTimestamp;
  updatedAt: Timestamp;
  attemptCount: Generated<number>;
  error: string | null;
  stats: ColumnType<Record<string, unknown>, string | undefined, string>;
}

export interface IntelItemsTable {
  id: string;
  organizationId: string;
  sourceId: string;
  externalId: string;
  title: string;
  url: string | null;
  publisher: string | null;
  publishedAt: NullableTimestamp;
  sourceUpdatedAt: NullableTimestamp;
  language: string | null;
  contentText: string;
  contentHtml: string | null;
  structuredIndicators: Json<unknown[]>;
  referenceUrls: Json<string[]>;
  tags: string[];
  raw: ColumnType<unknown, string | null, string | null>;
  contentHash: string;
  version: Generated<number>;
  status: Generated<string>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  processedAt: NullableTimestamp;
  severity: Generated<string>;
  relevance: Generated<number>;
  platforms: Generated<string[]>;
  summary: Generated<string>;
  tldr: Generated<string>;
  abstract: Generated<string>;
  attackPath: JsonDefault<string[]>;
  classification: JsonDefault<Record<string, unknown>>;
  affectedProducts: JsonDefault<unknown[]>;
  iocs: JsonDefault<Record<string, unknown[]>>;
  provenance: JsonDefault<{ supportingPassages: unknown[] }>;
  droppedCandidates: JsonDefault<unknown[]>;
  eventConfidence: Generated<number>;
  canonicalKey: string | null;
  duplicateOf: string | null;
  vulnerability: ColumnType<unknown, string | null, string | null>;
}

export interface IntelIndicatorsTable {
  id: string;
  organizationId: string;
  itemId: string;
  type: string;
  value: string;
  normalizedValue: string;
  confidence: number;
  firstSeen: Timestamp;
  lastSeen: Timestamp;
  ttlDays: number;
  intelTitle: string;
  sourceLabel: string;
  status: Generated<'found' | 'clean' | 'unchecked' | 'unknown'>;
  lastCheckedAt: NullableTimestamp;
  createdAt: Timestamp;
}

export interface IntelIndicatorChecksTable {
  id: string;
  organizationId: string;
  /** The value checked (migration 0022); the mention it was recorded through, null once that mention is gone. */
  valueId: string;
  indicatorId: string | null;
  outcome: 'found' | 'clean' | 'unknown';
  evidence: string | null;
  checkedAt: Timestamp;
  createdBy: string | null;
  createdAt: Timestamp;
}

/** A checked (organization, type, normalized value): its status is every mention's (migration 0022). */
export interface IntelIndicatorValuesTable {
  id: string;
  organizationId: string;
  type: string;
  normalizedValue: string;
  status: 'found' | 'clean' | 'unknown';
  lastCheckedAt: Timestamp;
  createdAt: Generated<Timestamp>;
}

export interface AttackCatalogTable {
  id: string;
  kind: 'technique' | 'group' | 'malware' | 'tool';
  name: string;
  aliases: string[];
  tactics: string[];
  platforms: string[];
  updatedAt: Timestamp;
}

/** A structured vulnerability record beside its item (migrations 0154, 0159; vulnerabilities/vulnerabilities.store.ts). */
export interface IntelVulnerabilitiesTable {
  organizationId: string;
  sourceId: string;
  /** The item's external id: the record's own id (OSV GHSA-…, NVD and KEV CVE-…), CSAF `<tracking id>/<CVE>`. */
  vulnId: string;
  format: 'osv' | 'csaf' | 'nvd' | 'cisa_kev';
  aliases: string[];
  severity: ColumnType<Array<{ type: string; score: string }>, string, string>;
  databaseSeverity: string | null;
  published: NullableTimestamp;
  /** The record's `modified`: the upsert rewrites a record only when it moved. */
  modified: NullableTimestamp;
  withdrawn: NullableTimestamp;
  /** The record's affected packages with their ranges and versions, in its order (the item's copy keeps their names only). */
  affected: ColumnType<AffectedPackage[], string, string>;
  /** NVD's CPE `configurations`, as NVD gives them (null for the other formats). */
  configurations: ColumnType<unknown, string | null, string | null>;
  /** KEV's listing (VulnerabilityRecord.exploited; null for the other formats). */
  exploited: ColumnType<VulnerabilityRecord['exploited'] | null, string | null, string | null>;
  storedAt: Timestamp;
}

/**
 * FIRST's EPSS score of a CVE, per organization (migration 0040): upserted by the EPSS
 * connector's sync (items/epss.store.ts), read by hunt's alert gate. `real` columns arrive as
 * numbers; `score_date` is a `date`, which node-postgres gives as a Date (written as 'YYYY-MM-DD').
 */
export interface IntelEpssScoresTable {
  organizationId: string;
  cve: string;
  epss: number;
  percentile: number;
  modelVersion: string | null;
  scoreDate: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  updatedAt: Timestamp;
}
