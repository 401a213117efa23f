import { sql, type Kysely } from 'kysely';

/**
 * A batch of events awaiting its matching job is written once, read once (whole) and deleted:
 * nothing queries inside it. As `jsonb` PostgreSQL built the binary form on insert and printed
 * it back to text on read, about 25–30 ms of its CPU per batch of 200 events (~350 KB); `json`
 * keeps the text as sent after checking it parses, about 12 ms (docs/performance-history.md,
 * "Event-in → alert latency"). The JSON operators still work on it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE detect_event_batches ALTER COLUMN events TYPE json USING events::json`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE detect_event_batches ALTER COLUMN events TYPE jsonb USING events::jsonb`.execute(db);
}
