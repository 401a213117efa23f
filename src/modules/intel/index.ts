import type { FastifyInstance } from 'fastify';
import type { ModuleDeps } from '../../platform/wiring.js';
import { defineModule } from '../../platform/module.js';
import { scheduleDueSyncs } from './sources/scheduler.js';
import { createSyncSourceJob } from './sources/sync.jobs.js';
import { createProcessItemsJob, enqueueProcessing } from './pipeline/process.jobs.js';
import { registerSourcesRoutes } from './sources/sources.routes.js';
import { createSourcesService } from './sources/sources.service.js';
import { registerItemsRoutes } from './items/items.routes.js';
import { createItemsService } from './items/items.service.js';
import { createIocsService } from './iocs/iocs.service.js';
import { migrations } from './migrations/index.js';

// The front door: indicator lookup and checks, item search, extraction, scheduling and jobs.
export { createIocsService } from './iocs/iocs.service.js';
export { recordSightedIndicators } from './iocs/checks.store.js';
export { createItemsService } from './items/items.service.js';
export { IOC_LISTS, SEVERITIES } from './items/items.schemas.js';
export { IocTypeFilter } from './iocs/iocs.schemas.js';
export { indicatorGroupOf, INDICATOR_TYPES, type IndicatorType } from './indicator-vocabulary.js';
export { normalizeIndicator } from './normalize-indicator.fns.js';
export { intelCommands } from './intel-commands.fns.js';
export { extractIocs, refang } from './pipeline/extract/extract.fns.js';
export { parseVersionList } from './pipeline/classify/versions.fns.js';
export { parseCpe, type CpeName } from './pipeline/classify/cpe.fns.js';
export { classificationSummary, techniqueIdOf, techniqueIdsOf, type AttackMapping, type ClassificationSummary } from './pipeline/classify/attack-id.fns.js';
export { versionContext } from './pipeline/classify/version-context.fns.js';
export { readEpssScores } from './items/epss.store.js';
export type { AffectedPackage, VulnerabilityRecord } from './connectors/types.js';
export { LOG_SOURCES, sigmaRules } from './detection/sigma.fns.js';
export { SIGMA_RULE_SCHEMA } from './detection/sigma-schema.js';
export { loadAttackCatalog } from './pipeline/catalog.repo.js';
export { sortTactics, tacticName, TACTICS, TECHNIQUE_ID_RE, type AttackCatalog, type CatalogTechnique } from './pipeline/classify/attack-catalog.fns.js';
export { attackPressure, attackPressureDetails, type PressureScope, type TechniquePressure, type TechniqueIntel } from './items/attack-pressure.repo.js';
export { seedBuiltinSources } from './sources/sources.repo.js';

function registerIntelModule(app: FastifyInstance, deps: ModuleDeps): void {
  const db = deps.database.db;
  registerSourcesRoutes(app, createSourcesService({ db, secrets: deps.secrets }));
  registerItemsRoutes(app, { items: createItemsService({ db }), iocs: createIocsService({ db }), db, baseUrl: deps.config.baseUrl });
}

/** The tables this module owns: only its SQL names them (scripts/table-owners.ts, docs/architecture.md#tables). */
export const ownedTables = ['intel_sources', 'intel_source_states', 'intel_sync_jobs', 'intel_items', 'intel_indicators', 'intel_indicator_checks', 'intel_indicator_values', 'intel_indicator_search', 'intel_indicator_generations', 'intel_indicator_generation_marks', 'attack_catalog', 'intel_epss_scores', 'intel_attack_daily', 'intel_attack_sightings', 'intel_attack_sighting_days'] as const;

/** Sources, their syncs (a job per sync, scheduled each tick on their `scheduleCron`), the enrichment pipeline, items and indicators. */
export const intelModule = defineModule({
  name: 'intel',
  owns: ownedTables,
  migrations,
  routes: registerIntelModule,
  jobs: (deps) => [createSyncSourceJob({ ...deps, enqueueEnrichment: enqueueProcessing }), createProcessItemsJob({ db: deps.db })],
  schedulerPasses: [{ name: 'source scheduler tick', run: ({ db }) => scheduleDueSyncs(db) }],
});
