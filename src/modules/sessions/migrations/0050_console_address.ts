import { sql, type Kysely } from 'kysely';

/**
 * The address the serving process answers at, recorded when it starts (one row). An admin
 * command runs in another process, often without the server's PORT or RAMPART_BASE_URL in its
 * environment: `rampart admin login-link` prints a link to this address rather than to the
 * default port.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE console_address (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      base_url text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE console_address`.execute(db);
}
