/**
 * Issue 42 item 2: migrations moved from platform/db/migrations into each module's folder. An
 * installed database recorded them by name, so the names are the contract: a database migrated
 * by the code before the move runs none of them again, and one that applied a migration no
 * module gives any more is refused at start, saying which.
 */
import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, migrations } from '../../src/migrations.js';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { createEmptyDatabase } from '../support/db.js';

/** The migrations every installed database had applied before the move, in the order the former single list gave them. */
const BEFORE_THE_MOVE = (
  '0001_platform 0002_intel_sources 0003_intel_pipeline 0004_agents 0005_triggers 0006_iocs_search 0007_items_search_by_enrichment ' +
  '0008_items_storage 0009_run_actors 0011_alerts 0012_delivery 0013_hunt 0014_alert_numbers 0015_run_deliveries_idx 0020_intel_out ' +
  '0021_run_trigger_context 0022_indicator_value_checks 0023_console_sessions 0035_alert_loop 0040_structured_vulnerabilities ' +
  '0045_delivery_attempt_in_flight 0046_worker_heartbeat_dead_after 0050_console_address 0051_insights_indexes 0052_alert_verdict_columns ' +
  '0060_run_agent_snapshot 0070_hunt_epss_alert_settings 0080_agent_versions 0085_managed_by_code 0090_evaluations 0095_attack_coverage ' +
  '0096_intel_attack_columns 0071_csaf_sources 0072_items_processed_idx 0097_intel_items_duplicate_of_idx 0105_indicators_org_fk ' +
  '0106_attack_columns_plpgsql 0110_structured_items_search 0111_hunt_software_package_name 0115_intel_attack_rollups ' +
  '0126_hunt_unassessed_idx 0130_iocs_count_generation 0131_hunt_alert_on_known_exploited 0134_destination_signing_secrets ' +
  '0135_identity_providers_oidc_scim 0139_blocklists_response_lists 0141_console_sign_in_settings 0140_detect_event_matching ' +
  '0142_agent_run_fair_share 0138_tool_approvals'
).split(' ');

let h: DatabaseHandle;
beforeAll(async () => {
  h = await createEmptyDatabase();
});
afterAll(() => h.close());

describe('migrations with their modules', () => {
  it('keep every name an installed database recorded', () => {
    expect(BEFORE_THE_MOVE.filter((name) => !(name in migrations))).toEqual([]);
  });

  it('run none again on a database migrated before the move, only the ones added since', async () => {
    // The database as the former code left it: every migration it had, applied in its list's order.
    const before = Object.fromEntries(BEFORE_THE_MOVE.map((name) => [name, migrations[name]!]));
    const { error, results } = await new Migrator({ db: h.db, provider: { getMigrations: async () => before }, allowUnorderedMigrations: true }).migrateToLatest();
    expect(error).toBeUndefined();
    expect(results).toHaveLength(BEFORE_THE_MOVE.length);
    const recorded = async () => (await sql<{ name: string; timestamp: Date }>`SELECT name, timestamp FROM kysely_migration ORDER BY name`.execute(h.db)).rows;
    const then = await recorded();

    const { applied } = await migrateToLatest(h.db, h.pool);
    expect(applied).toEqual(Object.keys(migrations).filter((name) => !BEFORE_THE_MOVE.includes(name)));
    // The rows of the migrations applied before are untouched (none re-run, none rewritten).
    expect((await recorded()).filter((r) => BEFORE_THE_MOVE.includes(r.name))).toEqual(then);
    expect((await migrateToLatest(h.db, h.pool)).applied).toEqual([]);
  });

  it('refuse to start on a database that applied a migration no module gives, naming it', async () => {
    await sql`INSERT INTO kysely_migration (name, timestamp) VALUES ('0099_dropped_module', now())`.execute(h.db);
    try {
      await expect(migrateToLatest(h.db, h.pool)).rejects.toThrow(
        "This database has applied migration 0099_dropped_module, which no module or platform provides: is a module missing from src/composition.ts, or its manifest's `migrations`, or a file from its migrations/index.ts?",
      );
    } finally {
      await sql`DELETE FROM kysely_migration WHERE name = '0099_dropped_module'`.execute(h.db);
    }
    expect((await migrateToLatest(h.db, h.pool)).applied).toEqual([]);
  });
});
