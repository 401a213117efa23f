import type { Migration } from 'kysely';
import * as m0002 from './0002_intel_sources.js';
import * as m0003 from './0003_intel_pipeline.js';
import * as m0006 from './0006_iocs_search.js';
import * as m0007 from './0007_items_search_by_enrichment.js';
import * as m0008 from './0008_items_storage.js';
import * as m0022 from './0022_indicator_value_checks.js';
import * as m0040 from './0040_structured_vulnerabilities.js';
import * as m0071 from './0071_csaf_sources.js';
import * as m0072 from './0072_items_processed_idx.js';
import * as m0096 from './0096_intel_attack_columns.js';
import * as m0097 from './0097_intel_items_duplicate_of_idx.js';
import * as m0105 from './0105_indicators_org_fk.js';
import * as m0106 from './0106_attack_columns_plpgsql.js';
import * as m0110 from './0110_structured_items_search.js';
import * as m0115 from './0115_intel_attack_rollups.js';
import * as m0130 from './0130_iocs_count_generation.js';
import * as m0143 from './0143_renormalize_indicator_values.js';
import * as m0154 from './0154_intel_vulnerability_store.js';
import * as m0155 from './0155_intel_vulnerability_store_json.js';
import * as m0156 from './0156_items_search_inlined.js';
import * as m0159 from './0159_vulnerability_store_nvd_csaf_kev.js';
import * as m0162 from './0162_attack_columns_skip_empty.js';

/**
 * The intel module's migrations, given to the migrator by its manifest (`migrations`). The
 * four-digit prefix is the global order across every module and platform (src/migrations.ts);
 * the name is what installed databases recorded, so it never changes. A static list (rather
 * than reading the folder) works the same under tsx, compiled output and bundlers. Never edit a
 * migration that has shipped: add a new one.
 *
 * Beyond this module's tables (a change that spans them stays with the module it is about): 0040 also adds hunt_threat_runs.matches and hunt_asset_software's purl index; 0143 re-normalises hunt_sightings with intel's normaliser.
 */
export const migrations: Record<string, Migration> = {
  '0002_intel_sources': m0002,
  '0003_intel_pipeline': m0003,
  '0006_iocs_search': m0006,
  '0007_items_search_by_enrichment': m0007,
  '0008_items_storage': m0008,
  '0022_indicator_value_checks': m0022,
  '0040_structured_vulnerabilities': m0040,
  '0071_csaf_sources': m0071,
  '0072_items_processed_idx': m0072,
  '0096_intel_attack_columns': m0096,
  '0097_intel_items_duplicate_of_idx': m0097,
  '0105_indicators_org_fk': m0105,
  '0106_attack_columns_plpgsql': m0106,
  '0110_structured_items_search': m0110,
  '0115_intel_attack_rollups': m0115,
  '0130_iocs_count_generation': m0130,
  '0143_renormalize_indicator_values': m0143,
  '0154_intel_vulnerability_store': m0154,
  '0155_intel_vulnerability_store_json': m0155,
  '0156_items_search_inlined': m0156,
  '0159_vulnerability_store_nvd_csaf_kev': m0159,
  '0162_attack_columns_skip_empty': m0162,
};
