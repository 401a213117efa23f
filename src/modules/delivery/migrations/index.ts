import type { Migration } from 'kysely';
import * as m0012 from './0012_delivery.js';
import * as m0015 from './0015_run_deliveries_idx.js';
import * as m0045 from './0045_delivery_attempt_in_flight.js';

/**
 * The delivery module's migrations, given to the migrator by its manifest (`migrations`). The
 * four-digit prefix is the global order across every module and platform (src/migrations.ts);
 * the name is what installed databases recorded, so it never changes. A static list (rather
 * than reading the folder) works the same under tsx, compiled output and bundlers. Never edit a
 * migration that has shipped: add a new one.
 *
 * Beyond this module's tables (a change that spans them stays with the module it is about): 0012 also adds output_destinations.event_subscriptions.
 */
export const migrations: Record<string, Migration> = {
  '0012_delivery': m0012,
  '0015_run_deliveries_idx': m0015,
  '0045_delivery_attempt_in_flight': m0045,
};
