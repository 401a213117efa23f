import { sql, type Kysely } from 'kysely';

/**
 * Alert display numbers: each organization's sequence now exists from the moment the
 * organization does (a trigger on `organizations`), instead of being created by its first
 * alert. Created lazily, the sequence was uncommitted DDL inside the first alert's transaction:
 * concurrent first alerts of an organization could not see it and answered 500.
 *
 * Also a narrow covering index for `GET /api/alerts?source=`, which filters on trigger type OR
 * source category: its `totalCount` counted a quarter of a 100,000-alert table by a sequential
 * scan of the wide rows (payload, description); with the index it is an index-only scan (30 → 11 ms).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION rampart_alert_numbers_sequence(org uuid) RETURNS text LANGUAGE sql IMMUTABLE
    AS $$ SELECT 'alert_numbers_' || replace(org::text, '-', '') $$`.execute(db);
  await sql`
    CREATE FUNCTION rampart_organization_alert_numbers() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        EXECUTE format('CREATE SEQUENCE IF NOT EXISTS %I', rampart_alert_numbers_sequence(NEW.id));
        RETURN NEW;
      END IF;
      EXECUTE format('DROP SEQUENCE IF EXISTS %I', rampart_alert_numbers_sequence(OLD.id));
      RETURN OLD;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER organizations_alert_numbers AFTER INSERT OR DELETE ON organizations
    FOR EACH ROW EXECUTE FUNCTION rampart_organization_alert_numbers()`.execute(db);
  // Organizations that never had an alert have no sequence yet; start after any number in use.
  await sql`
    DO $$ DECLARE r record; BEGIN
      FOR r IN
        SELECT o.id, coalesce((SELECT max(a.number) FROM alerts a WHERE a.organization_id = o.id), 0) + 1 AS start
        FROM organizations o WHERE to_regclass(rampart_alert_numbers_sequence(o.id)) IS NULL
      LOOP
        EXECUTE format('CREATE SEQUENCE %I START %s', rampart_alert_numbers_sequence(r.id), r.start);
      END LOOP;
    END $$`.execute(db);
  await sql`CREATE INDEX alerts_org_source_idx ON alerts (organization_id, source_category, trigger_type)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS alerts_org_source_idx`.execute(db);
  await sql`DROP TRIGGER IF EXISTS organizations_alert_numbers ON organizations`.execute(db);
  await sql`DROP FUNCTION IF EXISTS rampart_organization_alert_numbers()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS rampart_alert_numbers_sequence(uuid)`.execute(db);
}
