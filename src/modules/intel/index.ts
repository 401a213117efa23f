import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule } from '../../platform/module.js';
import { scheduleDueSyncs } from './sources/scheduler.js';
import { registerSourcesRoutes } from './sources/sources.routes.js';
import { createSourcesService } from './sources/sources.service.js';
import { registerItemsRoutes } from './items/items.routes.js';
import { createItemsService } from './items/items.service.js';
import { createIocsService } from './iocs/iocs.service.js';
import { migrations } from './migrations/index.js';

// The front door: indicator lookup and checks, item search, extraction, the vocabularies others read.
export { createIocsService } from './iocs/iocs.service.js';
export { recordSightedIndicators } from './iocs/checks.store.js';
export { createItemsService } from './items/items.service.js';
export { IOC_LISTS, SEVERITIES } from './items/items.schemas.js';
export { IocTypeFilter } from './iocs/iocs.schemas.js';
export { indicatorGroupOf, INDICATOR_TYPES, type IndicatorType } from './indicator-vocabulary.js';
export { normalizeIndicator } from './normalize-indicator.fns.js';
export { intelCommands } from './intel-commands.fns.js';
export { DEFAULT_TTL_DAYS, extractIocs, refang, scanIocs, type Extraction, type IocKind } from './extract/extract.fns.js';
export { parseVersionList, parseVersionsBefore } from './products/versions.fns.js';
export { cpeCase, cpeVersion, findingFromCpe, findingsFromConfigurations, findingsFromCve5Affected, parseCpe, type CpeFinding, type CpeName } from './products/cpe.fns.js';
export { classificationSummary, techniqueIdOf, techniqueIdsOf, type AttackMapping, type ClassificationSummary } from './attack/attack-id.fns.js';
export { versionContext, versionsAreFixes } from './products/version-context.fns.js';
export type { AffectedPackage, AssertedIndicatorType, IntelEntry, StructuredIndicator, VulnerabilityRecord } from './entries.js';
export { LOG_SOURCES, sigmaRules } from './detection/sigma.fns.js';
export { SIGMA_RULE_SCHEMA } from './detection/sigma-schema.js';
export { attackCatalogInfo, loadAttackCatalog, MITRE_SOURCE_KEY, refreshAttackCatalog, SHIPPED_ATTACK_VERSION, shippedAttackCatalog } from './attack/catalog.repo.js';
export { catalogFromStixObjects, EMPTY_CATALOG, sortTactics, tacticName, TACTICS, TECHNIQUE_ID_RE, type AttackCatalog, type CatalogGroup, type CatalogSoftware, type CatalogTechnique } from './attack/attack-catalog.fns.js';
export { attackPressure, attackPressureDetails, type PressureScope, type TechniquePressure, type TechniqueIntel } from './items/attack-pressure.repo.js';
export { builtinSourcesSeed, seedBuiltinSources } from './sources/sources.repo.js';
export { intelSourceHealth, type IntelSourceHealth } from './sources/source-health.repo.js';

// What intel-ingest writes through (intel owns every table it fills): the entry shape its
// connectors produce, a sync job's rows, the items, their enrichment and indicators, EPSS scores.
export { syncSourceJob } from './sources/sync.job-def.js';
export { failSyncOfDeletedSource, findSourceState, findSyncedSource, findSyncJob, markSyncRunning, recordSyncFailure, recordSyncProgress, recordSyncSuccess } from './sources/sync-jobs.repo.js';
export { itemFields, uniqueByExternalId } from './items/items.store.js';
export { knownItems, writePrepared, type KnownItem, type PreparedChunk, type StoreTarget } from './items/ingest.store.js';
export { itemsToEnrich, writeResults, type EnrichedItem } from './items/results.store.js';
export type { Enrichment, IndicatorOut } from './items/enrichment.js';
export { readEpssScores, writeEpssScores, type EpssScores } from './items/epss.store.js';
export { holdsRecordsOf, settledRecordIds, storeVulnerabilities, unchangedVulnerabilities } from './vulnerabilities/vulnerabilities.store.js';
export { storedPackagesOf, storedRecordKey, type StoredRecordRef } from './vulnerabilities/vulnerabilities.repo.js';

function registerIntelModule(app: FastifyInstance, deps: ModuleDeps): void {
  const db = deps.database.db;
  registerSourcesRoutes(app, createSourcesService({ db, secrets: deps.secrets }));
  registerItemsRoutes(app, { items: createItemsService({ db }), iocs: createIocsService({ db }), db, baseUrl: deps.config.baseUrl });
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['intel_sources', 'intel_source_states', 'intel_sync_jobs', 'intel_items', 'intel_indicators', 'intel_indicator_checks', 'intel_indicator_values', 'intel_indicator_search', 'intel_indicator_generations', 'intel_indicator_generation_marks', 'attack_catalog', 'intel_epss_scores', 'intel_attack_daily', 'intel_attack_sightings', 'intel_attack_sighting_days', 'intel_vulnerabilities'] as const;

/**
 * Sources (and when each is due: the scheduler pass queues their syncs), items, indicators and
 * the ATT&CK catalog. The syncs and the enrichment run in intel-ingest, which writes through the
 * stores above.
 */
export const intelModule = defineModule({
  name: 'intel',
  owns: ownedTables,
  migrations,
  routes: registerIntelModule,
  schedulerPasses: [{ name: 'source scheduler tick', run: ({ db }) => scheduleDueSyncs(db) }],
});
