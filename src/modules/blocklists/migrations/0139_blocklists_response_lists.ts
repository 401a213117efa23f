import { sql, type Kysely } from 'kysely';

/**
 * Issue 43 item 6: block lists, Rampart's own response action.
 * - blocklists: one per organization and name (the name is the path of its external list,
 *   `/blocklists/{name}.txt`), the indicator types it holds and the default time to live of an entry.
 * - blocklist_entries: one row per list, type and value; `expires_at` null never expires. Reads
 *   filter out expired rows; the cleanup pass deletes them. `seq` orders TAXII pages (a position
 *   that two rows added in one millisecond do not share); `stix_uuid` is the id of its STIX
 *   indicator (a v5 UUID of list, type and value: re-adding a value updates the same object). Who added it: a user or a run (no foreign
 *   key: like the audit log, the record outlives the run or the user).
 * - blocklist_allowlist: per organization, values that must never be blocked (own domains, CIDR
 *   ranges), on top of the built-in ranges (RFC 1918, loopback, link-local…) refused always.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE blocklists (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      indicator_types text[] NOT NULL,
      default_ttl_seconds integer CHECK (default_ttl_seconds IS NULL OR default_ttl_seconds > 0),
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, name)
    )`.execute(db);
  await sql`
    CREATE TABLE blocklist_entries (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      blocklist_id uuid NOT NULL REFERENCES blocklists(id) ON DELETE CASCADE,
      seq bigint GENERATED ALWAYS AS IDENTITY,
      stix_uuid uuid NOT NULL,
      type text NOT NULL,
      value text NOT NULL,
      reason text NOT NULL DEFAULT '',
      expires_at timestamptz,
      added_by_type text NOT NULL CHECK (added_by_type IN ('user', 'run')),
      added_by_user_id uuid,
      added_by_run_id uuid,
      added_by_agent_id uuid,
      alert_id uuid,
      -- Milliseconds: TAXII's next token carries the position at that precision.
      created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
      updated_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
      UNIQUE (blocklist_id, type, value)
    )`.execute(db);
  await sql`CREATE INDEX blocklist_entries_org_idx ON blocklist_entries (organization_id)`.execute(db);
  await sql`CREATE INDEX blocklist_entries_list_added_idx ON blocklist_entries (blocklist_id, updated_at, seq)`.execute(db);
  await sql`CREATE INDEX blocklist_entries_expires_idx ON blocklist_entries (expires_at) WHERE expires_at IS NOT NULL`.execute(db);
  await sql`
    CREATE TABLE blocklist_allowlist (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('domain', 'cidr')),
      value text NOT NULL,
      note text NOT NULL DEFAULT '',
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, kind, value)
    )`.execute(db);
  // The new permissions: Super Admin holds every permission, Analyst every `.read` one.
  await sql`
    UPDATE roles SET permissions = permissions || ARRAY['blocklist.read', 'blocklist.manage']::text[]
    WHERE is_system AND name = 'Super Admin' AND NOT ('blocklist.read' = ANY (permissions))`.execute(db);
  await sql`
    UPDATE roles SET permissions = array_append(permissions, 'blocklist.read')
    WHERE is_system AND name = 'Analyst' AND NOT ('blocklist.read' = ANY (permissions))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE blocklist_allowlist, blocklist_entries, blocklists`.execute(db);
  await sql`UPDATE roles SET permissions = array_remove(array_remove(permissions, 'blocklist.read'), 'blocklist.manage') WHERE is_system`.execute(db);
}
