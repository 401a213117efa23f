import { sql, type Kysely } from 'kysely';

/**
 * Issue 35: a delivery attempt is recorded before its request is sent (outcome `sending`) and
 * completed after; an attempt cut off by a crash is later marked `interrupted`. Its duration is
 * unknown then: `duration_ms` becomes nullable.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE destination_delivery_attempts ALTER COLUMN duration_ms DROP NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE destination_delivery_attempts SET duration_ms = 0 WHERE duration_ms IS NULL`.execute(db);
  await sql`ALTER TABLE destination_delivery_attempts ALTER COLUMN duration_ms SET NOT NULL`.execute(db);
}
