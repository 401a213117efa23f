import type { ColumnType, Generated } from 'kysely';

/** Column types as Kysely sees them (CamelCasePlugin maps snake_case columns to these names). */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Json<T = unknown> = ColumnType<T, string, string>;
type JsonDefault<T> = ColumnType<T, string | undefined, string>;
type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null>;

export interface OrganizationsTable {
  id: string;
  name: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface RolesTable {
  id: string;
  organizationId: string;
  name: string;
  description: Generated<string>;
  permissions: string[];
  isSystem: Generated<boolean>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface UsersTable {
  id: string;
  organizationId: string;
  email: string;
  name: Generated<string>;
  roleId: string;
  deactivatedAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  organizationId: string;
  userId: string;
  name: string;
  prefix: string;
  keyHash: Buffer;
  createdAt: Timestamp;
  lastUsedAt: NullableTimestamp;
  expiresAt: NullableTimestamp;
  revokedAt: NullableTimestamp;
}

export interface ConsoleSessionsTable {
  id: string;
  organizationId: string;
  userId: string;
  apiKeyId: string | null;
  method: 'api_key' | 'login_link' | 'oidc';
  tokenHash: Buffer;
  createdAt: Timestamp;
  lastSeenAt: Timestamp;
  expiresAt: Timestamp;
  revokedAt: NullableTimestamp;
}

export interface ConsoleSignInSettingsTable {
  organizationId: string;
  apiKeySignIn: Generated<boolean>;
  updatedAt: Timestamp;
}

export interface ConsoleLoginLinksTable {
  id: string;
  organizationId: string;
  userId: string;
  tokenHash: Buffer;
  createdAt: Timestamp;
  expiresAt: Timestamp;
  usedAt: NullableTimestamp;
}

/** One row (migration 0050): the address the serving process answers at, for admin commands. */
export interface ConsoleAddressTable {
  id: Generated<boolean>;
  baseUrl: string;
  updatedAt: Generated<Date>;
}

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

export interface OutputDestinationsTable {
  id: string;
  organizationId: string;
  name: string;
  type: string;
  config: Json<Record<string, unknown>>;
  tokenCiphertext: string | null;
  eventSubscriptions: ColumnType<string[], string[] | undefined, string[]>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** 'code' when written by config apply (migration 0085). */
  managedBy: Generated<'code' | null>;
  managedSource: Generated<string | null>;
  /** Webhook signing secrets (migration 0134): the current one, and the one before a rotation until its overlap ends. */
  signingSecretCiphertext: Generated<string | null>;
  previousSigningSecretCiphertext: Generated<string | null>;
  previousSigningSecretExpiresAt: Generated<Date | null>;
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

export interface DB {
  organizations: OrganizationsTable;
  roles: RolesTable;
  users: UsersTable;
  apiKeys: ApiKeysTable;
  consoleSessions: ConsoleSessionsTable;
  consoleLoginLinks: ConsoleLoginLinksTable;
  consoleSignInSettings: ConsoleSignInSettingsTable;
  consoleAddress: ConsoleAddressTable;
  auditLogs: AuditLogsTable;
  outputDestinations: OutputDestinationsTable;
  destinationDeliveries: DestinationDeliveriesTable;
  destinationDeliveryAttempts: DestinationDeliveryAttemptsTable;
  workerHeartbeats: WorkerHeartbeatsTable;
  jobFailures: JobFailuresTable;
  intelSources: IntelSourcesTable;
  intelSourceStates: IntelSourceStatesTable;
  intelSyncJobs: IntelSyncJobsTable;
  intelItems: IntelItemsTable;
  intelIndicators: IntelIndicatorsTable;
  intelIndicatorChecks: IntelIndicatorChecksTable;
  intelIndicatorValues: IntelIndicatorValuesTable;
  attackCatalog: AttackCatalogTable;
  modelProviders: ModelProvidersTable;
  modelAliases: ModelAliasesTable;
  mcpServers: McpServersTable;
  agents: AgentsTable;
  agentTriggers: AgentTriggersTable;
  agentVersions: AgentVersionsTable;
  agentRuns: AgentRunsTable;
  toolApprovals: ToolApprovalsTable;
  triggerDeliveries: TriggerDeliveriesTable;
  codeDetections: CodeDetectionsTable;
  alerts: AlertsTable;
  alertTimeline: AlertTimelineTable;
  alertRouting: AlertRoutingTable;
  huntAssets: HuntAssetsTable;
  huntAssetSoftware: HuntAssetSoftwareTable;
  huntSightings: HuntSightingsTable;
  huntThreats: HuntThreatsTable;
  huntThreatItems: HuntThreatItemsTable;
  huntThreatRuns: HuntThreatRunsTable;
  huntActivityEvents: HuntActivityEventsTable;
  huntDeliverables: HuntDeliverablesTable;
  huntSettings: HuntSettingsTable;
  evaluationDatasets: EvaluationDatasetsTable;
  evaluationCases: EvaluationCasesTable;
  evaluations: EvaluationsTable;
  evaluationResults: EvaluationResultsTable;
  evaluationSettings: EvaluationSettingsTable;
  coverageLayers: CoverageLayersTable;
  identityProviders: IdentityProvidersTable;
  identityProviderLinks: IdentityProviderLinksTable;
  oidcLoginStates: OidcLoginStatesTable;
  scimGroups: ScimGroupsTable;
  scimGroupMembers: ScimGroupMembersTable;
  blocklists: BlocklistsTable;
  blocklistEntries: BlocklistEntriesTable;
  blocklistAllowlist: BlocklistAllowlistTable;
  detectEventBatches: DetectEventBatchesTable;
  detectMatches: DetectMatchesTable;
  detectMatchDays: DetectMatchDaysTable;
  detectCorrelationWindows: DetectCorrelationWindowsTable;
}

/** Migration 0135: OpenID Connect providers per organization (issue 45). */
export interface IdentityProvidersTable {
  id: string;
  organizationId: string;
  name: string;
  issuer: string;
  clientId: string;
  clientSecretCiphertext: string;
  scopes: string[];
  groupsClaim: string;
  allowedEmailDomains: string[];
  roleMappings: Json<Array<{ group: string; roleId: string }>>;
  defaultRoleId: string | null;
  scimTokenHash: Buffer | null;
  scimTokenCreatedAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface IdentityProviderLinksTable {
  providerId: string;
  organizationId: string;
  userId: string;
  subject: string | null;
  scimExternalId: string | null;
  scimUserName: string | null;
  createdAt: Generated<Date>;
}

export interface OidcLoginStatesTable {
  stateHash: Buffer;
  providerId: string;
  codeVerifier: string;
  nonce: string;
  createdAt: Generated<Date>;
  expiresAt: Timestamp;
}

export interface ScimGroupsTable {
  id: string;
  providerId: string;
  displayName: string;
  externalId: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface ScimGroupMembersTable {
  groupId: string;
  userId: string;
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

export interface ModelProvidersTable {
  id: string;
  organizationId: string;
  name: string;
  type: 'openai' | 'anthropic' | 'openai-compatible';
  baseUrl: string | null;
  apiKeyCiphertext: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** 'code' when written by config apply (migration 0085). */
  managedBy: Generated<'code' | null>;
  managedSource: Generated<string | null>;
}

export interface ModelAliasesTable {
  organizationId: string;
  alias: string;
  providerId: string;
  modelId: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** 'code' when written by config apply (migration 0085). */
  managedBy: Generated<'code' | null>;
  managedSource: Generated<string | null>;
}

export interface McpServersTable {
  id: string;
  organizationId: string;
  name: string;
  url: string;
  tokenCiphertext: string | null;
  enabled: Generated<boolean>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** 'code' when written by config apply (migration 0085). */
  managedBy: Generated<'code' | null>;
  managedSource: Generated<string | null>;
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
  managedSource: Generated<string | null>;
  /** When a forced hand edit or restore made a code-managed agent differ from its file; an apply clears it (migration 0147). */
  driftedFromCodeAt: Generated<Date | null>;
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

export interface TriggerDeliveriesTable {
  triggerId: string;
  deliveryKey: string;
  /** The run the delivery started, or null when it started none (migration 0035). */
  runId: string | null;
  receivedAt: Timestamp;
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

export interface CoverageLayersTable {
  id: string;
  organizationId: string;
  name: string;
  description: Generated<string>;
  techniques: JsonDefault<unknown[]>;
  layer: Json<unknown>;
  createdBy: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

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

/** Evaluations (migration 0090; the evaluations module). */
export interface EvaluationDatasetsTable {
  id: string;
  organizationId: string;
  name: string;
  description: Generated<string>;
  createdBy: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface EvaluationCasesTable {
  id: string;
  organizationId: string;
  datasetId: string;
  position: number;
  alert: NullableJson<Record<string, unknown>>;
  input: NullableJson<unknown>;
  expected: JsonDefault<Record<string, unknown>>;
  tags: Generated<string[]>;
  sourceAlertId: string | null;
  createdAt: Timestamp;
}

export interface EvaluationsTable {
  id: string;
  organizationId: string;
  agentId: string;
  datasetId: string | null;
  datasetName: string;
  agentVersion: number | null;
  agentSnapshot: JsonDefault<Record<string, unknown>>;
  concurrency: number;
  status: 'running' | 'done' | 'cancelled';
  caseCount: number;
  createdBy: string | null;
  createdAt: Timestamp;
  finishedAt: NullableTimestamp;
}

export interface EvaluationResultsTable {
  id: string;
  organizationId: string;
  evaluationId: string;
  caseId: string;
  position: number;
  testCase: JsonDefault<Record<string, unknown>>;
  status: 'pending' | 'running' | 'judging' | 'done' | 'error';
  runId: string | null;
  shadow: NullableJson<Record<string, unknown>>;
  recorded: JsonDefault<unknown[]>;
  verdict: string | null;
  correct: boolean | null;
  criteria: JsonDefault<unknown[]>;
  inputTokens: Generated<number>;
  outputTokens: Generated<number>;
  latencyMs: number | null;
  error: string | null;
  finishedAt: NullableTimestamp;
}

export interface EvaluationSettingsTable {
  organizationId: string;
  judgeModelAlias: string | null;
  updatedAt: Timestamp;
}

/** Migration 0139: block lists (issue 43). */
export interface BlocklistsTable {
  id: string;
  organizationId: string;
  name: string;
  description: Generated<string>;
  indicatorTypes: string[];
  defaultTtlSeconds: number | null;
  createdBy: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface BlocklistEntriesTable {
  id: string;
  organizationId: string;
  blocklistId: string;
  seq: Generated<string>;
  stixUuid: string;
  type: string;
  value: string;
  reason: Generated<string>;
  expiresAt: NullableTimestamp;
  addedByType: 'user' | 'run';
  addedByUserId: string | null;
  addedByRunId: string | null;
  addedByAgentId: string | null;
  alertId: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface BlocklistAllowlistTable {
  id: string;
  organizationId: string;
  kind: 'domain' | 'cidr';
  value: string;
  note: Generated<string>;
  createdBy: string | null;
  createdAt: Timestamp;
}

/** Migration 0140: events awaiting their matching job (deleted by it). */
export interface DetectEventBatchesTable {
  id: string;
  organizationId: string;
  events: Json<Array<{ logsource: { product?: string; category?: string; service?: string }; event: Record<string, unknown> }>>;
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

export type ToolApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'executing' | 'executed' | 'failed' | 'outcome_unknown';

/** A tool call waiting for, or decided by, a person (migration 0138; the approvals module). */
export interface ToolApprovalsTable {
  id: string;
  organizationId: string;
  runId: string;
  agentId: string;
  alertId: string | null;
  toolCallId: string;
  toolName: string;
  args: Json<unknown>;
  reason: Generated<string>;
  status: Generated<ToolApprovalStatus>;
  requestedAt: Generated<Date>;
  expiresAt: Timestamp;
  decidedAt: NullableTimestamp;
  decidedByUserId: string | null;
  /** The decider's name (else email) when they decided: what the model and the messages say. */
  decidedByName: string | null;
  decidedVia: 'console' | 'api' | 'slack' | 'expiry' | null;
  comment: string | null;
  executedAt: NullableTimestamp;
  /** The call's result or error as the model was given it. */
  outcome: NullableJson<Record<string, unknown>>;
  /** Where the Slack request was posted ({destinationId, channel, ts}), for the update naming who decided. */
  slackMessage: NullableJson<Record<string, unknown>>;
}
