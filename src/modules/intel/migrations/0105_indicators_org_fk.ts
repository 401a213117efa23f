import { sql, type Kysely } from 'kysely';

/**
 * Ingestion cost (issue 27 item 2): intel_indicators loses its foreign key to organizations.
 *
 * Every indicator row paid a referential check (a `SELECT 1 … FOR KEY SHARE` on the
 * organization's row, run per inserted row at the end of the statement): 4 per RSS entry,
 * ~18 µs of PostgreSQL CPU per entry of the ~460 µs its item and indicator INSERTs cost
 * (measured on the ingest bench's rows, backend CPU, docs/performance.md). The key protected
 * nothing the item key does not: an indicator always belongs to an item of the same
 * organization (the pipeline writes organization_id from the item's row), the item's own key
 * (ON DELETE CASCADE) deletes it with the item, and the item goes when its organization does
 * (intel_items → organizations ON DELETE CASCADE). Deleting an organization still removes its
 * indicators (through its items; iocs.search-copy.test.ts checks it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE intel_indicators DROP CONSTRAINT IF EXISTS intel_indicators_organization_id_fkey`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE intel_indicators ADD CONSTRAINT intel_indicators_organization_id_fkey
    FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE`.execute(db);
}
