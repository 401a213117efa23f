import type { Generated } from 'kysely';
import type { Timestamp, NullableTimestamp, Json, JsonDefault } from '../../platform/db/schema.js';

/**
 * The hunt module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging; the structure test keeps every table's
 * type here, with its owner.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    huntAssets: HuntAssetsTable;
    huntAssetSoftware: HuntAssetSoftwareTable;
    huntSightings: HuntSightingsTable;
    huntThreats: HuntThreatsTable;
    huntThreatItems: HuntThreatItemsTable;
    huntThreatRuns: HuntThreatRunsTable;
    huntActivityEvents: HuntActivityEventsTable;
    huntDeliverables: HuntDeliverablesTable;
    huntSettings: HuntSettingsTable;
  }
}

export interface HuntAssetsTable {
  id: string;
  organizationId: string;
  identifier: string;
  kind: string;
  platform: string | null;
  internetFacing: boolean;
  criticality: string;
  source: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface HuntAssetSoftwareTable {
  id: string;
  organizationId: string;
  assetId: string;
  position: number;
  vendor: string;
  product: string;
  version: string | null;
  cpe: string | null;
  purl: string | null;
  productKey: string;
}

export interface HuntSightingsTable {
  id: string;
  organizationId: string;
  type: string;
  value: string;
  normalizedValue: string;
  source: string;
  assetIdentifier: string | null;
  observedAt: Timestamp;
  createdAt: Timestamp;
}

export interface HuntThreatsTable {
  id: string;
  organizationId: string;
  canonicalType: Generated<string>;
  canonicalKeyType: Generated<string>;
  canonicalKey: string;
  title: string;
  aliases: Generated<string[]>;
  actorId: string | null;
  relevancyScore: Generated<number>;
  exposureScore: Generated<number>;
  exposureState: Generated<string>;
  coverageState: Generated<string>;
  detectionEngineeringNote: Generated<string>;
  latestRunId: string | null;
  assessmentRunningExecutionId: string | null;
  latestAlertId: string | null;
  activeHuntAlertId: string | null;
  assessmentFailedAt: NullableTimestamp;
  dismissedAt: NullableTimestamp;
  dismissedByUserId: string | null;
  dismissedReason: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface HuntThreatItemsTable {
  organizationId: string;
  threatId: string;
  itemId: string;
  linkedAt: Timestamp;
}

export interface HuntThreatRunsTable {
  id: string;
  organizationId: string;
  threatId: string;
  runAt: Timestamp;
  kind: string;
  trigger: string;
  relevancyScore: number;
  exposureScore: number;
  relevancyHeadline: string;
  relevancyExplanation: Json<string[]>;
  exposureState: string;
  coverageState: string;
  hasFoundIoc: boolean;
  hasBlockingGap: boolean;
  exposureStory: Json<Record<string, unknown>>;
  diff: Json<Record<string, unknown>>;
  relevancyExecutionId: string | null;
  exposureExecutionId: string | null;
  matches: JsonDefault<unknown[]>;
}

export interface HuntActivityEventsTable {
  id: string;
  organizationId: string;
  threatId: string;
  runId: string | null;
  kind: string;
  actorType: string;
  metadata: Json<Record<string, unknown>>;
  createdAt: Timestamp;
}

export interface HuntDeliverablesTable {
  id: string;
  organizationId: string;
  threatId: string;
  executionId: string | null;
  kind: string;
  pinning: string;
  pinnedIocs: Json<Array<{ type: string; value: string }>>;
  lifecycleStatus: string;
  intent: string;
  targetProduct: string;
  targetLogSource: string;
  content: string;
  supersededById: string | null;
  proposalId: string | null;
  pullRequestUrl: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface HuntSettingsTable {
  organizationId: string;
  minimumExposureBand: string;
  alertOnCompromiseBelowThreshold: boolean;
  minimumEpssProbability: number | null;
  minimumEpssPercentile: number | null;
  alertOnKnownExploited: Generated<boolean>;
  intelWatermark: NullableTimestamp;
  updatedAt: Timestamp;
}
