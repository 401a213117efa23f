import { sql, type Kysely } from 'kysely';

/**
 * A trigger alert's body exactly as the sender sent it (issue 47 §18), beside the parsed
 * `payload`: jsonb keeps neither key order, duplicate keys nor spacing, and a form body is stored
 * decoded. Text, not bytea: JSON is UTF-8 (RFC 8259 §8.1) and the intake path writes the row
 * from JSON (a group commit's jsonb_populate_record), where a string costs nothing more to carry.
 * Null for alerts not made from a delivery, made before this column, or whose body was not
 * UTF-8 text PostgreSQL can store (docs/alerts.md). No backfill: the bytes of old deliveries are gone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE alerts ADD COLUMN payload_raw text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE alerts DROP COLUMN payload_raw`.execute(db);
}
