import type { Migration } from 'kysely';
import * as m0001 from './0001_platform.js';
import * as m0002 from './0002_intel_sources.js';
import * as m0003 from './0003_intel_pipeline.js';
import * as m0004 from './0004_agents.js';
import * as m0005 from './0005_triggers.js';
import * as m0006 from './0006_iocs_search.js';
import * as m0007 from './0007_items_search_by_enrichment.js';
import * as m0008 from './0008_items_storage.js';
import * as m0009 from './0009_run_actors.js';
import * as m0011 from './0011_alerts.js';
import * as m0012 from './0012_delivery.js';
import * as m0013 from './0013_hunt.js';
import * as m0014 from './0014_alert_numbers.js';
import * as m0015 from './0015_run_deliveries_idx.js';
import * as m0020 from './0020_intel_out.js';
import * as m0021 from './0021_run_trigger_context.js';
import * as m0022 from './0022_indicator_value_checks.js';
import * as m0023 from './0023_console_sessions.js';
import * as m0035 from './0035_alert_loop.js';
import * as m0040 from './0040_structured_vulnerabilities.js';
import * as m0045 from './0045_delivery_attempt_in_flight.js';
import * as m0046 from './0046_worker_heartbeat_dead_after.js';
import * as m0050 from './0050_console_address.js';
import * as m0051 from './0051_insights_indexes.js';
import * as m0052 from './0052_alert_verdict_columns.js';
import * as m0060 from './0060_run_agent_snapshot.js';
import * as m0070 from './0070_hunt_epss_alert_settings.js';
import * as m0080 from './0080_agent_versions.js';
import * as m0085 from './0085_managed_by_code.js';
import * as m0090 from './0090_evaluations.js';
import * as m0095 from './0095_attack_coverage.js';
import * as m0096 from './0096_intel_attack_columns.js';
import * as m0115 from './0115_intel_attack_rollups.js';
import * as m0126 from './0126_hunt_unassessed_idx.js';
import * as m0130 from './0130_iocs_count_generation.js';
import * as m0131 from './0131_hunt_alert_on_known_exploited.js';
import * as m0134 from './0134_destination_signing_secrets.js';
import * as m0135 from './0135_identity_providers_oidc_scim.js';
import * as m0139 from './0139_blocklists_response_lists.js';
import * as m0141 from './0141_console_sign_in_settings.js';
import * as m0140 from './0140_detect_event_matching.js';
import * as m0142 from './0142_agent_run_fair_share.js';
import * as m0138 from './0138_tool_approvals.js';
import * as m0147 from './0147_agent_code_drift.js';
import * as m0097 from './0097_intel_items_duplicate_of_idx.js';
import * as m0071 from './0071_csaf_sources.js';
import * as m0072 from './0072_items_processed_idx.js';
import * as m0105 from './0105_indicators_org_fk.js';
import * as m0106 from './0106_attack_columns_plpgsql.js';
import * as m0110 from './0110_structured_items_search.js';
import * as m0111 from './0111_hunt_software_package_name.js';

/**
 * Migrations in order. A static list (rather than reading the folder) works the same under tsx,
 * compiled output and bundlers. Never edit a migration that has shipped: add a new one.
 */
export const migrations: Record<string, Migration> = {
  '0001_platform': m0001,
  '0002_intel_sources': m0002,
  '0003_intel_pipeline': m0003,
  '0004_agents': m0004,
  '0005_triggers': m0005,
  '0006_iocs_search': m0006,
  '0007_items_search_by_enrichment': m0007,
  '0008_items_storage': m0008,
  '0009_run_actors': m0009,
  '0011_alerts': m0011,
  '0012_delivery': m0012,
  '0013_hunt': m0013,
  '0014_alert_numbers': m0014,
  '0015_run_deliveries_idx': m0015,
  '0020_intel_out': m0020,
  '0021_run_trigger_context': m0021,
  '0022_indicator_value_checks': m0022,
  '0023_console_sessions': m0023,
  '0035_alert_loop': m0035,
  '0040_structured_vulnerabilities': m0040,
  '0045_delivery_attempt_in_flight': m0045,
  '0046_worker_heartbeat_dead_after': m0046,
  '0050_console_address': m0050,
  '0051_insights_indexes': m0051,
  '0052_alert_verdict_columns': m0052,
  '0060_run_agent_snapshot': m0060,
  '0070_hunt_epss_alert_settings': m0070,
  '0080_agent_versions': m0080,
  '0085_managed_by_code': m0085,
  '0090_evaluations': m0090,
  '0095_attack_coverage': m0095,
  '0096_intel_attack_columns': m0096,
  '0071_csaf_sources': m0071,
  '0072_items_processed_idx': m0072,
  '0097_intel_items_duplicate_of_idx': m0097,
  '0105_indicators_org_fk': m0105,
  '0106_attack_columns_plpgsql': m0106,
  '0110_structured_items_search': m0110,
  '0111_hunt_software_package_name': m0111,
  '0115_intel_attack_rollups': m0115,
  '0126_hunt_unassessed_idx': m0126,
  '0130_iocs_count_generation': m0130,
  '0131_hunt_alert_on_known_exploited': m0131,
  '0134_destination_signing_secrets': m0134,
  '0135_identity_providers_oidc_scim': m0135,
  '0139_blocklists_response_lists': m0139,
  '0141_console_sign_in_settings': m0141,
  '0140_detect_event_matching': m0140,
  '0142_agent_run_fair_share': m0142,
  '0138_tool_approvals': m0138,
  '0147_agent_code_drift': m0147,
};
