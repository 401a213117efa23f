import { sql, type Kysely } from 'kysely';

/**
 * The hunt's intel pass (issue 50 item 2): hunt_threat_items, hunt_threat_runs and
 * hunt_activity_events lose their foreign key to organizations, as intel_indicators did (0105).
 *
 * Each row paid a referential check on the organization's row (`SELECT 1 … FOR KEY SHARE`, run
 * per inserted row at the end of the statement): 4 per OSV record of a first pass (its link, its
 * run, its threat_created and threat_assessed events), 4 of the pass's 10 statements per record
 * (pg_stat_statements, hunt-osv bench, docs/performance-history.md). The key protected nothing
 * the threat's key does not: every such row is written with its threat's organization_id, its
 * threat_id key (ON DELETE CASCADE) deletes it with the threat, and the threat goes when its
 * organization does (hunt_threats → organizations ON DELETE CASCADE, kept). Deleting an
 * organization still removes them, through its threats.
 */
const TABLES = ['hunt_threat_items', 'hunt_threat_runs', 'hunt_activity_events'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const t of TABLES) await sql`ALTER TABLE ${sql.table(t)} DROP CONSTRAINT IF EXISTS ${sql.id(`${t}_organization_id_fkey`)}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of TABLES) {
    await sql`
      ALTER TABLE ${sql.table(t)} ADD CONSTRAINT ${sql.id(`${t}_organization_id_fkey`)}
      FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE`.execute(db);
  }
}
