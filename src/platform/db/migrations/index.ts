import type { Migration } from 'kysely';
import * as m0001 from './0001_platform.js';
import * as m0004 from './0004_agents.js';
import * as m0046 from './0046_worker_heartbeat_dead_after.js';
import * as m0085 from './0085_managed_by_code.js';
import * as m0142 from './0142_agent_run_fair_share.js';
import * as m0153 from './0153_reference_data_seeds.js';

/**
 * Platform's own migrations: its tables (audit trail, worker bookkeeping) and the few that span
 * several modules' tables, kept here rather than with one of them (0001 and 0004 create the first
 * modules' tables together; 0085 adds the config-apply columns to eight tables of six modules;
 * 0142 touches agents, delivery and intel; 0153 records the reference-data seeds applied). Every module's own are in its `migrations/` folder,
 * given by its manifest; src/migrations.ts collects them all in one global order (the four-digit
 * prefix). A static list (rather than reading the folder) works the same under tsx, compiled
 * output and bundlers. Never edit a migration that has shipped: add a new one.
 */
export const platformMigrations: Record<string, Migration> = {
  '0001_platform': m0001,
  '0004_agents': m0004,
  '0046_worker_heartbeat_dead_after': m0046,
  '0085_managed_by_code': m0085,
  '0142_agent_run_fair_share': m0142,
  '0153_reference_data_seeds': m0153,
};
