import type { Migration } from 'kysely';
import * as m0011 from './0011_alerts.js';
import * as m0014 from './0014_alert_numbers.js';
import * as m0035 from './0035_alert_loop.js';
import * as m0051 from './0051_insights_indexes.js';
import * as m0052 from './0052_alert_verdict_columns.js';
import * as m0150 from './0150_alert_payload_raw.js';

/**
 * The alerts module's migrations, given to the migrator by its manifest (`migrations`). The
 * four-digit prefix is the global order across every module and platform (src/migrations.ts);
 * the name is what installed databases recorded, so it never changes. A static list (rather
 * than reading the folder) works the same under tsx, compiled output and bundlers. Never edit a
 * migration that has shipped: add a new one.
 *
 * Beyond this module's tables (a change that spans them stays with the module it is about): 0014 adds the organizations trigger that makes each one's alert-number sequence; 0035 (the alert loop) adds agent_runs' alert ids, agent_triggers.route_alerts and lets trigger_deliveries.run_id be null.
 */
export const migrations: Record<string, Migration> = {
  '0011_alerts': m0011,
  '0014_alert_numbers': m0014,
  '0035_alert_loop': m0035,
  '0051_insights_indexes': m0051,
  '0052_alert_verdict_columns': m0052,
  '0150_alert_payload_raw': m0150,
};
