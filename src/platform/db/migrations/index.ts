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
import * as m0018 from './0018_alerts_source_idx.js';
import * as m0023 from './0023_console_sessions.js';

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
  '0018_alerts_source_idx': m0018,
  '0023_console_sessions': m0023,
};
