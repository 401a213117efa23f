import { sql, type Kysely } from 'kysely';

/**
 * The hunt's intel pass reads an organization's items processed after its watermark, a page at a
 * time: without an index each page scanned every item of the organization (200,000 OSV records:
 * forty full scans per sync). Partial: items not yet processed are never read that way.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX IF NOT EXISTS intel_items_org_processed_idx ON intel_items (organization_id, processed_at) WHERE processed_at IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS intel_items_org_processed_idx`.execute(db);
}
