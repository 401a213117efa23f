import type { Migration } from 'kysely';
import * as m0013 from './0013_hunt.js';
import * as m0070 from './0070_hunt_epss_alert_settings.js';
import * as m0111 from './0111_hunt_software_package_name.js';
import * as m0126 from './0126_hunt_unassessed_idx.js';
import * as m0131 from './0131_hunt_alert_on_known_exploited.js';
import * as m0160 from './0160_hunt_rows_org_fk.js';

/**
 * The hunt module's migrations, given to the migrator by its manifest (`migrations`). The
 * four-digit prefix is the global order across every module and platform (src/migrations.ts);
 * the name is what installed databases recorded, so it never changes. A static list (rather
 * than reading the folder) works the same under tsx, compiled output and bundlers. Never edit a
 * migration that has shipped: add a new one.
 */
export const migrations: Record<string, Migration> = {
  '0013_hunt': m0013,
  '0070_hunt_epss_alert_settings': m0070,
  '0111_hunt_software_package_name': m0111,
  '0126_hunt_unassessed_idx': m0126,
  '0131_hunt_alert_on_known_exploited': m0131,
  '0160_hunt_rows_org_fk': m0160,
};
